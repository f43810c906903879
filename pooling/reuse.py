"""Leave-one-run-out (and leave-one-group-out) reusability of a pool.

Would the collection judge a new system fairly? Pretend a run (or a whole
group's runs) did not contribute to the pool: remove from the qrels the
(topic, doc) pairs only it contributed to the depth-k pool, re-score it with
those qrels, and compare with its score under the full qrels (Zobel, SIGIR
1998; Buckley, Dimmick, Soboroff & Voorhees, "Bias and the limits of pooling
for large collections", IRJ 2007). Reported per run: the score drop, the rank
drop in the system ordering (others keep their full-qrels scores), and
Kendall's tau between that ordering and the full one. A drop near 0 and tau
near 1 say the pool is reusable for systems like the left-out one.

The same experiment estimates the pool's bias against a new system
(:func:`pool_bias`; W. Webber and L. A. F. Park, "Score adjustment for
correction of pooling bias", SIGIR 2009): each left-out run stands for a
system that did not contribute, so the mean of their drops is what a new
system's score is expected to lose to unjudged relevant documents, and
``observed + adjustment`` is its adjusted score (:meth:`PoolBias.adjust`).
Webber and Park add the adjustment topic by topic; for a measure averaged over
a fixed set of topics (MAP, mean nDCG) the mean of per-topic adjustments is
the mean of the runs' overall drops, which is what is computed here.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from relkit.metrics.compare.correlation import kendall_tau
from relkit.metrics.convert import named_runs
from relkit.metrics.data import Qrels, Run
from relkit.pooling.depth import depth_pool
from relkit.pooling.simulate import grades_of


@dataclass(frozen=True)
class Reuse:
    name: str                  # the run or group left out
    run: str
    removed: int               # qrels pairs only it contributed
    removed_relevant: int
    full: float
    left_out: float
    rank_full: int
    rank_left_out: int
    tau: float | None

    @property
    def drop(self) -> float:
        return self.full - self.left_out

    @property
    def rank_drop(self) -> int:
        return self.rank_left_out - self.rank_full


def _rank(scores: Mapping[str, float], name: str) -> int:
    """1 + the number of systems strictly better (ties share the better rank)."""
    return 1 + sum(1 for v in scores.values() if v > scores[name])


def leave_out(qrels: Qrels, runs: Mapping[str, Run], depth: int = 100,
              groups: Mapping[str, str] | None = None, measure: str = "map",
              level: int = 1) -> list[Reuse]:
    """One :class:`Reuse` row per run (grouped runs leave together)."""
    from relkit.metrics.evaluator import Evaluator

    qrels, runs = Qrels.coerce(qrels), named_runs(runs)
    grades = grades_of(qrels)
    pool = depth_pool(runs, depth)
    owner = {r: (groups or {}).get(r, r) for r in runs}
    full_ev = Evaluator(qrels, [measure], level=level)
    full = {n: float(full_ev.aggregate(r).iloc[0]) for n, r in runs.items()}
    out = []
    for g in sorted(set(owner.values())):
        members = sorted(r for r in runs if owner[r] == g)
        only = {(e.topic, e.doc) for e in pool if {owner[r] for r in e.runs} == {g}}
        removed = [(t, d) for t, d in only if d in grades.get(t, {})]
        kept = {t: {d: gr for d, gr in docs.items() if (t, d) not in only}
                for t, docs in grades.items()}
        sub = Qrels.from_dict({t: v for t, v in kept.items() if v})
        ev = Evaluator(sub, [measure], level=level)
        scores = dict(full)
        for r in members:
            scores[r] = float(ev.aggregate(runs[r]).iloc[0])
        tau = kendall_tau(full, scores).value
        for r in members:
            out.append(Reuse(g, r, len(removed),
                             sum(1 for t, d in removed if grades[t][d] >= level),
                             full[r], scores[r], _rank(full, r), _rank(scores, r), tau))
    return out


@dataclass(frozen=True)
class PoolBias:
    """The leave-one-out estimate of a pool's bias against a new system."""

    adjustment: float     # mean drop over the left-out runs
    stdev: float          # sample standard deviation of the drops (0 for one run)
    runs: int

    def adjust(self, observed: float) -> float:
        """A non-contributing system's score, corrected for the pool's bias."""
        return observed + self.adjustment


def pool_bias(rows: Sequence[Reuse]) -> PoolBias:
    """Webber & Park's adjustment: the mean leave-one-out drop over the runs in ``rows``.

    >>> r = [Reuse("x", "x", 1, 1, 0.6, 0.5, 1, 1, None),
    ...      Reuse("y", "y", 0, 0, 0.4, 0.4, 2, 2, None)]
    >>> b = pool_bias(r)
    >>> round(b.adjustment, 10), round(b.adjust(0.3), 10)
    (0.05, 0.35)
    """
    if not rows:
        raise ValueError("no leave-one-out rows to estimate the pool bias from")
    drops = [r.drop for r in rows]
    mean = sum(drops) / len(drops)
    var = (sum((d - mean) ** 2 for d in drops) / (len(drops) - 1)) if len(drops) > 1 else 0.0
    return PoolBias(mean, math.sqrt(var), len(drops))
