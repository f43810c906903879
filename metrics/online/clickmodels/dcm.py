"""The dependent click model (DCM), fitted by exact EM.

Guo, Liu & Wang, "Efficient multiple-click models in web search", WSDM 2009; the
parameterisation of Chuklin, Markov & de Rijke, *Click Models for Web Search* (2015),
ch. 3. The original paper estimates the parameters in closed form under the assumption
that the user stopped at the last click; here EM maximises the model's own likelihood,
in which the user may also have read on past the last click without clicking again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray

if TYPE_CHECKING:
    from relkit.metrics.online.clickmodels.chain import Pages


def _obs_last(b: Pages) -> BoolArray:
    """The last click of each session of ``b`` where a result is shown below it."""
    out = np.zeros(b.click.shape, dtype=bool)
    cols = np.flatnonzero(b.l_obs)
    out[b.l_rank[cols], cols] = True
    return out


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
        from relkit.metrics.online.clickmodels.chain import (
            distinct_pages,
            e_step,
            fixed_counts,
            log0,
        )

        n_p, r_max = data.n_pairs, data.max_rank
        alpha = rng.uniform(0.4, 0.6, n_p)
        lam = rng.uniform(0.4, 0.6, r_max)
        blocks = distinct_pages(data)
        n_pair = fixed_counts(blocks, lambda b: b.shown, n_p)
        n_click = fixed_counts(blocks, lambda b: b.click, n_p)
        n_tail = fixed_counts(blocks, lambda b: b.tail, n_p)
        pre_skip = fixed_counts(blocks, lambda b: b.pre & ~b.click, n_p)
        # clicks whose continuation is observed; those above the last click went on
        n_obs = fixed_counts(blocks, lambda b: (b.click & b.pre) | _obs_last(b), r_max,
                             by="rank")
        went_on = fixed_counts(blocks, lambda b: b.click & b.pre, r_max, by="rank")
        self.trace = []
        for _ in range(iterations + 1):
            a_ext = np.append(alpha, 0.0)
            ll = n_click @ log0(alpha) + pre_skip @ log0(1 - alpha) + went_on @ log0(lam)
            a_sub = np.zeros(n_p + 1)
            on = np.zeros(r_max)
            for pg in blocks:
                a = a_ext[pg.pair]
                kl = lam[pg.l_rank]
                post = e_step(pg, a, 1.0, np.where(pg.has, kl, 1.0))
                ll += post.log_t
                a_sub += np.bincount(pg.pair.ravel(), (post.exam * a).ravel(), n_p + 1)
                o = pg.l_obs
                on += np.bincount(pg.l_rank[o], (kl * post.on)[o], r_max)
            self.trace.append(float(ll))
            if len(self.trace) > iterations:
                break
            alpha = np.where(n_pair > 0, (n_click + alpha * n_tail - a_sub[:n_p])
                             / np.maximum(n_pair, 1), alpha)
            lam = np.where(n_obs > 0, (went_on + on) / np.maximum(n_obs, 1e-300), lam)
        self.params = {"alpha": alpha, "lambda": lam}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        from relkit.metrics.online.clickmodels.chain import chain_probabilities

        a = self.pp("alpha", pair)
        kappa = np.broadcast_to(self.params["lambda"][None, : pair.shape[1]], a.shape)
        return chain_probabilities(a, kappa, 1.0, pair >= 0, click)
