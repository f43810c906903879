r"""Automatic judges (LLM assessors) against the human grades of the same pairs.

For each judge, on the pairs both it and the humans graded: Cohen's kappa
unweighted, linearly and quadratically weighted, and on the grades binarised at
the scale's threshold; Krippendorff's alpha (ordinal and interval); the
confusion matrix (rows: human grade, columns: judge grade) and the mean grade
shift (judge minus human). These are the statistics the LLMJudge challenge
(Rahmani et al., "LLMJudge: LLMs for relevance judgments", LLM4Eval workshop at
SIGIR 2024, arXiv:2408.08896) and UMBRELA
(Upadhyay et al., "UMBRELA: UMbrela is the (open-source reproduction of the)
Bing RELevance Assessor", arXiv:2406.06519, 2024) report, computed with
relkit's own agreement code (:mod:`relkit.judging.agreement.pairwise`,
:mod:`relkit.judging.agreement.multi`).

With runs, :func:`ranking_effect` asks what the papers ask next: do the
judge's qrels rank systems as the humans' do? Kendall's tau and tau_AP
(Yilmaz, Aslam & Robertson, SIGIR 2008; the human ordering is the reference)
between the system orderings by a measure's mean, and the significant-pair
flips: system pairs significantly different (two-sided paired t-test over
topics, alpha 0.05, no correction for multiple comparisons) under one qrels
whose conclusion is lost, gained or reversed under the other.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from itertools import combinations
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.judging.agreement.frame import AgreementError

if TYPE_CHECKING:
    from relkit.corpora.types import RelevanceScale
    from relkit.metrics.data import Run

Pair = tuple[str, str]          # (topic, doc)
Grades = Mapping[Pair, int]
ALPHA = 0.05
TEST = "two-sided paired t-test over topics (scipy.stats.ttest_rel), alpha 0.05, uncorrected"


@dataclass(frozen=True, kw_only=True)
class RankingEffect:
    """One judge's qrels against the humans' for ranking systems by ``measure``."""

    topics: int
    kendall_tau: float | None
    tau_ap: float | None               # the human ordering as the reference
    significant_human: int             # system pairs significant under the human qrels
    significant_judge: int
    lost: int                          # significant under the humans, not under the judge
    gained: int                        # significant under the judge, not under the humans
    reversed: int                      # significant under both, opposite ways
    system_pairs: int
    reason: str | None = None          # why tau is undefined
    means: dict[str, float] = field(default_factory=dict)   # mean measure per system

    @property
    def flips(self) -> int:
        """Conclusions that differ: lost + gained + reversed."""
        return self.lost + self.gained + self.reversed


@dataclass(frozen=True)
class JudgeAgreement:
    """One automatic judge against the human grades, on the pairs both graded."""

    judge: str
    items: int
    kappa: float | None
    kappa_linear: float | None
    kappa_quadratic: float | None
    kappa_binary: float | None          # grades binarised at the threshold
    alpha_ordinal: float | None
    alpha_interval: float | None
    shift: float | None                 # mean (judge grade - human grade)
    confusion: list[list[int]]          # [human grade][judge grade], the scale's grades
    only_human: int = 0                 # pairs the humans graded and the judge did not
    only_judge: int = 0
    ranking: RankingEffect | None = None

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        if self.ranking is not None:
            out["ranking"]["flips"] = self.ranking.flips
        return out


def _value(x: np.ndarray) -> float | None:
    v = float(np.asarray(x).ravel()[0])
    return v if np.isfinite(v) else None


def agreement(name: str, human: Grades, judge: Grades, scale: RelevanceScale,
              threshold: int | None = None) -> JudgeAgreement:
    """``judge``'s grades against ``human``'s on the pairs both graded.

    Grades are the scale's values; weights and distances are built from every
    grade of ``scale`` (used or not). ``threshold`` (default: the scale's)
    binarises for ``kappa_binary``. A statistic is ``None`` where undefined
    (no shared pair; both used a single grade).
    """
    from relkit.judging.agreement.multi import krippendorff_alpha, patterns
    from relkit.judging.agreement.pairwise import confusion, get

    values = np.asarray(scale.values)
    pos = {v: i for i, v in enumerate(scale.values)}
    shared = sorted(set(human) & set(judge))
    k = len(values)
    x = np.array([pos[human[p]] for p in shared], dtype=np.int64)
    y = np.array([pos[judge[p]] for p in shared], dtype=np.int64)
    table = confusion(x, y, k)
    level = scale.threshold if threshold is None else threshold
    cut = int(np.searchsorted(values, level))          # positions >= cut are relevant
    binary = confusion((x >= cut).astype(np.int64), (y >= cut).astype(np.int64), 2)

    def kappa(stat: str, t: np.ndarray, vals: np.ndarray) -> float | None:
        return _value(get(stat).compute(t[None], vals)) if len(shared) > 1 else None

    def alpha(metric: str) -> float | None:
        if len(shared) < 2:
            return None
        pat = patterns(np.stack([x, y], axis=1), k)
        return _value(krippendorff_alpha(metric)(pat.counts, pat.freq[None, :], values))  # type: ignore[arg-type]

    shift = float(np.mean(values[y] - values[x])) if len(shared) else None
    return JudgeAgreement(
        name, len(shared), kappa("cohen_kappa", table, values),
        kappa("cohen_kappa_linear", table, values), kappa("cohen_kappa_quadratic", table, values),
        kappa("cohen_kappa", binary, np.array([0, 1])), alpha("ordinal"), alpha("interval"),
        shift, table.astype(int).tolist(), len(set(human) - set(judge)),
        len(set(judge) - set(human)))


def _per_topic(grades: Grades, runs: Mapping[str, Run], measure: str, level: int,
               source: str) -> dict[str, dict[str, float]]:
    """run -> topic -> value of ``measure`` under ``grades`` (a topic a run missed: 0)."""
    import pandas as pd

    from relkit.metrics.data import Qrels
    from relkit.metrics.evaluator import Evaluator

    keys = list(grades)
    frame = pd.DataFrame({"query_id": [t for t, _ in keys], "doc_id": [d for _, d in keys],
                          "relevance": [grades[p] for p in keys]})
    # ``source`` names the grades in errors ("... judgments in the human grades").
    ev = Evaluator(Qrels.from_frame(frame, source), [measure], level=level)
    out = {}
    for name, run in runs.items():
        res = ev.compute(run)
        v = res.values[0]
        out[name] = {t: (0.0 if res.missing[i] else float(v[i]))
                     for i, t in enumerate(res.topics)}
    return out


def ranking_effect(human: Grades, judges: Mapping[str, Grades], runs: Mapping[str, Run],
                   measure: str = "nDCG@10", level: int = 1, alpha: float = ALPHA
                   ) -> tuple[dict[str, float], dict[str, RankingEffect]]:
    """The systems' mean ``measure`` under the human qrels, and each judge's effect.

    Each judge is compared with the humans on the topics both graded (mean over
    those topics under both qrels). ``level`` is the lowest relevant grade for
    binary measures (``-l``). See the module docstring for the statistics.
    """
    from relkit.judging.agreement.ir import _conclusion
    from relkit.metrics.compare.correlation import kendall_tau, tau_ap
    from relkit.metrics.core.levels import check_unit

    check_unit("ranking_effect", "alpha", alpha, AgreementError)
    if len(runs) < 2:
        raise AgreementError("ranking systems needs two or more runs (--runs)")
    systems = sorted(runs)
    base = _per_topic(human, runs, measure, level, "the human grades")
    human_topics = {t for t, _ in human}
    out: dict[str, RankingEffect] = {}
    human_means = {s: float(np.mean([base[s].get(t, 0.0) for t in sorted(human_topics)]))
                   for s in systems}
    for name, grades in judges.items():
        per = _per_topic(grades, runs, measure, level, f"judge {name!r}'s grades")
        topics = sorted(human_topics & {t for t, _ in grades})
        xh, xj = (np.array([[p[s].get(t, 0.0) for t in topics] for s in systems])
                  for p in (base, per))
        npairs = len(systems) * (len(systems) - 1) // 2
        if len(topics) < 2:
            out[name] = RankingEffect(topics=len(topics), kendall_tau=None, tau_ap=None,
                                      significant_human=0, significant_judge=0, lost=0,
                                      gained=0, reversed=0, system_pairs=npairs,
                                      reason="fewer than two topics graded by both")
            continue
        mh = dict(zip(systems, xh.mean(axis=1).tolist(), strict=True))
        mj = dict(zip(systems, xj.mean(axis=1).tolist(), strict=True))
        tau, tap = kendall_tau(mh, mj), tau_ap(mh, mj)
        sh = sj = lost = gained = rev = 0
        for i, j in combinations(range(len(systems)), 2):
            ch, cj = _conclusion(xh[i], xh[j], alpha), _conclusion(xj[i], xj[j], alpha)
            sh += ch != 0
            sj += cj != 0
            lost += ch != 0 and cj == 0
            gained += ch == 0 and cj != 0
            rev += ch * cj < 0
        out[name] = RankingEffect(topics=len(topics), kendall_tau=tau.value, tau_ap=tap.value,
                                  significant_human=sh, significant_judge=sj, lost=lost,
                                  gained=gained, reversed=rev, system_pairs=npairs,
                                  reason=tau.reason or tap.reason or None, means=mj)
    return human_means, out


def compare(human: Grades, judges: Mapping[str, Grades], scale: RelevanceScale, *,
            threshold: int | None = None, runs: Mapping[str, Run] | None = None,
            measure: str = "nDCG@10") -> JudgesReport:
    """Every judge against the humans; with ``runs``, the ranking effect too."""
    if not human:
        raise AgreementError("no human grades to compare the judges with")
    if not judges:
        raise AgreementError("no automatic judges to compare")
    rows = [agreement(n, human, judges[n], scale, threshold) for n in judges]
    means: dict[str, float] = {}
    if runs:
        level = scale.threshold if threshold is None else threshold
        means, effects = ranking_effect(human, judges, runs, measure, level)
        rows = [replace(r, ranking=effects[r.judge]) for r in rows]
    return JudgesReport(list(scale.values), scale.threshold if threshold is None else threshold,
                        len(human), rows, measure if runs else None,
                        sorted(runs) if runs else [], means)


@dataclass(frozen=True)
class JudgesReport:
    """What ``relkit judges`` prints: one :class:`JudgeAgreement` per judge."""

    grades: list[int]
    threshold: int
    human_pairs: int
    judges: list[JudgeAgreement]
    measure: str | None = None
    systems: list[str] = field(default_factory=list)
    human_means: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"grades": self.grades, "threshold": self.threshold,
                "human_pairs": self.human_pairs, "measure": self.measure,
                "test": TEST if self.measure else None, "systems": self.systems,
                "human_means": self.human_means,
                "judges": [j.to_dict() for j in self.judges]}


def judge_grades(lines: Sequence[Any]) -> dict[str, dict[Pair, int]]:
    """assessor -> (topic, doc) -> grade, from judgment lines (a pair twice: refused)."""
    out: dict[str, dict[Pair, int]] = {}
    seen: dict[tuple[str, str, str], Any] = {}
    for r in lines:
        first = seen.setdefault((r.assessor, r.topic, r.doc), r)
        if first is not r:
            raise AgreementError(f"{r.source}:{r.line}: {r.assessor!r} graded topic {r.topic!r} "
                                 f"document {r.doc!r} already at {first.source}:{first.line}")
        out.setdefault(r.assessor, {})[(r.topic, r.doc)] = r.grade
    return out
