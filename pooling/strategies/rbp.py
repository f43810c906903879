r"""RBP-weighted priority ("method A" of Moffat, Webber & Zobel, SIGIR 2007).

A document's priority is the total weight it carries in the runs' rank-biased
precision:

.. math:: w(d) = \sum_s (1 - p)\, p^{\,r_s(d) - 1}

over the runs s that retrieved d at rank :math:`r_s(d)`. Judging in
decreasing w reduces the summed RBP residual of all runs fastest. Ties are
broken by best rank, then docno.

What it looks at: each run's top ``--depth`` documents per topic (default 100,
:data:`relkit.pooling.strategies.CANDIDATE_DEPTH`); a document a run ranks below that
depth adds nothing to its weight.

Reference: A. Moffat, W. Webber, J. Zobel, "Strategic system comparisons via
targeted relevance judgments", SIGIR 2007, section 4 (method A).
"""

from __future__ import annotations

from typing import Any

from relkit.metrics.core.params import Param
from relkit.pooling.candidates import Candidates
from relkit.pooling.strategies import Strategy, register
from relkit.pooling.strategies._common import ordered

P = Param("p", float, 0.8, "RBP persistence", low=0, high=1, open_low=True, open_high=True)


def weights(cands: Candidates, p: float) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for t in cands.topics:
        w: dict[str, float] = {}
        for docs in cands.lists[t].values():
            for r, d in enumerate(docs, 1):
                w[d] = w.get(d, 0.0) + (1 - p) * p ** (r - 1)
        out[t] = w
    return out


def _order(cands: Candidates, params: dict[str, Any]) -> dict[str, list[tuple[str, float]]]:
    return ordered(cands, weights(cands, params["p"]))


register(Strategy(
    "rbp", "static", (P,),
    "documents by their summed RBP weight over the runs (method A)",
    "Moffat, Webber & Zobel, SIGIR 2007",
    order=_order,
))
