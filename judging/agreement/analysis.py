"""Everything the agreement report shows, computed once from :class:`Ratings`.

Each statistic on the graded scale and binarised at a threshold; pooled over
all items (pairwise: per assessor pair; many assessors: all together) and per
topic; each assessor against gold and against the majority of the others.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from relkit.judging.agreement import byrater, multi, pairwise
from relkit.judging.agreement.frame import AgreementError, Ratings
from relkit.judging.agreement.result import Stat, gc_paused

# Above this many assessor pairs, pairwise bootstraps are skipped (analytic
# intervals stay): crowd data has thousands of tiny pairs and the interval of
# a 3-item kappa says nothing.
MAX_BOOT_PAIRS = 50
TOPIC_STATS = ("percent_agreement", "fleiss_kappa", "krippendorff_alpha_nominal",
               "krippendorff_alpha_ordinal", "krippendorff_alpha_interval",
               "krippendorff_alpha_ratio", "gwet_ac1", "gwet_ac2_linear", "gwet_ac2_quadratic")
# On two grades every weighting gives the same number: shown once.
SAME_ON_BINARY = ("cohen_kappa_linear", "cohen_kappa_quadratic", "gwet_ac2_linear",
                  "gwet_ac2_quadratic", "fleiss_kappa_linear", "fleiss_kappa_quadratic",
                  "fleiss_kappa_ordinal", "brennan_prediger_linear",
                  "brennan_prediger_quadratic", "brennan_prediger_ordinal",
                  "scott_pi_linear", "scott_pi_quadratic", "conger_kappa_linear",
                  "conger_kappa_quadratic", "conger_kappa_ordinal", "gwet_ac2_ordinal")
AGAINST_STATS = ("percent_agreement", "cohen_kappa", "cohen_kappa_linear",
                 "cohen_kappa_quadratic", "positive_agreement", "negative_agreement")


@dataclass(frozen=True)
class Options:
    """``topic_replicates``: the per-topic bootstrap (only for statistics without an
    analytic SE: ordinal alpha), kept smaller because it runs once per topic.
    ``interval``: ``"normal"`` (the default) or ``"t"``: t(n - 1) analytic intervals for
    the statistics whose reference (irrCAC, Gwet 2014) uses them."""

    level: float = 0.95
    replicates: int = 1000
    seed: int = 0
    topic_replicates: int = 200
    interval: str = "normal"

    def __post_init__(self) -> None:
        from relkit.metrics.core.levels import check_unit

        check_unit("agreement", "level", self.level, AgreementError)


@dataclass
class Pair:
    a: str
    b: str
    table: np.ndarray
    stats: dict[str, Stat]

    def to_dict(self) -> dict[str, Any]:
        table = self.table.tolist()    # n from the list: a numpy sum per pair cost more
        return {"a": self.a, "b": self.b, "n": int(sum(map(sum, table))),
                "table": table,
                "stats": {k: s.to_dict() for k, s in self.stats.items()}}


@dataclass
class Level:
    """One view of the data: the graded scale, or binarised."""

    name: str
    grades: list[int]
    labels: list[str]
    overall: dict[str, Stat]
    pairs: list[Pair]
    per_topic: dict[str, dict[str, Stat]]
    gold: list[Pair] = field(default_factory=list)
    majority: list[Pair] = field(default_factory=list)
    topic_pairs: dict[str, list[Pair]] = field(default_factory=dict)
    icc_dropped: int = 0       # judged items left out of the ICC (not judged by everyone)

    def to_dict(self) -> dict[str, Any]:
        return {"grades": self.grades, "labels": self.labels,
                "overall": {k: s.to_dict() for k, s in self.overall.items()},
                "pairs": [p.to_dict() for p in self.pairs],
                "per_topic": {t: {k: s.to_dict() for k, s in d.items()}
                              for t, d in self.per_topic.items()},
                "per_topic_pairs": {t: [p.to_dict() for p in ps]
                                    for t, ps in self.topic_pairs.items()},
                "gold": [p.to_dict() for p in self.gold],
                "majority_of_others": [p.to_dict() for p in self.majority],
                "icc_items_dropped": self.icc_dropped}


def _pair_stats(tables: np.ndarray, values: np.ndarray, binary: bool, opts: Options,
                boot: bool, names: tuple[str, ...] | None = None) -> list[dict[str, Stat]]:
    """Every pairwise statistic for a stack of tables (one dict per table)."""
    out: list[dict[str, Stat]] = [{} for _ in range(len(tables))]
    if not len(tables):
        return out
    for name, st in pairwise.REGISTRY.items():
        if names is not None and name not in names:
            continue
        if (st.binary_only and not binary) or (binary and name in SAME_ON_BINARY):
            continue
        stats = pairwise.measure_many(st, tables, values, level=opts.level,
                                      replicates=opts.replicates if boot else 0, seed=opts.seed,
                                      interval=opts.interval)
        for d, s in zip(out, stats, strict=True):
            d[name] = s
    return out


def majority_of_others(codes: np.ndarray, q: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """Per assessor: aligned (their grade, the others' majority grade) where both exist.

    Majority: the most frequent grade among the other assessors; a tie goes to
    the lower grade (as ``relkit export qrels --method majority``).
    """
    total = np.stack([(codes == c).sum(axis=1) for c in range(q)], axis=1)
    out = []
    for a in range(codes.shape[1]):
        rows = np.flatnonzero(codes[:, a] >= 0)
        mine = codes[rows, a].astype(np.int64)
        others = total[rows].copy()
        others[np.arange(len(rows)), mine] -= 1
        ok = others.sum(axis=1) > 0
        out.append((mine[ok], others[ok].argmax(axis=1)))   # argmax: first max = lowest grade
    return out


def level(r: Ratings, name: str, opts: Options, gold: str | None = None) -> Level:
    binary = r.k == 2 and name == "binary"
    values = r.values
    q = r.k
    peers = [a for a in r.assessors if a != gold]
    pr = r.only(peers) if gold is not None else r
    codes = pr.codes
    pat = multi.patterns(codes, q)
    overall: dict[str, Stat] = {}
    for sname, st in multi.REGISTRY.items():
        if binary and sname in SAME_ON_BINARY:
            continue
        overall[sname] = multi.measure(st, pat, values, level=opts.level,
                                       replicates=opts.replicates, seed=opts.seed,
                                       interval=opts.interval)
    overall["mean_pairwise_cohen_kappa"] = multi.mean_pairwise_cohen(
        codes, q, values, level=opts.level, replicates=opts.replicates, seed=opts.seed)
    conger_names = tuple(c for c in byrater.CONGER if not (binary and c in SAME_ON_BINARY))
    overall.update(byrater.conger_stats(codes, values, level=opts.level,
                                        interval=opts.interval, names=conger_names))
    icc_stats, icc_dropped = byrater.icc_stats(codes, values, level=opts.level)
    overall.update(icc_stats)
    tabs = multi.pair_tables(codes, q)
    boot = len(tabs) <= MAX_BOOT_PAIRS
    stack = np.stack(list(tabs.values())) if tabs else np.zeros((0, q, q), dtype=np.int64)
    pairs = [Pair(pr.assessors[i], pr.assessors[j], t, st)
             for ((i, j), t), st in zip(tabs.items(), _pair_stats(stack, values, binary, opts,
                                                                   boot), strict=True)]
    T = len(r.topics)
    per_topic: dict[str, dict[str, Stat]] = {r.topics[t]: {} for t in range(T)}
    for sname in TOPIC_STATS:
        if binary and sname in SAME_ON_BINARY:
            continue
        vals = multi.per_topic(multi.REGISTRY[sname], pat, pr.item_topic, T, values,
                               level=opts.level, replicates=opts.topic_replicates,
                               seed=opts.seed, boot_only_without_se=True,
                               interval=opts.interval)
        for t, s in enumerate(vals):
            per_topic[r.topics[t]][sname] = s
    # every pairwise statistic per (pair, topic), analytic intervals only (each has one)
    ia, ib, it, ttabs = multi.pair_topic_tables(codes, pr.item_topic, q)
    for t, s in enumerate(multi.mean_kappa_by_topic(it, ttabs, values, T)):
        per_topic[r.topics[t]]["mean_pairwise_cohen_kappa"] = s
    topic_pairs: dict[str, list[Pair]] = {}
    for i, j, t, tab, pst in zip(ia.tolist(), ib.tolist(), it.tolist(), ttabs,
                                 _pair_stats(ttabs, values, binary, opts, False), strict=True):
        topic_pairs.setdefault(r.topics[t], []).append(
            Pair(pr.assessors[i], pr.assessors[j], tab, pst))
    per_topic = {t: d for t, d in per_topic.items() if any(s.n for s in d.values())}
    out = Level(name, list(r.scale.values), [g.label for g in r.scale.grades], overall, pairs,
                per_topic, topic_pairs=topic_pairs, icc_dropped=icc_dropped)
    few = len(peers) <= MAX_BOOT_PAIRS
    if gold is not None:
        g = r.index(gold)
        tabs_g = []
        for a in peers:
            i = r.index(a)
            ok = (r.codes[:, i] >= 0) & (r.codes[:, g] >= 0)
            tabs_g.append(pairwise.confusion(r.codes[ok, i], r.codes[ok, g], q))
        stats = _pair_stats(np.stack(tabs_g), values, binary, opts, few, AGAINST_STATS)
        out.gold = [Pair(a, gold, t, s) for a, t, s in zip(peers, tabs_g, stats, strict=True)]
    if len(peers) >= 3:
        tabs_m = [pairwise.confusion(x, y, q) for x, y in majority_of_others(codes, q)]
        stats = _pair_stats(np.stack(tabs_m), values, binary, opts, few, AGAINST_STATS)
        out.majority = [Pair(a, "majority of others", t, s)
                        for a, t, s in zip(pr.assessors, tabs_m, stats, strict=True)]
    return out


@dataclass
class Analysis:
    scale: str
    threshold: int
    assessors: tuple[str, ...]
    gold: str | None
    items: int
    judgments: int
    topics: int
    graded: Level
    binary: Level
    options: Options
    overlap: list[dict[str, Any]] = field(default_factory=list)
    effect: dict[str, Any] | None = None
    notes: list[str] = field(default_factory=list)

    # The dataclass's repr printed every statistic with its intervals (49k characters
    # for two assessors on six items): one line, and a table in a notebook.
    def __repr__(self) -> str:
        from relkit.judging.agreement.view import analysis_repr

        return analysis_repr(self)

    def _repr_html_(self) -> str:
        from relkit.judging.agreement.view import analysis_html

        return analysis_html(self)

    def to_dict(self) -> dict[str, Any]:
        return {"scale": self.scale, "threshold": self.threshold,
                "assessors": list(self.assessors), "gold": self.gold, "items": self.items,
                "judgments": self.judgments, "topics": self.topics,
                "confidence_level": self.options.level,
                "interval": self.options.interval,
                "bootstrap": {"replicates": self.options.replicates, "seed": self.options.seed,
                              "resampling": "items"},
                "graded": self.graded.to_dict(), "binary": self.binary.to_dict(),
                "overlap": self.overlap, "effect_on_conclusions": self.effect,
                "notes": self.notes}


def analyse(r: Ratings, threshold: int | None = None, *, gold: str | None = None,
            opts: Options | None = None,
            step: Callable[[str], None] | None = None) -> Analysis:
    """Every statistic on the graded scale and binarised at ``threshold``.

    ``step(label)`` is called before each level (for a progress bar).
    """
    from relkit.judging.agreement.ir import overlaps

    opts = opts or Options()
    t = r.scale.threshold if threshold is None else threshold
    if gold is not None:
        r.index(gold)
    b = r.binarised(t)
    if step is not None:
        step(f"agreement on the {r.scale.name} scale")
    with gc_paused():
        graded = level(r, "graded", opts, gold)
    if step is not None:
        step(f"agreement binarised at grade >= {t}")
    with gc_paused():
        binary = level(b, "binary", opts, gold)
    out = Analysis(r.scale.name, t, r.assessors, gold, len(r), int((r.codes >= 0).sum()),
                   len(r.topics), graded, binary, opts, overlaps(b))
    out.notes = limits(out)
    return out


def limits(a: Analysis) -> list[str]:
    """What was not computed, and why: every cap is stated, nothing is silently skipped."""
    o = a.options
    notes = [f"per topic: analytic intervals where an SE exists; ordinal alpha per topic: "
             f"bootstrap, {o.topic_replicates} replicates over the topic's items; the per-topic "
             "mean pairwise kappa has no interval (each pair's per-topic statistics carry "
             "analytic intervals in --format json)"]
    pairs = len(a.graded.pairs)
    if o.replicates and pairs > MAX_BOOT_PAIRS:
        notes.append(f"{pairs:,} assessor pairs (> {MAX_BOOT_PAIRS}): per-pair bootstrap "
                     "intervals skipped; every pairwise statistic has an analytic interval")
    peers = len([x for x in a.assessors if x != a.gold])
    if o.replicates and peers > MAX_BOOT_PAIRS and (a.graded.gold or a.graded.majority):
        notes.append(f"{peers:,} assessors (> {MAX_BOOT_PAIRS}): bootstrap intervals against "
                     "gold / the majority skipped; analytic intervals given")
    if a.graded.icc_dropped:
        notes.append(f"ICC: {a.graded.icc_dropped:,} items not judged by every assessor left "
                     "out (ICC needs complete ratings)")
    mpk = a.graded.overall.get("mean_pairwise_cohen_kappa")
    if o.replicates and mpk is not None and mpk.value is not None and mpk.bootstrap is None:
        notes.append(f"mean pairwise kappa: bootstrap skipped above "
                     f"{multi.MAX_BOOT_ASSESSORS} assessors (no analytic SE exists)")
    return notes
