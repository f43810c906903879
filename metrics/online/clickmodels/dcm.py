"""The dependent click model (DCM), fitted by exact EM.

Guo, Liu & Wang, "Efficient multiple-click models in web search", WSDM 2009; the
parameterisation of Chuklin, Markov & de Rijke, *Click Models for Web Search* (2015),
ch. 3. The original paper estimates the parameters in closed form under the assumption
that the user stopped at the last click; here EM maximises the model's own likelihood,
in which the user may also have read on past the last click without clicking again.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relkit.metrics.online.clickmodels.base import FloatArray
from relkit.metrics.online.clickmodels.chain import Pages, e_step, fixed_counts, log0
from relkit.metrics.online.clickmodels.data import BoolArray, IntArray
from relkit.metrics.online.clickmodels.sums import ChainModel, Sums, Theta


def _obs_last(b: Pages) -> BoolArray:
    """The last click of each session of ``b`` where a result is shown below it."""
    out = np.zeros(b.click.shape, dtype=bool)
    cols = np.flatnonzero(b.l_obs)
    out[b.l_rank[cols], cols] = True
    return out


class DCM(ChainModel):
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

    fixed_shapes = {"n_pair": "pair", "n_click": "pair", "n_tail": "pair",
                    "pre_skip": "pair", "n_obs": "rank", "went_on": "rank"}
    sum_shapes = {"log_t": "scalar", "a_sub": "pair", "on": "rank"}

    def start(self, rng: np.random.Generator, n_pairs: int, max_rank: int) -> Theta:
        return rng.uniform(0.4, 0.6, n_pairs), rng.uniform(0.4, 0.6, max_rank)

    def fixed_sums(self, pg: Pages, n_pairs: int, max_rank: int) -> Sums:
        def by_pair(cells: BoolArray) -> FloatArray:
            return fixed_counts([pg], lambda _b: cells, n_pairs)

        def by_rank(cells: BoolArray) -> FloatArray:
            return fixed_counts([pg], lambda _b: cells, max_rank, by="rank")

        # clicks whose continuation is observed; those above the last click went on
        return {"n_pair": by_pair(pg.shown), "n_click": by_pair(pg.click),
                "n_tail": by_pair(pg.tail), "pre_skip": by_pair(pg.pre & ~pg.click),
                "n_obs": by_rank((pg.click & pg.pre) | _obs_last(pg)),
                "went_on": by_rank(pg.click & pg.pre)}

    def seed(self, fixed: Sums, theta: Theta) -> Sums:
        alpha, lam = theta
        ll = (fixed["n_click"] @ log0(alpha) + fixed["pre_skip"] @ log0(1 - alpha)
              + fixed["went_on"] @ log0(lam))
        return {"log_t": ll, "a_sub": np.zeros(len(alpha)), "on": np.zeros(len(lam))}

    def block_sums(self, pg: Pages, theta: Theta, n_pairs: int, max_rank: int) -> Sums:
        alpha, lam = theta
        a = np.append(alpha, 0.0)[pg.pair]
        kl = lam[pg.l_rank]
        post = e_step(pg, a, 1.0, np.where(pg.has, kl, 1.0))
        o = pg.l_obs
        return {"log_t": post.log_t,
                "a_sub": np.bincount(pg.pair.ravel(), (post.exam * a).ravel(),
                                     n_pairs + 1)[:n_pairs],
                "on": np.bincount(pg.l_rank[o], (kl * post.on)[o], max_rank)}

    def m_step(self, fixed: Sums, theta: Theta, sums: Sums) -> Theta:
        alpha, lam = theta
        n_pair, n_obs = fixed["n_pair"], fixed["n_obs"]
        alpha = np.where(n_pair > 0, (fixed["n_click"] + alpha * fixed["n_tail"]
                                      - sums["a_sub"]) / np.maximum(n_pair, 1), alpha)
        lam = np.where(n_obs > 0, (fixed["went_on"] + sums["on"])
                       / np.maximum(n_obs, 1e-300), lam)
        return alpha, lam

    def params_of(self, theta: Theta) -> dict[str, Any]:
        return {"alpha": theta[0], "lambda": theta[1]}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        from relkit.metrics.online.clickmodels.chain import chain_probabilities

        a = self.pp("alpha", pair)
        kappa = np.broadcast_to(self.params["lambda"][None, : pair.shape[1]], a.shape)
        return chain_probabilities(a, kappa, 1.0, pair >= 0, click)
