"""Pool bias in P@n, split by anti-precision (after Lipani, Lupu & Hanbury).

A run that did not contribute to the pool finds some of its top ``n``
documents unjudged; P@n counts them non-relevant, so the run is scored low.
Besides precision ``P@n`` (share of the top ``n`` judged relevant), a run's top
``n`` has an *anti-precision* ``AP̄@n`` (share judged non-relevant) and the
rest, ``U@n = retrieved/n - P@n - AP̄@n``, unjudged.

A. Lipani, M. Lupu and A. Hanbury, "Splitting water: precision and
anti-precision to reduce pool bias", SIGIR 2015, pp. 103-112, estimate how
that unjudged share would split between relevant and non-relevant from the
runs that did contribute: leave each one out of the pool (its unique
documents unjudged, as in :mod:`relkit.pooling.reuse`) and see what its
precision and anti-precision lose; for a new run::

    P*@n = P@n + U@n * dP / (dP + dAP̄)

where ``dP`` and ``dAP̄`` are the mean losses of precision and anti-precision
over the left-out runs (and topics). Where Webber & Park (SIGIR 2009, in
:mod:`relkit.pooling.reuse`) add the same mean loss to every run, this
correction grows with the run's own unjudged share: a run that retrieved
only judged documents is not corrected at all.

What this module implements is the estimator above, the anti-precision
split of the unjudged share; the paper's estimator was written from the
paper's idea here, its exact form not re-checked against the printed
equations in this session (see docs/pooling.md). The leave-one-run-out test
on Cranfield (tests/test_pool_bias_split.py) shows the published direction: the
corrected P@10 of a left-out run is closer to its full-pool value than the
uncorrected one, on average.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from relkit.metrics.convert import named_runs
from relkit.metrics.data import Qrels, Run
from relkit.pooling.candidates import Candidates
from relkit.pooling.depth import depth_pool
from relkit.pooling.errors import PoolingError
from relkit.pooling.simulate import grades_of

Grades = Mapping[str, Mapping[str, int]]


@dataclass(frozen=True)
class Parts:
    """A run's mean P@n, anti-precision and unjudged share over the qrels' topics."""

    precision: float
    anti_precision: float
    unjudged: float


def parts(grades: Grades, ranked: Mapping[str, list[str]], n: int, level: int = 1,
          topics: list[str] | None = None) -> Parts:
    """P@n, AP̄@n and U@n of one run (``ranked``: topic -> its documents in trec_eval's
    order), averaged over ``topics`` (default: the qrels' topics the run answered, as
    trec_eval averages P@n). A grade below 0 (pooled, not judged) counts unjudged."""
    ts = topics if topics is not None else [t for t in grades if t in ranked]
    if not ts:
        return Parts(0.0, 0.0, 0.0)
    p = a = u = 0.0
    for t in ts:
        g = grades.get(t, {})
        for d in ranked.get(t, [])[:n]:
            x = g.get(d)
            if x is None or x < 0:
                u += 1
            elif x >= level:
                p += 1
            else:
                a += 1
    k = n * len(ts)
    return Parts(p / k, a / k, u / k)


@dataclass(frozen=True)
class Split:
    """The pool's estimated split of unjudged documents (:func:`anti_precision_split`)."""

    precision_lost: float        # mean dP over the left-out runs
    anti_precision_lost: float   # mean dAP̄
    runs: int

    @property
    def share(self) -> float:
        """Share of a new run's unjudged top-n documents estimated relevant."""
        lost = self.precision_lost + self.anti_precision_lost
        return self.precision_lost / lost if lost > 0 else 0.0

    def adjust(self, observed: Parts) -> float:
        """A non-contributing run's corrected P@n."""
        return observed.precision + self.share * observed.unjudged


def _ranked(runs: Mapping[str, Run], n: int) -> dict[str, dict[str, list[str]]]:
    c = Candidates.from_runs(runs, n)
    out: dict[str, dict[str, list[str]]] = {r: {} for r in runs}
    for t in c.topics:
        for r, docs in c.lists[t].items():
            out[r][t] = docs
    return out


def leave_out_parts(qrels: Qrels, runs: Mapping[str, Run], depth: int, cutoff: int = 10,
                    groups: Mapping[str, str] | None = None, level: int = 1
                    ) -> dict[str, tuple[Parts, Parts]]:
    """Each run's (full-pool, left-out) :class:`Parts` at ``cutoff`` (grouped runs
    leave together): its group's unique depth-``depth`` documents made unjudged."""
    if isinstance(cutoff, bool) or not isinstance(cutoff, int) or cutoff < 1:
        raise PoolingError(f"The 'cutoff' parameter of the pool-bias split must be an int "
                           f">= 1; got {cutoff!r}")
    qrels, runs = Qrels.coerce(qrels), named_runs(runs)
    grades = grades_of(qrels)
    pool = depth_pool(runs, depth)
    owner = {r: (groups or {}).get(r, r) for r in runs}
    ranked = _ranked(runs, cutoff)
    out = {}
    for g in sorted(set(owner.values())):
        only = {(e.topic, e.doc) for e in pool if {owner[r] for r in e.runs} == {g}}
        kept = {t: {d: x for d, x in docs.items() if (t, d) not in only}
                for t, docs in grades.items()}
        for r in sorted(r for r in runs if owner[r] == g):
            ts = [t for t in grades if t in ranked[r]]
            out[r] = (parts(grades, ranked[r], cutoff, level, ts),
                      parts(kept, ranked[r], cutoff, level, ts))
    return out


def anti_precision_split(rows: Mapping[str, tuple[Parts, Parts]]) -> Split:
    """The split from left-out runs' (full, left-out) parts (:func:`leave_out_parts`).

    >>> full, out = Parts(0.5, 0.4, 0.1), Parts(0.3, 0.3, 0.4)   # lost 0.2 and 0.1
    >>> s = anti_precision_split({"r": (full, out)})
    >>> round(s.share, 6), round(s.adjust(Parts(0.2, 0.2, 0.6)), 6)
    (0.666667, 0.6)
    """
    if not rows:
        raise PoolingError("no left-out runs to estimate the pool bias from")
    dp = sum(f.precision - o.precision for f, o in rows.values()) / len(rows)
    da = sum(f.anti_precision - o.anti_precision for f, o in rows.values()) / len(rows)
    return Split(dp, da, len(rows))
