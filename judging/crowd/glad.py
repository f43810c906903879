"""GLAD: worker expertise and item difficulty by EM (Whitehill et al., NIPS 2009).

Whitehill, J., Ruvolo, P., Wu, T., Bergsma, J. and Movellan, J. (2009). Whose
vote should count more: optimal integration of labels from labelers of unknown
expertise. *Advances in Neural Information Processing Systems* 22.

A worker ``w`` with expertise ``alpha_w`` gives item ``i`` (difficulty
``1/exp(beta_i)``) its true label with probability
``sigma(alpha_w * exp(beta_i))``, else each other label with an equal share. The
class priors are uniform; alpha and beta have standard normal priors around 1.
The E-step is exact; the M-step maximises the expected log posterior with
scipy's conjugate gradients (``tol`` and ``maxiter`` as crowd-kit's ``GLAD``,
the reference, and the same stopping rule on the objective per label and class).
"""

from __future__ import annotations

import numpy as np

from relkit.judging.crowd.result import Aggregate, argmax_low
from relkit.judging.crowd.table import CrowdError, LabelTable

_LOG_SQRT_2PI = 0.5 * np.log(2 * np.pi)


class _Model:
    """The E-step, objective and gradient over the label rows, all vectorised."""

    def __init__(self, table: LabelTable) -> None:
        self.t = table
        # log of the share each wrong label gets; 0 for a one-class table
        self.log_other = np.log(table.k - 1) if table.k > 1 else 0.0

    def _terms(self, alpha: np.ndarray, beta: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        eb = np.exp(beta)[self.t.item]
        s = alpha[self.t.worker] * eb
        # log sigma(s) and log(1 - sigma(s)), stable for large |s|
        return -np.logaddexp(0.0, -s), -np.logaddexp(0.0, s) - self.log_other, eb

    def e_step(self, alpha: np.ndarray, beta: np.ndarray) -> np.ndarray:
        t = self.t
        right, wrong, _ = self._terms(alpha, beta)
        base = np.bincount(t.item, weights=wrong, minlength=t.n_items)
        bonus = np.bincount(t.item * t.k + t.label, weights=right - wrong,
                            minlength=t.n_items * t.k).reshape(t.n_items, t.k)
        ll = base[:, None] + bonus   # uniform priors: a constant, dropped
        ll -= ll.max(axis=1, keepdims=True)
        p = np.exp(ll)
        return p / p.sum(axis=1, keepdims=True)

    def q(self, post_l: np.ndarray, alpha: np.ndarray, beta: np.ndarray) -> float:
        """The expected log posterior; ``post_l`` is each row's P(true = its label)."""
        right, wrong, _ = self._terms(alpha, beta)
        q = float(np.sum(post_l * right + (1.0 - post_l) * wrong))
        q += float(np.sum(-0.5 * (alpha - 1.0) ** 2 - _LOG_SQRT_2PI))
        q += float(np.sum(-0.5 * (beta - 1.0) ** 2 - _LOG_SQRT_2PI))
        return q

    def grad(self, post_l: np.ndarray, alpha: np.ndarray, beta: np.ndarray
             ) -> tuple[np.ndarray, np.ndarray]:
        t = self.t
        eb = np.exp(beta)[t.item]
        a = alpha[t.worker]
        r = post_l - 1.0 / (1.0 + np.exp(-a * eb))    # delta - sigma, summed over classes
        d_alpha = np.bincount(t.worker, weights=r * eb, minlength=t.n_workers) - (alpha - 1.0)
        d_beta = np.bincount(t.item, weights=r * a * eb, minlength=t.n_items) - (beta - 1.0)
        return d_alpha, d_beta


def glad(table: LabelTable, *, max_iter: int = 100, tol: float = 1e-5,
         m_step_max_iter: int = 25, m_step_tol: float = 1e-2) -> Aggregate:
    """Aggregate with GLAD.

    Parameters
    ----------
    table
        The labels.
    max_iter, tol
        Most EM iterations; stop when the objective per (label, class) gains less
        than ``tol``.
    m_step_max_iter, m_step_tol
        The M-step's conjugate-gradient iterations and gradient tolerance.

    Returns
    -------
    Aggregate
        ``skills`` is each worker's alpha (0: random; negative: adversarial).
    """
    from scipy.optimize import minimize  # deferred: scipy.optimize costs ~0.2 s to import

    if max_iter < 1:
        raise CrowdError(f"max_iter must be >= 1; got {max_iter}")
    model = _Model(table)
    nw = table.n_workers
    alpha, beta = np.ones(nw), np.ones(table.n_items)
    post = model.e_step(alpha, beta)
    q = model.q(post[table.item, table.label], alpha, beta)
    scale = len(table) * table.k     # crowd-kit's objective is per melted (label, class) row
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        last = q
        post = model.e_step(alpha, beta)
        post_l = post[table.item, table.label]

        def f(x: np.ndarray, post_l: np.ndarray = post_l) -> float:
            return -model.q(post_l, x[:nw], x[nw:])

        def df(x: np.ndarray, post_l: np.ndarray = post_l) -> np.ndarray:
            da, db = model.grad(post_l, x[:nw], x[nw:])
            return -np.concatenate([da, db])

        res = minimize(f, np.concatenate([alpha, beta]), method="CG", jac=df,
                       tol=m_step_tol, options={"maxiter": m_step_max_iter})
        alpha, beta = res.x[:nw].copy(), res.x[nw:].copy()
        q = model.q(post_l, alpha, beta) / scale
        if q - last < tol:
            break
    # crowd-kit's probas_ are the last E-step's (before the last M-step)
    return Aggregate("glad", table, post, argmax_low(post), skills=alpha, iterations=it)
