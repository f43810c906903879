r"""Bradley–Terry with ties (Davidson 1970), fitted per topic by maximum likelihood.

Model. Each document :math:`i` has a strength :math:`\pi_i = e^{\theta_i}`; with the tie
parameter :math:`\nu = e^{\phi} \ge 0`, a comparison of :math:`i` and :math:`j` ends

.. math::

    P(i \succ j) = \frac{\pi_i}{D_{ij}}, \quad
    P(i \sim j) = \frac{\nu\sqrt{\pi_i \pi_j}}{D_{ij}}, \quad
    D_{ij} = \pi_i + \pi_j + \nu\sqrt{\pi_i\pi_j}

(Davidson, "On extending the Bradley–Terry model to accommodate ties in paired
comparison experiments", JASA 65(329), 1970). ``left``/``right`` answers are wins,
``equal`` and ``neither`` answers are ties (``neither``: both not relevant, so neither is
better). Without any tie :math:`\nu` is 0 and the model is Bradley–Terry's (1952).

Fit. Newton's method on the log-likelihood
:math:`\ell = \sum_{i<j} w_{ij}\theta_i + w_{ji}\theta_j + t_{ij}(\phi + (\theta_i +
\theta_j)/2) - n_{ij}\log D_{ij}` with the last document's :math:`\theta` held at 0,
step halving until :math:`\ell` does not fall, stopped when no parameter moves by more
than ``tol``; then :math:`\theta` is centred to mean 0.

Standard errors. The inverse observed information :math:`-H^{-1}` at the optimum is the
covariance of the free parameters; mapped through the centring
:math:`C = I - \tfrac{1}{n}\mathbf{1}\mathbf{1}^\top`, the standard error of document
:math:`i` is :math:`\sqrt{(C\Sigma C^\top)_{ii}}`.

When the maximum likelihood estimate does not exist. It exists exactly when the
comparison graph with an edge :math:`i \to j` for each answer "i better than or equal to j"
is strongly connected (Ford 1957; a tie links both ways) and, for :math:`\nu`, when there
is at least one tie and one decisive answer. Otherwise (a document that never loses or
never wins, a disconnected graph, only ties) some parameters run to infinity; then the fit
adds a Gaussian prior :math:`-\tfrac{\lambda}{2}\sum_i\theta_i^2` (and
:math:`-\tfrac{\lambda}{2}\phi^2` when :math:`\nu` is free), :math:`\lambda` =
``ridge`` (0.1 unless given), i.e. a maximum a posteriori estimate, its standard errors
from the penalised information, and marks the result ``mle=False``. Scores from different
components of a disconnected graph are then comparable only through that prior.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.prefs.answers import Answer

__all__ = ["BTFit", "fit_bt", "fit_topics", "pair_counts", "strongly_connected"]

DEFAULT_RIDGE = 0.1
_J_TIE = np.array([[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.5, 0.5, 1.0]])


@dataclass(frozen=True, kw_only=True)
class BTFit:
    """A fitted topic: ``docs`` in input order with ``theta`` (log-strength, mean 0) and
    its standard error ``se``; ``nu`` the tie parameter (0 without ties); ``mle`` False
    when the prior was needed; ``iterations`` Newton steps; ``loglik`` at the optimum."""

    docs: list[str]
    theta: np.ndarray
    se: np.ndarray
    nu: float
    mle: bool
    iterations: int
    loglik: float

    def ranking(self) -> list[str]:
        """Documents by decreasing theta (ties by id, ascending)."""
        order = sorted(range(len(self.docs)), key=lambda i: (-self.theta[i], self.docs[i]))
        return [self.docs[i] for i in order]

    def scores(self) -> dict[str, float]:
        """``{doc: theta}``."""
        return dict(zip(self.docs, self.theta.tolist(), strict=True))


def pair_counts(answers: Iterable[Answer], docs: Sequence[str]) -> tuple[np.ndarray, ...]:
    """Per unordered pair (i < j in ``docs`` order): ``i, j, w_ij, w_ji, ties``."""
    index = {d: k for k, d in enumerate(docs)}
    table: dict[tuple[int, int], list[float]] = {}
    for a in answers:
        i, j = index[a.left], index[a.right]
        if i > j:
            i, j = j, i
            oriented = {"left": "right", "right": "left"}.get(a.answer, a.answer)
        else:
            oriented = a.answer
        cell = table.setdefault((i, j), [0.0, 0.0, 0.0])
        cell[0 if oriented == "left" else 1 if oriented == "right" else 2] += 1
    keys = sorted(table)
    ii = np.array([k[0] for k in keys], dtype=np.int64)
    jj = np.array([k[1] for k in keys], dtype=np.int64)
    c = np.array([table[k] for k in keys], dtype=np.float64).reshape(len(keys), 3)
    return ii, jj, c[:, 0], c[:, 1], c[:, 2]


def strongly_connected(n: int, ii: np.ndarray, jj: np.ndarray, wij: np.ndarray,
                       wji: np.ndarray, ties: np.ndarray) -> bool:
    """Is the "better or equal" graph strongly connected (Ford's condition)?"""
    if n <= 1:
        return True
    out: list[list[int]] = [[] for _ in range(n)]
    back: list[list[int]] = [[] for _ in range(n)]
    for i, j, a, b, t in zip(ii.tolist(), jj.tolist(), wij.tolist(), wji.tolist(),
                             ties.tolist(), strict=True):
        if a or t:          # i >= j: an edge i -> j
            out[i].append(j)
            back[j].append(i)
        if b or t:
            out[j].append(i)
            back[i].append(j)

    def reach(adj: list[list[int]]) -> int:
        seen, stack = {0}, [0]
        while stack:
            for v in adj[stack.pop()]:
                if v not in seen:
                    seen.add(v)
                    stack.append(v)
        return len(seen)

    return reach(out) == n and reach(back) == n


def _loglik(theta: np.ndarray, phi: float, ii: np.ndarray, jj: np.ndarray,
            c: np.ndarray, tie_model: bool) -> tuple[float, np.ndarray, np.ndarray]:
    """Log-likelihood, its gradient and Hessian in (theta..., phi) (phi last if used)."""
    n = len(theta)
    a, b = theta[ii], theta[jj]
    if tie_model:
        u = np.stack([a, b, phi + 0.5 * (a + b)], axis=1)
        jac = _J_TIE
    else:
        u = np.stack([a, b], axis=1)
        jac = np.eye(2)
    m = u.max(axis=1, keepdims=True)
    e = np.exp(u - m)
    s = e.sum(axis=1, keepdims=True)
    p = e / s
    tot = c.sum(axis=1)
    ll = float(np.sum(c * u) - np.sum(tot * (np.log(s[:, 0]) + m[:, 0])))
    g_u = c - tot[:, None] * p                          # d ll / d u, per pair
    g_local = g_u @ jac                                 # per pair: (d a, d b[, d phi])
    size = n + (1 if tie_model else 0)
    grad = np.zeros(size)
    np.add.at(grad, ii, g_local[:, 0])
    np.add.at(grad, jj, g_local[:, 1])
    # Hessian of -tot * logsumexp(u): -tot * J^T (diag p - p p^T) J, per pair
    cov = p[:, :, None] * np.eye(p.shape[1])[None] - p[:, :, None] * p[:, None, :]
    h_local = -tot[:, None, None] * np.einsum("ki,pkl,lj->pij", jac, cov, jac)
    hess = np.zeros((size, size))
    idx = [ii, jj] + ([np.full(len(ii), n)] if tie_model else [])
    for r, rows in enumerate(idx):
        for q, cols in enumerate(idx):
            np.add.at(hess, (rows, cols), h_local[:, r, q])
    if tie_model:
        grad[n] = g_local[:, 2].sum()
    return ll, grad, hess


def fit_bt(answers: Sequence[Answer], docs: Sequence[str] | None = None, *,
           tol: float = 1e-10, max_iter: int = 200, ridge: float | None = None) -> BTFit:
    """Fit Davidson's model to one topic's answers (see the module docstring).

    Parameters
    ----------
    answers
        The topic's answers (any assessors; each answer is one comparison).
    docs
        The documents to score (default: those in the answers, first-seen order); a
        document without answers gets theta 0 from the prior (``mle=False``).
    tol
        Stop when no parameter moves by more than this in a Newton step.
    ridge
        Force the prior with this :math:`\\lambda` (default: only when the MLE does not
        exist, with :data:`DEFAULT_RIDGE`).
    """
    if docs is None:
        docs = list(dict.fromkeys(d for a in answers for d in (a.left, a.right)))
    docs = list(docs)
    n = len(docs)
    if n == 0:
        raise RelkitError("no documents to score")
    ii, jj, wij, wji, ties = pair_counts(answers, docs)
    c = np.stack([wij, wji, ties], axis=1)
    has_ties, decisive = bool(ties.sum() > 0), bool((wij + wji).sum() > 0)
    tie_model = has_ties
    exists = strongly_connected(n, ii, jj, wij, wji, ties) and (decisive or not has_ties)
    lam = ridge if ridge is not None else (0.0 if exists else DEFAULT_RIDGE)
    if not tie_model:
        c = c[:, :2]
    size = n + (1 if tie_model else 0)
    # Free parameters: all of theta with the prior; otherwise theta[-1] is held at 0.
    free = np.ones(size, dtype=bool)
    if lam == 0.0:
        free[n - 1] = False
    x = np.zeros(size)

    def objective(v: np.ndarray) -> tuple[float, np.ndarray, np.ndarray]:
        ll, g, h = _loglik(v[:n], float(v[n]) if tie_model else 0.0, ii, jj, c, tie_model)
        if lam:
            ll -= 0.5 * lam * float(v @ v)
            g = g - lam * v
            h = h - lam * np.eye(size)
        return ll, g, h

    ll, g, h = objective(x)
    iterations = 0
    for iterations in range(1, max_iter + 1):  # noqa: B007 (reported)
        hf = h[np.ix_(free, free)]
        try:
            step_free = np.linalg.solve(hf, -g[free])
        except np.linalg.LinAlgError:
            step_free = np.linalg.lstsq(hf, -g[free], rcond=None)[0]
        step = np.zeros(size)
        step[free] = step_free
        t = 1.0
        while True:
            cand = x + t * step
            ll_new, g_new, h_new = objective(cand)
            if ll_new >= ll - 1e-12 or t < 1e-8:
                break
            t *= 0.5
        moved = float(np.max(np.abs(cand - x))) if size else 0.0
        x, ll, g, h = cand, ll_new, g_new, h_new
        if moved <= tol:
            break
    else:
        raise RelkitError(f"Bradley–Terry did not converge in {max_iter} Newton steps")
    hf = h[np.ix_(free, free)]
    cov = np.zeros((size, size))
    try:
        cov[np.ix_(free, free)] = np.linalg.inv(-hf)
    except np.linalg.LinAlgError:
        cov[np.ix_(free, free)] = np.linalg.pinv(-hf)
    centre = np.eye(n) - 1.0 / n
    theta = centre @ x[:n]
    cov_theta = centre @ cov[:n, :n] @ centre.T
    se = np.sqrt(np.clip(np.diag(cov_theta), 0.0, None))
    nu = float(np.exp(x[n])) if tie_model else 0.0
    return BTFit(docs=docs, theta=theta, se=se, nu=nu, mle=lam == 0.0,
                 iterations=iterations, loglik=ll)


def fit_topics(answers: Iterable[Answer], *, tol: float = 1e-10,
               ridge: float | None = None) -> dict[str, BTFit]:
    """:func:`fit_bt` per topic, topics in first-seen order."""
    from relkit.metrics.prefs.answers import by_topic

    return {t: fit_bt(a, tol=tol, ridge=ridge) for t, a in by_topic(answers).items()}
