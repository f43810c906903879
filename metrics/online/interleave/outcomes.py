"""Per-impression outcomes of two interleaved runs, on ``(impressions, depth)`` matrices.

The credit rules of :mod:`.credit` (which ``relkit interleave analyze`` applies to a
log's rows), written for the simulation's dense matrices: every function returns one
number per impression, ``+1`` (run A preferred), ``-1`` (B) or ``0`` (a tie, or no
click), or for probabilistic interleaving ``P(A wins) - P(B wins)`` marginalised over
the assignments. Their sum over impressions has the sign of ``wins_A - wins_B``, the
sign of analyze's Delta. ``tests/test_interleave_simulate.py`` checks each against
:mod:`.credit` on the same impressions.
"""

from __future__ import annotations

import numpy as np

# Credits are sums of 1/rank differences: a sum that cancels to zero in exact arithmetic
# can be 1e-17 in floating point, which must be a tie, not a win.
TOLERANCE = 1e-12


def team_outcome(teams: np.ndarray, clicks: np.ndarray) -> np.ndarray:
    """Team draft: more clicks on A's team than on B's is a win for A."""
    a = (clicks & (teams == 0)).sum(axis=1)
    b = (clicks & (teams == 1)).sum(axis=1)
    out: np.ndarray = np.sign(a - b).astype(np.float64)
    return out


def ranks_in(docs: np.ndarray, ranking: np.ndarray) -> np.ndarray:
    """1-based rank of each shown document in ``ranking`` (same rows); 0: absent."""
    eq = (docs[:, :, None] == ranking[:, None, :]) & (docs >= 0)[:, :, None]
    return np.where(eq.any(axis=2), eq.argmax(axis=2) + 1, 0)


def balanced_outcome(docs: np.ndarray, clicks: np.ndarray, a: np.ndarray, b: np.ndarray
                     ) -> np.ndarray:
    """Balanced interleaving (Joachims 2003): with ``l`` the lowest click and
    ``k = min(rank_A(l), rank_B(l))``, the clicks in each run's top ``k``; more wins.
    ``a``, ``b``: the runs' top ``depth`` codes of each impression's topic."""
    big = np.iinfo(np.int64).max
    ra = ranks_in(docs, a)
    rb = ranks_in(docs, b)
    ra = np.where(ra > 0, ra, big)
    rb = np.where(rb > 0, rb, big)
    any_click = clicks.any(axis=1)
    depth = docs.shape[1]
    last = depth - 1 - np.argmax(clicks[:, ::-1], axis=1)      # lowest clicked position
    rows = np.arange(len(docs))
    k = np.minimum(ra[rows, last], rb[rows, last])[:, None]
    ca = (clicks & (ra <= k)).sum(axis=1)
    cb = (clicks & (rb <= k)).sum(axis=1)
    return np.where(any_click, np.sign(ca - cb), 0).astype(np.float64)


def credit_outcome(credit: np.ndarray, clicks: np.ndarray) -> np.ndarray:
    """Optimized interleaving: the sign of the clicked documents' summed credit
    (``1/rank_A - 1/rank_B``; Radlinski & Craswell 2013)."""
    total = np.where(clicks, credit, 0.0).sum(axis=1)
    return np.where(np.abs(total) > TOLERANCE, np.sign(total), 0.0)


def probabilistic_outcome(probs: np.ndarray, clicks: np.ndarray) -> np.ndarray:
    """Probabilistic interleaving: ``P(A wins) - P(B wins)`` over the assignments.

    ``probs[r, i, k]``: the probability that run ``r`` would have drawn the document
    shown at position ``k`` of impression ``i``. The posterior that A contributed a
    clicked position is ``p_A / (p_A + p_B)``, independently across positions (Hofmann,
    Whiteson & de Rijke, CIKM 2011); the distribution of (A's credited clicks - B's) is
    built one position at a time for all impressions together.
    """
    pa, pb = probs[0], probs[1]
    tot = pa + pb
    qa = np.where(tot > 0, pa / np.where(tot > 0, tot, 1.0), 0.0)
    qb = np.where(tot > 0, pb / np.where(tot > 0, tot, 1.0), 0.0)
    n, depth = clicks.shape
    dist = np.zeros((n, 2 * depth + 1))
    dist[:, depth] = 1.0
    for k in range(depth):
        c = clicks[:, k]
        if not c.any():
            continue
        a = np.where(c, qa[:, k], 0.0)[:, None]
        b = np.where(c, qb[:, k], 0.0)[:, None]
        step = dist * (1.0 - a - b)
        step[:, 1:] += dist[:, :-1] * a
        step[:, :-1] += dist[:, 1:] * b
        dist = step
    net: np.ndarray = dist[:, depth + 1:].sum(axis=1) - dist[:, :depth].sum(axis=1)
    return net
