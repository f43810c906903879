"""Depth-k: every run's top k documents (NIST's pool since TREC-1).

Judging order (used when a budget cuts the pool, and by ``pool-simulate``): by
best rank over the runs, then docno — that is, the depth-1 pool, then what
depth 2 adds, and so on, so a budget of B judgments per topic judges the
largest depth-k pool that fits and part of the next layer.
Priority: ``1 / best rank``, as :func:`relkit.pooling.depth.depth_pool` writes it.

Reference: Spärck Jones & van Rijsbergen (1975); Voorhees & Harman, *TREC* (2005), ch. 2.
"""

from __future__ import annotations

from typing import Any

from relkit.metrics.core.params import Param
from relkit.pooling.candidates import Candidates
from relkit.pooling.strategies import CANDIDATE_DEPTH, Strategy, register
from relkit.pooling.strategies._common import ordered


def _order(cands: Candidates, params: dict[str, Any]) -> dict[str, list[tuple[str, float]]]:
    k = params["depth"]
    score = {}
    for t in cands.topics:
        score[t] = {d: 1.0 / min(r for _, r in p) for d, p in cands.provenance(t).items()
                    if min(r for _, r in p) <= k}
    return ordered(cands, score)


register(Strategy(
    "depth", "static",
    (Param("depth", int, CANDIDATE_DEPTH.default,
           "pool the top DEPTH documents of every run", low=1),),
    "the union of every run's top k documents",
    "Spärck Jones & van Rijsbergen 1975; Voorhees & Harman 2005",
    order=_order,
))
