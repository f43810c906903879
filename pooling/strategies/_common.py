"""Shared pieces of the strategies: ordering by a per-document score, the next unjudged."""

from __future__ import annotations

import numpy as np

from relkit.pooling.candidates import Candidates


def ordered(cands: Candidates, score: dict[str, dict[str, float]]
            ) -> dict[str, list[tuple[str, float]]]:
    """Each topic's documents by score descending, ties by best rank then docno.

    Ties must not depend on dict order: the best rank (smallest) and the docno
    (ascending) decide, so equal inputs give byte-identical pools.
    """
    out: dict[str, list[tuple[str, float]]] = {}
    for t in cands.topics:
        prov = cands.provenance(t)
        best = {d: min(k for _, k in p) for d, p in prov.items()}
        docs = sorted(score[t], key=lambda d: (-score[t][d], best[d], d))
        out[t] = [(d, score[t][d]) for d in docs]
    return out


def next_in(order: np.ndarray, ptr: int, judged: np.ndarray) -> int:
    """First position >= ptr of ``order`` whose document is not judged (len: none)."""
    n = len(order)
    while ptr < n and judged[order[ptr]]:
        ptr += 1
    return ptr
