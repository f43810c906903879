"""The shown lists every interleaving method returns, and the position table they share.

Team draft, balanced and probabilistic interleaving (:mod:`.methods`), the optimized
multileave and the list writer all hand round :class:`Interleaved`, and the three methods
look documents up in the other runs through one position table; both live here, apart
from the methods, so the modules that only read shown lists need not import the methods.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Interleaved:
    """Shown lists: ``docs[q, k]`` the code at position ``k`` (``-1``: list ended),
    ``teams[q, k]`` the run that contributed it (``-1``: none), and for probabilistic
    interleaving ``probs[r, q, k]``: the probability that run ``r``'s softmax would
    have drawn ``docs[q, k]`` given the documents above it (what Hofmann et al.'s
    marginalisation needs). Balanced interleaving also keeps ``ranks[r, q, k]``: the
    1-based rank of ``docs[q, k]`` in run ``r``'s matrix (``0``: absent or no document),
    known when the document is added, so the writer need not search for it."""

    docs: np.ndarray
    teams: np.ndarray
    probs: np.ndarray | None = field(default=None)
    ranks: np.ndarray | None = field(default=None)


Positions = list[list[np.ndarray]]


def position_table(mats: list[np.ndarray]) -> Positions:
    """``pos[r][s][q, i]``: where run ``r``'s document at ``i`` sits in run ``s``
    (``-1``: not in its row); what the methods' ``positions`` argument takes. Rows
    can be taken from it (``pos[r][s][rows]``) for the same rows of ``mats``."""
    return _positions(mats)


def _positions(mats: list[np.ndarray]) -> Positions:
    """``pos[r][s][q, i]``: where run ``r``'s document at ``i`` sits in run ``s``
    (``-1``: not in its rows)."""
    n = len(mats)
    out: list[list[np.ndarray]] = [[np.empty(0, dtype=np.int64)] * n for _ in range(n)]
    # compared as int32 when the codes fit: half the memory traffic
    top = max((int(m.max()) for m in mats if m.size), default=0)
    narrow = [m.astype(np.int32) if top < 2**31 - 1 else m for m in mats]
    for r in range(n):
        for s in range(r + 1, n):
            a, b = narrow[r], narrow[s]
            where = np.full(a.shape, -1, dtype=np.int64)
            for j in range(b.shape[1]):      # one column of b at a time: no 3-d cube
                col = b[:, j:j + 1]
                hit = a == col
                hit &= col >= 0
                where[hit] = j
            out[r][s] = where
            out[s][r] = _inverse(where, b.shape[1])
    return out


def _inverse(where: np.ndarray, width: int) -> np.ndarray:
    """Run ``s``'s positions in run ``r`` from run ``r``'s in ``s``: the document at
    ``i`` of ``r`` sits at ``j = where[q, i]`` of ``s``, so ``s``'s ``j`` is at ``i``
    (a scatter, cheaper than comparing the rankings again)."""
    out = np.full((where.shape[0], width), -1, dtype=np.int64)
    q, i = np.nonzero(where >= 0)
    out[q, where[q, i]] = i
    return out
