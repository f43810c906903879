"""The dynamic Bayesian network click model (DBN), fitted by EM with forward-backward.

Chuklin, Markov & de Rijke (2015), section 3.8 (model) and section 4.2 (EM). The
forward-backward recursions run over ranks (a loop of ``max_rank`` steps), each step a
vector operation over all sessions at once.
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

    EM: the E-step computes, by forward-backward over the examination chain ``E``, the
    posteriors ``P(A_r = 1 | C)``, ``P(S_r = 1 | C)`` (clicked ranks) and the expected
    continuations ``P(E_r = 1, S_r = 0, E_{r+1} = e | C)``; the M-step sets each
    parameter to its expected successes over expected trials. Exact EM: the
    log-likelihood (:attr:`trace`) never decreases.
    """

    name = "dbn"
    per_pair = ("alpha", "sigma")

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        n_p = data.n_pairs
        alpha = rng.uniform(0.4, 0.6, n_p)
        sigma = rng.uniform(0.4, 0.6, n_p)
        gamma = float(rng.uniform(0.4, 0.6))
        # Identical sessions (same page, same clicks) have the same posteriors: EM runs
        # over the distinct ones, weighted by their counts.
        rows = np.where(data.shown, data.pair * 2 + (data.click & data.shown), -1)
        uniq, weight = np.unique(rows, axis=0, return_counts=True)
        w = weight.astype(np.float64)
        # Rank-major (ranks x sessions) so each rank's step reads contiguous memory.
        pt = np.ascontiguousarray((uniq // 2).T)
        ct = np.ascontiguousarray(((uniq >= 0) & (uniq % 2 == 1)).T)
        st = np.ascontiguousarray((uniq >= 0).T)
        r_max, n = pt.shape
        # A transition r -> r+1 is observed only when a result is shown further down.
        later = np.zeros_like(st)
        later[:-1] = np.flip(np.logical_or.accumulate(np.flip(st[1:], 0), 0), 0)
        pz = np.where(st, pt, 0)
        wt = np.broadcast_to(w[None, :], pt.shape)
        n_pair = np.bincount(pt[st], wt[st], minlength=n_p)
        n_click = np.bincount(pt[ct], wt[ct], minlength=n_p)
        # Fixed across iterations: the masks, P(C_r | E_r = 0), the cells' pair codes.
        em0 = np.where(ct, 0.0, 1.0)
        trans = st & later
        last = st & ~later
        unclicked = st & ~ct
        p_unclicked, p_clicked = pt[unclicked], pt[ct]
        click_mass = np.bincount(p_clicked, wt[ct], n_p)   # P(A = 1 | C = 1) = 1
        self.trace = []
        for _ in range(iterations):
            a, s = alpha[pz], sigma[pz]
            em1 = np.where(ct, a, np.where(st, 1 - a, 1.0))
            keep = np.where(ct, 1 - s, 1.0)               # P(S_r = 0 | E_r, C_r)
            # transition factor: gamma * keep when a later result is shown; keep at the
            # last shown rank (no transition to score); 1 where nothing is shown
            t = np.where(trans, gamma * keep, np.where(last, keep, 1.0))
            f1 = np.empty((r_max + 1, n))
            f0 = np.empty((r_max + 1, n))
            f1[0], f0[0] = 1.0, 0.0
            for r in range(r_max):
                f1[r + 1] = f1[r] * em1[r] * t[r]
                f0[r + 1] = f0[r] * em0[r] + f1[r] * em1[r] * (1 - t[r])
            b1 = np.empty((r_max + 1, n))
            b0 = np.empty((r_max + 1, n))
            b1[r_max], b0[r_max] = 1.0, 1.0
            for r in range(r_max - 1, -1, -1):
                b0[r] = em0[r] * b0[r + 1]
                b1[r] = em1[r] * (t[r] * b1[r + 1] + (1 - t[r]) * b0[r + 1])
            like = b1[0]
            self.trace.append(float(np.log(like) @ w))
            inv = w / like
            # attractiveness: clicked -> 1; not clicked -> P(E_r = 0 | C) * alpha
            post_a = f0[:-1] * b0[:-1] * inv * a
            # satisfaction at a click: the chain stops (E_{r+1} = 0) because S_r = 1
            post_s = f1[:-1] * a * s * b0[1:] * inv
            # continuation: P(E_r=1, S_r=0, E_{r+1}=e | C)
            base = f1[:-1] * em1 * keep * inv
            go = base * gamma * b1[1:]
            stop = base * (1 - gamma) * b0[1:]
            alpha = np.where(n_pair > 0, (click_mass + np.bincount(
                p_unclicked, post_a[unclicked], n_p)) / np.maximum(n_pair, 1), alpha)
            sigma = np.where(n_click > 0, np.bincount(p_clicked, post_s[ct], n_p)
                             / np.maximum(n_click, 1), sigma)
            den = float((go + stop)[trans].sum())  # go, stop carry the weights
            gamma = float(go[trans].sum() / den) if den > 0 else gamma
        self.params = {"alpha": alpha, "sigma": sigma, "gamma": np.array([gamma])}
        if iterations:
            cond, _ = self.probabilities(data.pair, data.click)
            from relkit.metrics.online.clickmodels.base import session_log_likelihood

            self.trace.append(session_log_likelihood(cond, data.click, data.shown))

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        return dbn_probabilities(self.pp("alpha", pair), self.pp("sigma", pair),
                                 float(self.params["gamma"][0]), pair >= 0, click)
