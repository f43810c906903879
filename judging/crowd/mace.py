"""MACE: multi-annotator competence estimation (Hovy et al., NAACL 2013).

Hovy, D., Berg-Kirkpatrick, T., Vaswani, A. and Hovy, E. (2013). Learning whom
to trust with MACE. *Proceedings of NAACL-HLT 2013*, 1120-1130.

Each worker either knows (labels the truth) or spams, with probability
``spam[w, 0]``, picking from their own strategy ``theta[w]``:
``P(given g | true t) = spam[w, 0] * theta[w, g] + spam[w, 1] * [g == t]``.
Fitted by EM or variational Bayes (``method="vb"``, Beta(0.5, 0.5) and
Dirichlet(10) priors, as crowd-kit's ``MACE``, the reference) from several
random starts; the start with the highest marginal likelihood wins.

Two differences from crowd-kit 1.4, both on purpose: each restart draws a new
start (crowd-kit seeds every restart with the same ``random_state``, so its ten
restarts are one), and the strategy counts stay aligned with the workers and
labels they belong to (crowd-kit sorts them by name in the M-step while it
indexes them in first-seen order; the two agree only when first-seen order is
sorted order). Restart ``r`` uses ``numpy.random.RandomState(seed + r)`` drawn
as crowd-kit draws, so restart 0 is crowd-kit's start.
"""

from __future__ import annotations

from typing import Literal, get_args

import numpy as np

from relkit.judging.crowd.result import Aggregate, argmax_low
from relkit.judging.crowd.table import CrowdError, LabelTable

Fit = Literal["vb", "em"]
FITS: tuple[str, ...] = get_args(Fit)


def _start(nw: int, k: int, seed: int, noise: float) -> tuple[np.ndarray, np.ndarray]:
    # scipy.stats.uniform(1, 1 + noise).rvs(size, random_state=seed) as crowd-kit draws it:
    # a fresh RandomState per array, so both arrays start from the same stream
    def draw(shape: tuple[int, int]) -> np.ndarray:
        return np.random.RandomState(seed).uniform(0.0, 1.0, shape) * (1 + noise) + 1
    spam, theta = draw((nw, 2)), draw((nw, k))
    return spam / spam.sum(axis=1, keepdims=True), theta / theta.sum(axis=1, keepdims=True)


def _e_step(t: LabelTable, spam: np.ndarray, theta: np.ndarray
            ) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """Log marginal likelihood, posteriors, strategy (w, k) and knowing (w, 2) counts."""
    a = spam[t.worker, 0] * theta[t.worker, t.label]     # P(spam and says g)
    b = spam[t.worker, 1]                               # P(knows)
    la, lab = np.log(a), np.log(a + b)
    base = np.bincount(t.item, weights=la, minlength=t.n_items)
    bonus = np.bincount(t.item * t.k + t.label, weights=lab - la,
                        minlength=t.n_items * t.k).reshape(t.n_items, t.k)
    ll = base[:, None] + bonus - np.log(t.k)
    top = ll.max(axis=1, keepdims=True)
    p = np.exp(ll - top)
    total = p.sum(axis=1, keepdims=True)
    lml = float(np.sum(np.log(total) + top))
    post = p / total
    pl = post[t.item, t.label]
    spammed = (1.0 - pl) + pl * a / (a + b)     # P(this label was a spam draw)
    knew = pl * b / (a + b)
    strat = np.bincount(t.worker * t.k + t.label, weights=spammed,
                        minlength=t.n_workers * t.k).reshape(t.n_workers, t.k)
    know = np.stack([np.bincount(t.worker, weights=spammed, minlength=t.n_workers),
                     np.bincount(t.worker, weights=knew, minlength=t.n_workers)], axis=1)
    return lml, post, strat, know


def _normalise(x: np.ndarray, add: float | np.ndarray) -> np.ndarray:
    s = x + add
    n = s.sum(axis=1, keepdims=True)
    return np.divide(s, n, out=np.zeros_like(s), where=~np.isclose(n, 0.0))


def _variational(x: np.ndarray, prior: float | np.ndarray) -> np.ndarray:
    from scipy.special import digamma

    s = x + prior
    n = np.exp(digamma(s.sum(axis=1, keepdims=True)))
    return np.divide(np.exp(digamma(s)), n, out=np.zeros_like(s), where=~np.isclose(n, 0.0))


def mace(table: LabelTable, *, max_iter: int = 50, restarts: int = 10, seed: int = 0,
         method: Fit = "vb", alpha: float = 0.5, beta: float = 0.5,
         default_noise: float = 0.5, tol: float | None = None) -> Aggregate:
    """Aggregate with MACE.

    Parameters
    ----------
    table
        The labels.
    max_iter
        EM/VB iterations per restart.
    restarts, seed
        Random starts; restart ``r`` is seeded with ``seed + r``.
    method
        ``vb`` (variational Bayes) or ``em`` (EM with add-``0.01/k`` smoothing).
    alpha, beta
        The Beta prior on knowing vs spamming (``vb``).
    default_noise
        Width of the uniform start (``1 + noise``).
    tol
        Stop a restart when the log marginal likelihood gains less than this;
        ``None`` (default, as crowd-kit) runs ``max_iter`` iterations.

    Returns
    -------
    Aggregate
        ``skills`` is each worker's probability of knowing (not spamming).
    """
    if method not in FITS:
        raise CrowdError(f"unknown MACE method {method!r}; expected one of {', '.join(FITS)}")
    if max_iter < 1 or restarts < 1:
        raise CrowdError("max_iter and restarts must be >= 1")
    nw, k = table.n_workers, table.k
    best: tuple[float, np.ndarray, np.ndarray, int] | None = None
    for r in range(restarts):
        spam, theta = _start(nw, k, seed + r, default_noise)
        lml, _, strat, know = _e_step(table, spam, theta)
        it = 0
        for it in range(1, max_iter + 1):  # noqa: B007 - the count is kept
            if method == "vb":
                spam = _variational(know, np.array([alpha, beta]))
                theta = _variational(strat, 10.0)
            else:
                spam, theta = _normalise(know, 0.01 / k), _normalise(strat, 0.01 / k)
            last = lml
            lml, _, strat, know = _e_step(table, spam, theta)
            if tol is not None and lml - last < tol:
                break
        if best is None or lml > best[0]:
            best = (lml, spam.copy(), theta.copy(), it)
    assert best is not None
    _, spam, theta, it = best
    _, post, _, _ = _e_step(table, spam, theta)
    return Aggregate("mace", table, post, argmax_low(post), skills=spam[:, 1], iterations=it)
