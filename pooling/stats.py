"""Pool statistics: size per topic, what each run (or group) adds, overlap.

A run's *unique* documents are those in the pool that no other run (or, for
groups, no run of another group) contributed — Zobel's measure of how much a
collection depends on one system (SIGIR 1998).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from relkit.pooling.pool import Pool


@dataclass(frozen=True)
class Contribution:
    name: str
    contributed: int       # (topic, doc) pairs it retrieved within the pool depth
    unique: int            # of those, pairs no other run/group contributed


def contributions(pool: Pool, groups: Mapping[str, str] | None = None) -> list[Contribution]:
    """Per run (or per group, with ``groups = {run: group}``) contributed and unique pairs."""
    def owner(run: str) -> str:
        return groups.get(run, run) if groups is not None else run

    contributed: dict[str, int] = {}
    unique: dict[str, int] = {}
    for e in pool:
        owners = sorted({owner(r) for r in e.runs})
        for o in owners:
            contributed[o] = contributed.get(o, 0) + 1
            unique.setdefault(o, 0)
        if len(owners) == 1:
            unique[owners[0]] += 1
    return [Contribution(n, contributed[n], unique[n]) for n in sorted(contributed)]


def overlap(pool: Pool) -> dict[tuple[str, str], float]:
    """Mean over topics of the Jaccard overlap of two runs' pooled documents.

    .. math:: J(a, b) = \\frac{1}{|T|} \\sum_t \\frac{|A_t \\cap B_t|}{|A_t \\cup B_t|}

    over the topics where either run contributed.
    """
    by: dict[str, dict[str, set[str]]] = {}
    for e in pool:
        for r in e.runs:
            by.setdefault(r, {}).setdefault(e.topic, set()).add(e.doc)
    runs = sorted(by)
    out: dict[tuple[str, str], float] = {}
    for i, a in enumerate(runs):
        for b in runs[i + 1:]:
            topics = set(by[a]) | set(by[b])
            vals = []
            for t in topics:
                x, y = by[a].get(t, set()), by[b].get(t, set())
                vals.append(len(x & y) / len(x | y))
            out[(a, b)] = sum(vals) / len(vals) if vals else 0.0
    return out


def shared_by_one(pool: Pool) -> float:
    """Share of pool pairs that only one run retrieved."""
    return sum(1 for e in pool if len(e.provenance) == 1) / len(pool) if len(pool) else 0.0
