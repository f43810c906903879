r"""Fusion priority: judge first what a metasearch fusion of the runs ranks first.

For document d, over the runs s that retrieved it at rank :math:`r_s(d)`
(within the candidate depth) with score :math:`x_s(d)`:

* ``rrf``: :math:`\sum_s 1 / (k + r_s(d))` (Cormack, Clarke & Büttcher, SIGIR 2009; k = 60);
* ``borda``: :math:`\sum_s (L_s - r_s(d) + 1)`, :math:`L_s` the length of run s's list
  for the topic; a run that did not retrieve d gives it 0 (Aslam & Montague, SIGIR 2001);
* ``combsum``: :math:`\sum_s \hat x_s(d)` with min-max normalised scores
  :math:`\hat x = (x - \min_s)/(\max_s - \min_s)` per run and topic (1 when every
  score of the list is equal) (Fox & Shaw, TREC-2, 1994; Lee, SIGIR 1997);
* ``combmnz``: ``combsum`` times the number of runs that retrieved d.

Ties are broken by best rank, then docno. The priority written is the fused score.

What it looks at: the candidates, each run's top ``--depth`` documents per topic
(default 100, :data:`relkit.pooling.strategies.CANDIDATE_DEPTH`), not whole runs: a
document's fused score counts only the runs that have it within that depth, and
:math:`L_s` is the cut list's length, so the order changes with the depth.
"""

from __future__ import annotations

from typing import Any

from relkit.metrics.core.params import Param
from relkit.pooling.candidates import Candidates
from relkit.pooling.strategies import Strategy, register
from relkit.pooling.strategies._common import ordered

METHODS = ("rrf", "borda", "combsum", "combmnz")


def fuse(cands: Candidates, method: str, k: float) -> dict[str, dict[str, float]]:
    out: dict[str, dict[str, float]] = {}
    for t in cands.topics:
        score: dict[str, float] = {}
        hits: dict[str, int] = {}
        for run, docs in cands.lists[t].items():
            xs = cands.scores[t][run]
            lo, hi = (min(xs), max(xs)) if xs else (0.0, 0.0)
            for r, (d, x) in enumerate(zip(docs, xs, strict=True), 1):
                if method == "rrf":
                    v = 1.0 / (k + r)
                elif method == "borda":
                    v = float(len(docs) - r + 1)
                else:
                    v = (x - lo) / (hi - lo) if hi > lo else 1.0
                score[d] = score.get(d, 0.0) + v
                hits[d] = hits.get(d, 0) + 1
        if method == "combmnz":
            score = {d: v * hits[d] for d, v in score.items()}
        out[t] = score
    return out


def _order(cands: Candidates, params: dict[str, Any]) -> dict[str, list[tuple[str, float]]]:
    return ordered(cands, fuse(cands, params["method"], params["k"]))


register(Strategy(
    "fusion", "static",
    (Param("method", str, "rrf", "how run rankings are fused", choices=METHODS),
     Param("k", float, 60.0, "RRF's rank offset", low=0)),
    "documents in the order of a fusion of the runs (RRF, Borda, CombSUM, CombMNZ)",
    "Cormack et al. 2009; Aslam & Montague 2001; Fox & Shaw 1994",
    order=_order,
))
