"""Credit from clicks: which run each impression prefers, and the comparison's statistics.

Rows are the shown results of a log joined to the interleaved lists, grouped by
impression (``imp``: codes ``0..n-1``, rows of one impression contiguous, by position).
Each function returns, per impression and per pair of runs ``(i, j)``, the probability
(0 or 1 except for probabilistic interleaving) that it is a win for ``i``, a win for
``j``, or a tie. An impression without clicks carries no preference and is dropped
(Chapelle et al. 2012); a multileaved impression with clicks that credit neither
``i`` nor ``j`` is a tie for that pair.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np


@dataclass
class Outcomes:
    """``win[p]``, ``loss[p]``, ``tie[p]``: per kept impression, for pair ``pairs[p]``;
    ``imp``: the impression code of each kept impression."""

    pairs: list[tuple[int, int]]
    imp: np.ndarray
    win: list[np.ndarray]
    loss: list[np.ndarray]
    tie: list[np.ndarray]


def _clicked_impressions(imp: np.ndarray, clicked: np.ndarray, n_imp: int) -> np.ndarray:
    return np.flatnonzero(np.bincount(imp[clicked], minlength=n_imp) > 0)


def _from_counts(counts: np.ndarray, keep: np.ndarray, n_runs: int) -> Outcomes:
    pairs = list(combinations(range(n_runs), 2))
    c = counts[keep]
    win = [(c[:, i] > c[:, j]).astype(np.float64) for i, j in pairs]
    loss = [(c[:, i] < c[:, j]).astype(np.float64) for i, j in pairs]
    tie = [(c[:, i] == c[:, j]).astype(np.float64) for i, j in pairs]
    return Outcomes(pairs, keep, win, loss, tie)


def team_outcomes(imp: np.ndarray, team: np.ndarray, clicked: np.ndarray, n_imp: int,
                  n_runs: int) -> Outcomes:
    """Team draft (and team-draft multileave): each run is credited with the clicks on
    the documents its team contributed; more clicks wins (Radlinski et al. 2008)."""
    counts = np.zeros((n_imp, n_runs), dtype=np.int64)
    ok = clicked & (team >= 0)
    np.add.at(counts, (imp[ok], team[ok]), 1)
    return _from_counts(counts, _clicked_impressions(imp, clicked, n_imp), n_runs)


def balanced_outcome(imp: np.ndarray, position: np.ndarray, clicked: np.ndarray,
                     rank_a: np.ndarray, rank_b: np.ndarray, n_imp: int) -> Outcomes:
    """Balanced interleaving (Joachims 2003).

    With ``l`` the lowest clicked result and ``k = min(rank_A(l), rank_B(l))``
    (1-based; a document missing from a ranking has rank infinity there), run A is
    credited with the clicked documents among its top ``k``, B likewise; more wins.
    ``rank_a``, ``rank_b``: each shown document's rank in A and B (0: absent).
    """
    big = np.iinfo(np.int64).max
    ra = np.where(rank_a > 0, rank_a, big)
    rb = np.where(rank_b > 0, rank_b, big)
    # the lowest clicked row of each impression
    key = np.where(clicked, position, -1)
    order = np.lexsort((key, imp))              # by impression, then click position
    grouped = imp[order]
    ends = np.flatnonzero(np.r_[grouped[1:] != grouped[:-1], True])
    last = np.zeros(n_imp, dtype=np.int64)
    last[grouped[ends]] = order[ends]           # each impression's deepest click
    k = np.minimum(ra[last], rb[last])
    kk = k[imp]
    counts = np.zeros((n_imp, 2), dtype=np.int64)
    np.add.at(counts[:, 0], imp[clicked & (ra <= kk)], 1)
    np.add.at(counts[:, 1], imp[clicked & (rb <= kk)], 1)
    return _from_counts(counts, _clicked_impressions(imp, clicked, n_imp), 2)


def credit_outcomes(imp: np.ndarray, clicked: np.ndarray, credit: np.ndarray,
                    n_imp: int) -> Outcomes:
    """Optimized interleaving: the sum of the clicked documents' credits
    (``1/rank_A - 1/rank_B``); positive is a win for A (Radlinski & Craswell 2013)."""
    total = np.bincount(imp[clicked], credit[clicked], minlength=n_imp)
    counts = np.stack([np.maximum(total, 0), np.maximum(-total, 0)], axis=1)
    return _from_counts(counts, _clicked_impressions(imp, clicked, n_imp), 2)


def probabilistic_outcomes(imp: np.ndarray, clicked: np.ndarray, probs: np.ndarray,
                           n_imp: int) -> Outcomes:
    """Probabilistic interleaving: outcomes marginalised over the assignments.

    ``probs[r, row]`` is the probability that run ``r`` would have drawn the shown
    document at that position. Runs were chosen uniformly and independently per
    position, so the posterior of the run behind a clicked position is
    ``probs[:, row]`` normalised, independently across positions; the difference of
    credited clicks between ``i`` and ``j`` is then a sum of independent
    ``+1 / -1 / 0`` steps, whose distribution a short convolution gives (Hofmann,
    Whiteson & de Rijke, CIKM 2011).
    """
    n_runs = probs.shape[0]
    keep = _clicked_impressions(imp, clicked, n_imp)
    rows = np.flatnonzero(clicked)
    post = probs[:, rows]
    total = post.sum(axis=0)
    post = post / np.where(total > 0, total, 1.0)
    ci = imp[rows]
    starts = np.searchsorted(ci, keep)
    ends = np.searchsorted(ci, keep, side="right")
    pairs = list(combinations(range(n_runs), 2))
    win = [np.zeros(len(keep)) for _ in pairs]
    loss = [np.zeros(len(keep)) for _ in pairs]
    tie = [np.zeros(len(keep)) for _ in pairs]
    clicks = ends - starts
    # Impressions with the same number of clicks m convolve together, one row each:
    # the same operations in the same order as one impression at a time (so the same
    # floating-point values), a loop over click counts and positions, never impressions.
    for m in np.unique(clicks):
        sel = np.flatnonzero(clicks == m)
        at = starts[sel, None] + np.arange(m)           # (impressions, m) clicked rows
        for p, (i, j) in enumerate(pairs):
            qi_all, qj_all = post[i][at], post[j][at]
            dist = np.zeros((len(sel), 2 * m + 1))
            dist[:, m] = 1.0
            for t in range(m):
                qi, qj = qi_all[:, t:t + 1], qj_all[:, t:t + 1]
                step = dist * (1.0 - qi - qj)
                step[:, 1:] += dist[:, :-1] * qi
                step[:, :-1] += dist[:, 1:] * qj
                dist = step
            win[p][sel] = dist[:, m + 1:].sum(axis=1)
            loss[p][sel] = dist[:, :m].sum(axis=1)
            tie[p][sel] = dist[:, m]
    return Outcomes(pairs, keep, win, loss, tie)


def delta(win: float, loss: float, tie: float) -> float:
    """Delta_AB = (wins + ties / 2) / (wins + losses + ties) - 1/2 (NaN: no impression)."""
    n = win + loss + tie
    return (win + tie / 2) / n - 0.5 if n > 0 else float("nan")


def bootstrap_delta(user: np.ndarray, win: np.ndarray, loss: np.ndarray, tie: np.ndarray,
                    rng: np.random.Generator, samples: int = 1000,
                    level: float = 0.95) -> tuple[float, float]:
    """A percentile interval for Delta from resampling users with replacement.

    ``user``: each impression's user code. One user's impressions move together: they
    are not independent (the same person, the same tastes). ``level`` outside (0, 1):
    :class:`~relkit.metrics.core.errors.InputError`.
    """
    from relkit.metrics.core.errors import InputError
    from relkit.metrics.core.levels import check_unit

    check_unit("bootstrap_delta", "level", level, InputError)
    if len(user) == 0:
        return float("nan"), float("nan")
    codes, inv = np.unique(user, return_inverse=True)
    U = len(codes)
    w = np.bincount(inv, win, minlength=U)
    lo = np.bincount(inv, loss, minlength=U)
    t = np.bincount(inv, tie, minlength=U)
    draws = np.zeros(U)
    out = np.empty(samples)
    for b in range(samples):
        pick = rng.integers(0, U, U)
        draws = np.bincount(pick, minlength=U).astype(np.float64)
        sw, sl, st = draws @ w, draws @ lo, draws @ t
        n = sw + sl + st
        out[b] = (sw + st / 2) / n - 0.5 if n > 0 else np.nan
    a = (1 - level) / 2
    return float(np.nanquantile(out, a)), float(np.nanquantile(out, 1 - a))
