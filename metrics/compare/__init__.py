"""Comparing systems: significance, per-topic analysis, tables, charts, a report.

    from relkit.metrics.compare import compare
    cmp = compare(qrels, {"bm25": run_a, "lm": run_b}, ["AP", "nDCG@10"], baseline="bm25")
    print(cmp.table("markdown"))

One module per concern: :mod:`.scores` (per-topic matrix), :mod:`.significance`
(paired tests, a registry), :mod:`.corrections` (multiple comparisons),
:mod:`.effect` (effect size), :mod:`.core` (the comparison) and :mod:`.comparison`
(its result), :mod:`.analysis` (per-topic views as data), :mod:`.tables` /
:mod:`.terminal` (formats), :mod:`.plots` (matplotlib, imported lazily) and
:mod:`.report` (HTML).
Importing this package loads numpy only; scipy, pandas and matplotlib are
imported inside the functions that need them.
"""

from __future__ import annotations

from relkit.metrics.compare.core import Comparison, PairTest, compare
from relkit.metrics.compare.scores import Scores, score_matrix

__all__ = ["Comparison", "PairTest", "Scores", "compare", "score_matrix"]
