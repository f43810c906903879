"""Depth-k pooling: the union of every run's top k documents per topic.

Ranking order is trec_eval's (score descending, then docno descending; the rank
column is ignored), decided by :func:`metrics.ranking.ranked_docnos`, so tied
scores give the same pool on every machine. A run shorter than k contributes
what it has. A document a run lists twice is an error naming the run's line
(trec_eval refuses such runs too).

Priority is the best (smallest) rank at which any run retrieved the document,
as ``1 / best_rank``, so "priority order" presents a topic's documents roughly
in the order the systems agree on.

Reference: K. Spärck Jones and C. J. van Rijsbergen, "Report on the need for
and provision of an 'ideal' information retrieval test collection", 1975;
TREC practice since 1992 (Voorhees & Harman, *TREC*, 2005, ch. 2).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from metrics.data import Run
from metrics.ranking import ranked_docnos
from pooling.params import PoolingError
from pooling.pool import Pool, PoolEntry

__all__ = ["PoolingError", "depth_pool", "run_name"]


def run_name(path: str | Path) -> str:
    """A run's name: its file's stem (run tags repeat across files, so never the tag)."""
    return Path(path).name.removesuffix(".gz").rsplit(".", 1)[0] or Path(path).name


def depth_pool(runs: Mapping[str, Run], depth: int | Mapping[str, int],
               topics: Sequence[str] | None = None) -> Pool:
    """Pool the top ``depth`` documents of each run (a per-run mapping allowed)."""
    if not runs:
        raise PoolingError("pooling needs at least one run")
    depths = {name: depth for name in runs} if isinstance(depth, int) else dict(depth)
    for name, k in depths.items():
        if not isinstance(k, int) or isinstance(k, bool) or k < 1:
            raise PoolingError(f"The 'depth' parameter of depth pooling must be an int >= 1; "
                               f"got {k!r} for run {name!r}")
    missing = set(runs) - set(depths)
    if missing:
        raise PoolingError(f"no depth given for runs {sorted(missing)}")
    wanted = set(topics) if topics is not None else None
    found: dict[tuple[str, str], list[tuple[str, int]]] = {}
    for name in sorted(runs):
        ranked = ranked_docnos(runs[name], max_docs=depths[name])
        for topic, docs in ranked.items():
            if wanted is not None and topic not in wanted:
                continue
            for rank, doc in enumerate(docs, 1):
                found.setdefault((topic, doc), []).append((name, rank))
    entries = tuple(PoolEntry(t, d, 1.0 / min(k for _, k in prov), tuple(prov))
                    for (t, d), prov in found.items())
    return Pool(entries)
