"""The position-based model (PBM) and the user browsing model (UBM), fitted by EM.

Chuklin, Markov & de Rijke (2015), sections 3.3 and 3.5 (models), 4.2 (EM). Both have
the form ``P(C = 1) = alpha_uq * gamma_k`` with ``k`` an examination index (the rank for
PBM; the rank and the rank of the previous click for UBM), so one vectorised EM serves
both: every (session, rank) observation is a row of flat arrays, and the M-step is two
``np.bincount`` calls.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import numpy.typing as npt

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray


def _em(pair: IntArray, exam: IntArray, click: BoolArray, n_pairs: int, n_exam: int,
        iterations: int, rng: np.random.Generator
        ) -> tuple[FloatArray, FloatArray, list[float]]:
    """EM for ``P(C = 1) = alpha[pair] * gamma[exam]`` over flat observations.

    E-step, for a click: ``A = E = 1``; for no click::

        P(A = 1 | C = 0) = alpha (1 - gamma) / (1 - alpha gamma)
        P(E = 1 | C = 0) = gamma (1 - alpha) / (1 - alpha gamma)

    M-step: each parameter is the mean of its posteriors. Returns alpha, gamma and the
    log-likelihood before each iteration and after the last.

    The product ``alpha * gamma`` is all the likelihood sees: ``(k gamma, alpha / k)``
    fits as well, so gamma is rescaled to a maximum of 1 at the end (the most examined
    position is always examined), which changes no probability.
    """
    alpha = rng.uniform(0.4, 0.6, n_pairs)
    gamma = rng.uniform(0.4, 0.6, n_exam)
    # The posteriors depend on (pair, exam, click) only: EM runs over the distinct cells,
    # weighted by how often each occurs. Counting them is a bincount when the cells fit
    # in memory, else a sort.
    key = (pair * n_exam + exam) * 2 + click
    n_cells = 2 * n_pairs * n_exam
    if n_cells <= 50_000_000:
        counts = np.bincount(key, minlength=n_cells)
        cells = np.flatnonzero(counts)
        weight = counts[cells]
    else:
        cells, weight = np.unique(key, return_counts=True)
    w = weight.astype(np.float64)
    clicked = (cells % 2).astype(bool)
    pair, exam = cells // (2 * n_exam), (cells // 2) % n_exam
    n_a = np.bincount(pair, w, minlength=n_pairs)
    n_g = np.bincount(exam, w, minlength=n_exam)
    # A click's posteriors are 1 (A = E = 1): their sums are constant across iterations,
    # and so is their share of the log-likelihood's form, sum C_p ln a_p + sum C_k ln g_k.
    c_a = np.bincount(pair[clicked], w[clicked], minlength=n_pairs)
    c_g = np.bincount(exam[clicked], w[clicked], minlength=n_exam)
    pair, exam, w = pair[~clicked], exam[~clicked], w[~clicked]
    trace = []
    for _ in range(iterations + 1):
        a, g = alpha[pair], gamma[exam]
        one_minus = np.maximum(1 - a * g, 1e-300)
        trace.append(float(c_a @ np.log(np.maximum(alpha, 1e-300))
                           + c_g @ np.log(np.maximum(gamma, 1e-300))
                           + np.log(one_minus) @ w))
        if len(trace) > iterations:
            break
        inv = w / one_minus
        post_a = c_a + np.bincount(pair, a * (1 - g) * inv, n_pairs)
        post_g = c_g + np.bincount(exam, g * (1 - a) * inv, n_exam)
        alpha, gamma = m_step(alpha, gamma, n_a, n_g, post_a, post_g)
    alpha, gamma = normalise(alpha, gamma)
    return alpha, gamma, trace


def m_step(alpha: FloatArray, gamma: FloatArray, n_a: npt.NDArray[Any], n_g: npt.NDArray[Any],
           post_a: npt.NDArray[Any], post_g: npt.NDArray[Any]
           ) -> tuple[FloatArray, FloatArray]:
    """EM's M-step: each parameter the mean of its posteriors (kept where unseen).

    Shared with the Spark engine (:mod:`relkit.metrics.spark.clicks`), which computes
    the posterior sums ``post_a``/``post_g`` by Spark aggregations.
    """
    return (np.where(n_a > 0, post_a / np.maximum(n_a, 1), alpha),
            np.where(n_g > 0, post_g / np.maximum(n_g, 1), gamma))


def normalise(alpha: FloatArray, gamma: FloatArray) -> tuple[FloatArray, FloatArray]:
    """Rescale so that ``max gamma = 1`` (the likelihood only sees ``alpha * gamma``)."""
    top = float(gamma.max()) if len(gamma) else 1.0
    if top > 0:
        gamma, alpha = gamma / top, alpha * top
    return alpha, gamma


class PBM(ClickModel):
    r"""Position-based model (PBM, section 3.3), EM estimates (section 4.2).

    .. math::
        C_r = 1 \Leftrightarrow E_r = 1 \wedge A_r = 1, \quad
        P(A_r = 1) = \alpha_{uq}, \quad P(E_r = 1) = \gamma_r

    Normalised so that ``max_r gamma_r = 1`` (the likelihood only sees the products).
    """

    name = "pbm"
    per_pair = ("alpha",)

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        shown = data.shown
        ranks = np.broadcast_to(np.arange(data.max_rank), data.pair.shape)
        alpha, gamma, self.trace = _em(data.pair[shown], ranks[shown], data.click[shown],
                                       data.n_pairs, data.max_rank, iterations, rng)
        self.params = {"alpha": alpha, "gamma": gamma}

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        p = self.pp("alpha", pair) * self.params["gamma"][None, : pair.shape[1]]
        return p, p


def previous_click(click: BoolArray) -> IntArray:
    """For each (session, rank): the 1-based rank of the last click above, 0 if none."""
    n, r = click.shape
    marks = np.where(click, np.arange(1, r + 1), 0)
    prev = np.zeros((n, r), dtype=np.int64)
    if r > 1:
        prev[:, 1:] = np.maximum.accumulate(marks, axis=1)[:, :-1]
    return prev


class UBM(ClickModel):
    r"""User browsing model (UBM, section 3.5), EM estimates (section 4.2).

    .. math::
        C_r = 1 \Leftrightarrow E_r = 1 \wedge A_r = 1, \quad
        P(A_r = 1) = \alpha_{uq}, \quad P(E_r = 1 \mid C_{<r}) = \gamma_{r r'}

    where ``r'`` is the rank of the last click above ``r`` (0 when there is none).
    ``params["gamma"]`` is ``(max_rank, max_rank + 1)``: row ``r - 1``, column ``r'``;
    entries for impossible ``r' >= r`` stay at their initial values. Normalised so that
    ``max gamma = 1``.
    """

    name = "ubm"
    per_pair = ("alpha",)

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        shown, r_max = data.shown, data.max_rank
        prev = previous_click(data.click & shown)
        idx = np.arange(r_max)[None, :] * (r_max + 1) + prev
        alpha, gamma, self.trace = _em(data.pair[shown], idx[shown], data.click[shown],
                                       data.n_pairs, r_max * (r_max + 1), iterations, rng)
        self.params = {"alpha": alpha, "gamma": gamma}

    def gamma_matrix(self) -> FloatArray:
        return self.params["gamma"].reshape(self.max_rank, self.max_rank + 1)

    def probabilities(self, pair: IntArray, click: BoolArray) -> tuple[FloatArray, FloatArray]:
        g = self.gamma_matrix()
        n, r_max = pair.shape
        a = self.pp("alpha", pair)
        shown = pair >= 0
        prev = previous_click(click & shown)
        cond = a * g[np.arange(r_max)[None, :], prev]
        # marginal: q[:, k] = P(last click above the current rank is at k), k = 0..r_max
        marg = np.zeros((n, r_max))
        q = np.zeros((n, r_max + 1))
        q[:, 0] = 1.0
        for r in range(r_max):
            pc = a[:, r : r + 1] * g[r][None, :]          # P(click | last click at k)
            marg[:, r] = (q * pc).sum(axis=1)
            new_q = q * (1 - pc)
            new_q[:, r + 1] = marg[:, r]
            q = np.where(shown[:, r : r + 1], new_q, q)
        return cond, marg
