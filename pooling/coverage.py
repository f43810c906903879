"""Coverage of runs by a qrels: Judged@k and the unjudged rate (``relkit pool-coverage``).

Judged@k is the share of a run's top k (over min(k, retrieved)) that has a
non-negative grade in the qrels (a -1 is "pooled, not judged":
:mod:`relkit.metrics.readers.grades`, the rule ``pool-simulate`` follows too),
averaged over the qrels' topics the run answers (``metrics`` measure
``Judged@k``; ir_measures' ``Judged``). The unjudged rate is 1 - Judged over
the whole ranking. A run with low coverage is scored on documents nobody
looked at: its scores are lower bounds.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from relkit.metrics.convert import named_runs
from relkit.metrics.data import Qrels, Run

ALL = 10 ** 9     # Judged at this depth is judged/retrieved over the whole ranking


def coverage(qrels: Qrels, runs: Mapping[str, Run], cutoffs: Sequence[int] = (10, 100)
             ) -> dict[str, dict[str, float]]:
    """``{run: {"Judged@10": ..., "unjudged": ...}}`` for each run, runs in name order."""
    from relkit.metrics.evaluator import Evaluator

    runs = named_runs(runs)     # the evaluator coerces the qrels
    ks = sorted(set(cutoffs))
    names = [f"Judged@{k}" for k in ks]
    ev = Evaluator(qrels, names + [f"Judged@{ALL}"])
    out: dict[str, dict[str, float]] = {}
    for name in sorted(runs):
        s = ev.aggregate(runs[name])
        row = {n: float(s[n]) for n in names}
        row["unjudged"] = 1.0 - float(s[f"Judged@{ALL}"])
        out[name] = row
    return out
