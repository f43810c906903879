"""The dynamic Bayesian network click model (DBN), fitted by exact EM.

Chuklin, Markov & de Rijke (2015), section 3.8 (model) and section 4.2 (EM). The E-step
is the chain models' (:mod:`.chain`): closed form above each session's last click, one
backward and one forward pass over ranks below it, vectorised over sessions.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relkit.metrics.online.clickmodels.base import FloatArray
from relkit.metrics.online.clickmodels.chain import Pages, e_step, fixed_counts, log0
from relkit.metrics.online.clickmodels.data import BoolArray, IntArray
from relkit.metrics.online.clickmodels.sums import ChainModel, Sums, Theta


def _n_pre(fixed: Sums) -> float:
    """Continuations above the last click (examined, not satisfied, went on)."""
    return float(fixed["pre_skip"].sum() + fixed["pre_click"].sum())


def dbn_probabilities(alpha: FloatArray, sigma: FloatArray, gamma: float, shown: BoolArray,
                      click: BoolArray) -> tuple[FloatArray, FloatArray]:
    """(conditional, marginal) click probabilities of the DBN (``gamma = 1``: SDBN).

    ``alpha``, ``sigma``: the pair's parameters at each (session, rank). Ranks with no
    result are skipped (the user passes over them).
    """
    n, r_max = alpha.shape
    cond = np.zeros((n, r_max))
    marg = np.zeros((n, r_max))
    e = np.ones(n)   # P(E_r = 1 | C_<r)
    m = np.ones(n)   # P(E_r = 1)
    for r in range(r_max):
        a, s, sh, c = alpha[:, r], sigma[:, r], shown[:, r], click[:, r]
        cond[:, r] = e * a
        marg[:, r] = m * a
        with np.errstate(invalid="ignore", divide="ignore"):
            after_skip = np.where(1 - e * a > 0, e * (1 - a) * gamma / (1 - e * a), 0.0)
        e = np.where(sh, np.where(c, gamma * (1 - s), after_skip), e)
        m = np.where(sh, m * gamma * (1 - a * s), m)
    return cond, marg


class DBN(ChainModel):
    r"""Dynamic Bayesian network model (DBN, section 3.8), EM estimates (section 4.2).

    .. math::
        C_r = 1 \Leftrightarrow E_r = 1 \wedge A_r = 1, \quad
        P(A_r = 1) = \alpha_{uq}, \quad P(S_r = 1 \mid C_r = 1) = \sigma_{uq}, \quad
        S_r = 0 \text{ if } C_r = 0, \\
        E_1 = 1, \quad P(E_{r+1} = 1 \mid E_r = 1, S_r = 0) = \gamma, \quad
        E_{r+1} = 0 \text{ if } E_r = 0 \vee S_r = 1

    EM: the E-step computes, over the examination chain ``E`` (:mod:`.chain`), the
    posteriors ``P(A_r = 1 | C)``, ``P(S_r = 1 | C)`` (clicked ranks) and the expected
    continuations ``P(E_r = 1, S_r = 0, E_{r+1} = e | C)``; the M-step sets each
    parameter to its expected successes over expected trials. Exact EM: the
    log-likelihood (:attr:`trace`) never decreases.
    """

    name = "dbn"
    per_pair = ("alpha", "sigma")

    fixed_shapes = {"n_pair": "pair", "n_click": "pair", "n_tail": "pair",
                    "pre_skip": "pair", "pre_click": "pair"}
    sum_shapes = {"log_t": "scalar", "a_sub": "pair", "s_num": "pair", "g_num": "scalar",
                  "g_den": "scalar"}

    def start(self, rng: np.random.Generator, n_pairs: int, max_rank: int) -> Theta:
        return (rng.uniform(0.4, 0.6, n_pairs), rng.uniform(0.4, 0.6, n_pairs),
                float(rng.uniform(0.4, 0.6)))

    def fixed_sums(self, pg: Pages, n_pairs: int, max_rank: int) -> Sums:
        def by_pair(cells: BoolArray) -> FloatArray:
            return fixed_counts([pg], lambda _b: cells, n_pairs)

        # Above the last click the user examined, was not satisfied and went on: fixed
        # counts, so that part of the likelihood is a dot product per iteration.
        return {"n_pair": by_pair(pg.shown), "n_click": by_pair(pg.click),
                "n_tail": by_pair(pg.tail), "pre_skip": by_pair(pg.pre & ~pg.click),
                "pre_click": by_pair(pg.pre & pg.click)}

    def seed(self, fixed: Sums, theta: Theta) -> Sums:
        alpha, sigma, gamma = theta
        n_pre = _n_pre(fixed)
        ll = (fixed["n_click"] @ log0(alpha) + fixed["pre_skip"] @ log0(1 - alpha)
              + fixed["pre_click"] @ log0(1 - sigma) + n_pre * float(log0(np.array(gamma))))
        return {"log_t": ll, "a_sub": np.zeros(len(alpha)), "s_num": np.zeros(len(alpha)),
                "g_num": n_pre, "g_den": n_pre}

    def block_sums(self, pg: Pages, theta: Theta, n_pairs: int, max_rank: int) -> Sums:
        alpha, sigma, gamma = theta
        a = np.append(alpha, 0.0)[pg.pair]
        sl = np.append(sigma, 0.0)[pg.l_pair]
        post = e_step(pg, a, gamma, np.where(pg.has, gamma * (1 - sl), 1.0))
        # continuation: P(E_r = 1, S_r = 0, E_{r+1} = e | C) where observed
        o = pg.l_obs
        keep_on = float(((1 - sl) * gamma * post.on)[o].sum())
        keep_stop = float(((1 - sl) * (1 - gamma) * post.inv)[o].sum())
        return {"log_t": post.log_t,
                "a_sub": np.bincount(pg.pair.ravel(), (post.exam * a).ravel(),
                                     n_pairs + 1)[:n_pairs],
                # satisfaction: only at the last click, P(S = 1 | C) = sigma / T (the
                # clicks above it were not satisfying: the user clicked again)
                "s_num": np.bincount(pg.l_pair, sl * post.inv, n_pairs + 1)[:n_pairs],
                "g_num": post.go + keep_on, "g_den": post.exam_obs + keep_on + keep_stop}

    def m_step(self, fixed: Sums, theta: Theta, sums: Sums) -> Theta:
        alpha, sigma, gamma = theta
        n_pair, n_click = fixed["n_pair"], fixed["n_click"]
        # attractiveness: clicked -> 1; below the last click -> P(E = 0 | C) alpha
        alpha = np.where(n_pair > 0, (n_click + alpha * fixed["n_tail"] - sums["a_sub"])
                         / np.maximum(n_pair, 1), alpha)
        sigma = np.where(n_click > 0, sums["s_num"] / np.maximum(n_click, 1), sigma)
        g_den = sums["g_den"]
        gamma = sums["g_num"] / g_den if g_den > 0 else gamma
        return alpha, sigma, gamma

    def params_of(self, theta: Theta) -> dict[str, Any]:
        alpha, sigma, gamma = theta
        return {"alpha": alpha, "sigma": sigma, "gamma": np.array([gamma])}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        return dbn_probabilities(self.pp("alpha", pair), self.pp("sigma", pair),
                                 float(self.params["gamma"][0]), pair >= 0, click)
