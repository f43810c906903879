"""The dynamic Bayesian network click model (DBN), fitted by exact EM.

Chuklin, Markov & de Rijke (2015), section 3.8 (model) and section 4.2 (EM). The E-step
is the chain models' (:mod:`.chain`): closed form above each session's last click, one
backward and one forward pass over ranks below it, vectorised over sessions.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray


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


class DBN(ClickModel):
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

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        from relkit.metrics.online.clickmodels.chain import (
            distinct_pages,
            e_step,
            fixed_counts,
            log0,
        )

        n_p = data.n_pairs
        alpha = rng.uniform(0.4, 0.6, n_p)
        sigma = rng.uniform(0.4, 0.6, n_p)
        gamma = float(rng.uniform(0.4, 0.6))
        blocks = distinct_pages(data)
        n_pair = fixed_counts(blocks, lambda b: b.shown, n_p)
        n_click = fixed_counts(blocks, lambda b: b.click, n_p)
        n_tail = fixed_counts(blocks, lambda b: b.tail, n_p)
        # Above the last click the user examined, was not satisfied and went on: fixed
        # counts, so that part of the likelihood is a dot product per iteration.
        pre_skip = fixed_counts(blocks, lambda b: b.pre & ~b.click, n_p)
        pre_click = fixed_counts(blocks, lambda b: b.pre & b.click, n_p)
        n_pre = float(pre_skip.sum() + pre_click.sum())
        self.trace = []
        for _ in range(iterations + 1):
            a_ext, s_ext = np.append(alpha, 0.0), np.append(sigma, 0.0)
            ll = (n_click @ log0(alpha) + pre_skip @ log0(1 - alpha)
                  + pre_click @ log0(1 - sigma) + n_pre * float(log0(np.array(gamma))))
            a_sub = np.zeros(n_p + 1)
            s_num = np.zeros(n_p + 1)
            g_num = g_den = n_pre
            for pg in blocks:
                a = a_ext[pg.pair]
                sl = s_ext[pg.l_pair]
                post = e_step(pg, a, gamma, np.where(pg.has, gamma * (1 - sl), 1.0))
                ll += post.log_t
                a_sub += np.bincount(pg.pair.ravel(), (post.exam * a).ravel(), n_p + 1)
                # satisfaction: only at the last click, P(S = 1 | C) = sigma / T (the
                # clicks above it were not satisfying: the user clicked again)
                s_num += np.bincount(pg.l_pair, sl * post.inv, n_p + 1)
                # continuation: P(E_r = 1, S_r = 0, E_{r+1} = e | C) where observed
                o = pg.l_obs
                keep_on = float(((1 - sl) * gamma * post.on)[o].sum())
                keep_stop = float(((1 - sl) * (1 - gamma) * post.inv)[o].sum())
                g_num += post.go + keep_on
                g_den += post.exam_obs + keep_on + keep_stop
            self.trace.append(float(ll))
            if len(self.trace) > iterations:
                break
            # attractiveness: clicked -> 1; below the last click -> P(E = 0 | C) alpha
            alpha = np.where(n_pair > 0, (n_click + alpha * n_tail - a_sub[:n_p])
                             / np.maximum(n_pair, 1), alpha)
            sigma = np.where(n_click > 0, s_num[:n_p] / np.maximum(n_click, 1), sigma)
            gamma = g_num / g_den if g_den > 0 else gamma
        self.params = {"alpha": alpha, "sigma": sigma, "gamma": np.array([gamma])}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        return dbn_probabilities(self.pp("alpha", pair), self.pp("sigma", pair),
                                 float(self.params["gamma"][0]), pair >= 0, click)
