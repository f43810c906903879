"""Replay pooling strategies against a complete qrels (``relkit pool-simulate``).

For each strategy and topic, a simulated assessor answers with the reference
qrels' grade (a document absent from them is judged non-relevant, 0). A
negative grade means what it means everywhere in relkit
(:mod:`relkit.metrics.readers.grades`): *pooled, not judged*. The simulated
assessor has no judgment to give for such a document: the strategy learns
"not relevant" from it (:func:`~relkit.metrics.readers.grades.relevance`), and the
judgments so far keep it at -1, so Judged@10 here and in ``relkit
pool-coverage`` / ``relkit eval`` agree. A static strategy judges in its
priority order; an adaptive one through ``next()``/``record()``. After B
judgments per topic we report:

* relevant documents found (grade >= level), as a count, as a share of the
  relevant documents any run retrieved (the most a pool can find), and as a
  share of all relevant documents in the qrels;
* Kendall's tau between the system ordering by a measure (default AP/MAP)
  under the judgments so far (the rest unjudged, hence non-relevant) and under
  the full qrels (:func:`relkit.metrics.compare.correlation.kendall_tau`);
* mean Judged@10 of the runs under the judgments so far.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from relkit.metrics.compare.correlation import kendall_tau
from relkit.metrics.data import Qrels, Run
from relkit.metrics.readers.grades import relevance
from relkit.pooling.adaptive import AdaptivePool, Judgment
from relkit.pooling.build import judging_order
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError


@dataclass(frozen=True)
class Plan:
    """One strategy to simulate, under a label (``bandit:thompson``)."""

    label: str
    strategy: str
    params: Mapping[str, Any]


@dataclass(frozen=True)
class SimRow:
    label: str
    budget: int
    judged: int
    relevant: int
    relevant_in_runs: int
    relevant_total: int
    tau: float | None
    judged_at_10: float

    @property
    def found_share(self) -> float:
        return self.relevant / self.relevant_in_runs if self.relevant_in_runs else 0.0

    @property
    def recall(self) -> float:
        return self.relevant / self.relevant_total if self.relevant_total else 0.0


@dataclass(frozen=True)
class Simulation:
    rows: list[SimRow]
    curves: dict[str, list[int]]     # label -> relevant found after n judgments per topic
    # label -> {topic: judgments when the stopping rule said stop} (adaptive, with --stop)
    stopped: dict[str, dict[str, int]] = field(default_factory=dict)


def grades_of(qrels: Qrels) -> dict[str, dict[str, int]]:
    """``{topic: {doc: grade}}`` as the qrels give them (-1: pooled, not judged)."""
    from relkit.metrics.core.errors import DuplicateDocumentError

    t = qrels.arrow()
    out: dict[str, dict[str, int]] = {}
    for row, (q, d, g) in enumerate(zip(t["query_id"].to_pylist(), t["doc_id"].to_pylist(),
                                        t["relevance"].to_pylist(), strict=True)):
        inner = out.setdefault(q, {})
        if d in inner:  # two grades for one document: which one is the assessor's?
            raise DuplicateDocumentError(qrels.source, qrels.line_of(row), q, d)
        inner[d] = int(g)
    return out


def sequences(plan: Plan, cands: Candidates, grades: Mapping[str, Mapping[str, int]],
              max_budget: int, *, seed: int = 0, level: int = 1, stop: str | None = None,
              stopped: dict[str, int] | None = None) -> dict[str, list[Judgment]]:
    """Each topic's judgments, in the order the strategy asks for them.

    ``stop``: a stopping rule for an adaptive strategy (:mod:`relkit.pooling.stopping`;
    static ones judge their order regardless); the topics it stopped go into
    ``stopped`` with the judgments each took.
    """
    from relkit.pooling.strategies import get

    s = get(plan.strategy)
    out: dict[str, list[Judgment]] = {}
    if s.kind == "static":
        order = judging_order(plan.strategy, cands, plan.params)
        for t, docs in order.items():
            g = grades.get(t, {})
            out[t] = [Judgment(t, d, g.get(d, 0)) for d, _ in docs[:max_budget]]
        return out
    top = max((g for per in grades.values() for g in per.values()), default=1)
    pool = AdaptivePool(plan.strategy, cands, plan.params, seed=seed, level=level,
                        max_grade=max(top, level), stop=stop)
    for t in cands.topics:
        g = grades.get(t, {})
        seq = pool.run(t, lambda d, g=g: relevance(g.get(d, 0)), max_budget)  # type: ignore[misc]
        if stop is not None and stopped is not None:
            at = pool.stopped_after(t)
            if at is not None:
                stopped[t] = at
        # the strategy learnt "not relevant" from a -1; what was judged keeps the -1
        out[t] = [Judgment(t, j.doc, g.get(j.doc, 0)) for j in seq]
    return out


def _scores(qrels: Qrels, runs: Mapping[str, Run], measure: str, level: int
            ) -> tuple[dict[str, float], dict[str, float]]:
    from relkit.metrics.evaluator import Evaluator

    ev = Evaluator(qrels, [measure, "Judged@10"], level=level)
    score, judged = {}, {}
    for name, run in runs.items():
        s = ev.aggregate(run)
        score[name] = float(s.iloc[0])
        judged[name] = float(s.iloc[1])
    return score, judged


def simulate(qrels: Qrels, runs: Mapping[str, Run], plans: Sequence[Plan],
             budgets: Sequence[int], *, depth: int | None = None, seed: int = 0,
             level: int = 1, measure: str = "map",
             progress: Callable[[str], None] | None = None,
             stop: str | None = None, texts: Any = None) -> Simulation:
    """Simulate every plan at every per-topic budget (see the module docstring);
    ``stop``: a stopping rule for the adaptive plans (a topic judges no more after it);
    ``texts``: the documents' and topics' text (a
    :class:`relkit.pooling.cal.texts.TextSource`) for strategies that read it (``cal``).
    ``found_share`` stays a share of the relevant documents the runs retrieved, so
    ``cal:from=collection`` can pass 100%."""
    if not budgets or any(isinstance(b, bool) or not isinstance(b, int) or b < 1
                          for b in budgets):
        raise PoolingError(f"The 'budget' parameter of pool-simulate must be ints >= 1; "
                           f"got {list(budgets)!r}")
    qrels = Qrels.coerce(qrels)
    grades = grades_of(qrels)
    cands = Candidates.from_runs(runs, depth)
    topics = [t for t in cands.topics if t in grades]
    if not topics:
        raise PoolingError(f"{qrels.source}: no topic of the runs is in the qrels")
    cands = Candidates({t: cands.lists[t] for t in topics},
                       {t: cands.scores[t] for t in topics}, cands.depth, text=texts)
    in_runs = sum(1 for t in topics for d in cands.provenance(t)
                  if grades[t].get(d, 0) >= level)
    total = sum(1 for t in topics for g in grades[t].values() if g >= level)
    full = Qrels.from_dict({t: dict(grades[t]) for t in topics})
    ref, _ = _scores(full, runs, measure, level)
    rows: list[SimRow] = []
    curves: dict[str, list[int]] = {}
    top = max(budgets)
    halted: dict[str, dict[str, int]] = {}
    for plan in plans:
        if progress is not None:
            progress(plan.label)
        seq = sequences(plan, _candidates(plan, cands, texts), grades, top, seed=seed,
                        level=level, stop=stop,
                        stopped=halted.setdefault(plan.label, {}))
        curve = [0] * (top + 1)
        for js in seq.values():
            hits = 0
            for n in range(1, top + 1):
                if n <= len(js) and js[n - 1].grade >= level:
                    hits += 1
                curve[n] += hits
        curves[plan.label] = curve
        for b in sorted(budgets):
            judged = {t: {j.doc: j.grade for j in js[:b]} for t, js in seq.items()}
            n = sum(len(v) for v in judged.values())
            sub = Qrels.from_dict({t: v for t, v in judged.items() if v})
            score, j10 = _scores(sub, runs, measure, level)
            tau = kendall_tau(ref, score).value
            rows.append(SimRow(plan.label, b, n, curve[b], in_runs, total, tau,
                               sum(j10.values()) / len(j10)))
    return Simulation(rows, curves, {k: v for k, v in halted.items() if v})


def _candidates(plan: Plan, cands: Candidates, texts: Any) -> Candidates:
    """What ``plan`` chooses from: ``cal:from=collection`` adds every document."""
    if plan.strategy != "cal" or plan.params.get("from") != "collection":
        return cands
    if texts is None:
        raise PoolingError("cal needs the documents' and topics' text (--docs, --topics)")
    from relkit.pooling.cal.strategy import with_collection

    return with_collection(cands, texts.docs, texts)


def plot(sim: Simulation, path: str, *, title: str = "") -> None:
    """Relevant found vs judgments per topic, one line per strategy (SVG/PNG/PDF by suffix);
    see :mod:`relkit.pooling.simulate_plot`."""
    from relkit.pooling.simulate_plot import save  # matplotlib: only with --plot

    save(sim.curves, sorted({r.budget for r in sim.rows}), path, title=title)
