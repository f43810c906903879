"""Take@N: documents by their best rank in any run, cut at a judging budget.

Order: best (smallest) rank over the runs; among equal best ranks, the
document more runs retrieved (within the candidates) first; then docno. With
``--budget N`` each topic keeps its first N; with ``--total B`` a global
budget is split evenly across topics (see :func:`relkit.pooling.build.split_budget`).
Priority: ``1 / position`` in that order (1, 1/2, 1/3, ...), so priority
order is judging order.

Reference: A. Lipani, J. Palotti, M. Lupu, F. Piroi, G. Zuccon, A. Hanbury,
"Fixed-cost pooling strategies based on IR evaluation measures", ECIR 2017
(the ``take@N`` family).
"""

from __future__ import annotations

from typing import Any

from relkit.pooling.candidates import Candidates
from relkit.pooling.strategies import Strategy, register


def _order(cands: Candidates, params: dict[str, Any]) -> dict[str, list[tuple[str, float]]]:
    out = {}
    for t in cands.topics:
        prov = cands.provenance(t)
        key = {d: (min(k for _, k in p), -len(p), d) for d, p in prov.items()}
        docs = sorted(prov, key=lambda d: key[d])
        out[t] = [(d, 1.0 / i) for i, d in enumerate(docs, 1)]
    return out


register(Strategy(
    "take", "static", (),
    "documents by best rank over the runs, cut at a per-topic or global budget",
    "Lipani et al., ECIR 2017",
    order=_order,
))
