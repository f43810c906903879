"""The dependent click model (DCM), fitted by exact EM.

Guo, Liu & Wang, "Efficient multiple-click models in web search", WSDM 2009; the
parameterisation of Chuklin, Markov & de Rijke, *Click Models for Web Search* (2015),
ch. 3. The original paper estimates the parameters in closed form under the assumption
that the user stopped at the last click; here EM maximises the model's own likelihood,
in which the user may also have read on past the last click without clicking again.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray


class DCM(ClickModel):
    r"""Dependent click model (Guo, Liu & Wang, WSDM 2009), EM estimates.

    .. math::
        C_r = 1 \Leftrightarrow E_r = 1 \wedge A_r = 1, \quad
        P(A_r = 1) = \alpha_{uq}, \quad E_1 = 1, \quad
        E_r = 0 \Rightarrow E_{r+1} = 0, \\
        P(E_{r+1} = 1 \mid E_r = 1, C_r = 0) = 1, \quad
        P(E_{r+1} = 1 \mid C_r = 1) = \lambda_r

    ``params["lambda"]`` has one value per rank; ``lambda`` at the last rank (and at any
    rank with no click followed by a shown result) is not identified and keeps its
    initial value. EM (E-step of :mod:`.chain`): above the last click every result was
    examined and every click was followed by more reading; the only unknown is whether
    the user went on after the last click ``l``, with posterior
    ``lambda_l B / (1 - lambda_l + lambda_l B)``, ``B = prod_{j > l} (1 - alpha_j)``.
    The M-step sets ``alpha`` to the mean posterior of ``A`` over impressions and
    ``lambda_r`` to the mean posterior of going on over the clicks at rank ``r`` that have
    a result below them. Exact EM: the log-likelihood (:attr:`trace`) never decreases.
    """

    name = "dcm"
    per_pair = ("alpha",)

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        from relkit.metrics.online.clickmodels.chain import distinct_pages, e_step

        n_p, r_max = data.n_pairs, data.max_rank
        alpha = rng.uniform(0.4, 0.6, n_p)
        lam = rng.uniform(0.4, 0.6, r_max)
        pg = distinct_pages(data)
        w = np.broadcast_to(pg.weight[None, :], pg.pair.shape)
        shown, click = pg.shown, pg.click
        n_pair = np.bincount(pg.pair[shown], w[shown], n_p)
        click_mass = np.bincount(pg.pair[click], w[click], n_p)
        ranks = np.broadcast_to(np.arange(r_max)[:, None], pg.pair.shape)
        # clicks whose continuation is observed, and those above the last click (went on)
        obs = click & pg.later
        n_obs = np.bincount(ranks[obs], w[obs], r_max)
        pre_c = click & pg.pre
        went_on = np.bincount(ranks[pre_c], w[pre_c], r_max)
        has = pg.last >= 0
        cols = np.flatnonzero(has)
        l_rank = pg.last[has]
        l_obs = pg.later[l_rank, cols]
        tail_p = pg.pair[pg.tail]
        self.trace = []
        for _ in range(iterations + 1):
            a = alpha[pg.pair]
            kappa = np.broadcast_to(lam[:, None], a.shape)
            post = e_step(pg, a, 1.0, kappa)
            self.trace.append(post.log_likelihood)
            if len(self.trace) > iterations:
                break
            w_tail = (w - post.exam)[pg.tail] * a[pg.tail]
            alpha = np.where(n_pair > 0, (click_mass + np.bincount(tail_p, w_tail, n_p))
                             / np.maximum(n_pair, 1), alpha)
            on = (lam[l_rank] * post.on[cols])[l_obs]
            lam = np.where(n_obs > 0, (went_on + np.bincount(l_rank[l_obs], on, r_max))
                           / np.maximum(n_obs, 1e-300), lam)
        self.params = {"alpha": alpha, "lambda": lam}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        from relkit.metrics.online.clickmodels.chain import chain_probabilities

        a = self.pp("alpha", pair)
        kappa = np.broadcast_to(self.params["lambda"][None, : pair.shape[1]], a.shape)
        return chain_probabilities(a, kappa, 1.0, pair >= 0, click)
