"""Recall against judging effort for cal (BMI) and the run-based strategies, on
Cranfield and Vaswani (complete judgments), and where the knee and target rules stop.

    .venv/bin/python bench/cal_sim.py                      # both collections
    .venv/bin/python bench/cal_sim.py --collection cranfield --budgets 10,25,50,100

Per collection, strategy and budget (judgments per topic, the same for every
strategy): recall = relevant documents judged / every relevant document in the qrels
(micro-averaged over topics) and the per-topic mean. Candidates of the run-based
strategies and of ``cal:from=runs``: the runs' top ``--depth`` (100; Cranfield's six
Lucene runs are 50 deep; Vaswani has none, so BM25, QL and TF-IDF runs are made by
relkit.corpora.systems). ``beyond`` counts the relevant documents cal found that no run
retrieved to that depth. Then cal:from=collection with each stopping rule (budget
``--stop-cap``): judgments spent, recall reached, and the share of topics reaching 70%
recall (the papers' reliability aim). Same seed, same numbers.

The equivalent CLI for one collection (texts as BEIR JSONL):
``relkit pool-simulate QRELS RUN... -s cal:from=collection -s cal -s depth -s mtf -s bandit
--docs docs.jsonl --topics topics.jsonl --depth 100 --budget 10,25,50,100``.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from cal_corpora import qrels, runs, texts  # noqa: E402
from relkit.pooling.cal.strategy import with_collection  # noqa: E402
from relkit.pooling.candidates import Candidates  # noqa: E402
from relkit.pooling.simulate import Plan, grades_of, sequences  # noqa: E402

PLANS = [Plan("cal:from=collection", "cal", {"from": "collection"}),
         Plan("cal:from=runs", "cal", {"from": "runs"}),
         Plan("depth", "depth", {}), Plan("mtf", "mtf", {}), Plan("bandit (MM)", "bandit", {})]


def one(name: str, budgets: list[int], depth: int, seed: int, cap: int) -> None:
    t0 = time.perf_counter()
    src, grades = texts(name), grades_of(qrels(name))
    cands = Candidates.from_runs(runs(name), depth)
    topics = [t for t in cands.topics if any(g > 0 for g in grades.get(t, {}).values())]
    cands = Candidates({t: cands.lists[t] for t in topics},
                       {t: cands.scores[t] for t in topics}, cands.depth, text=src)
    whole = with_collection(cands, src.docs)
    rel = {t: {d for d, g in grades[t].items() if g > 0} for t in topics}
    total = sum(len(r) for r in rel.values())
    in_runs = {t: set(cands.provenance(t)) for t in topics}
    reachable = sum(len(rel[t] & in_runs[t]) for t in topics)
    pool = sum(len(in_runs[t]) for t in topics) / len(topics)
    print(f"\n## {name}: {len(topics)} topics with a relevant document, {total} relevant, "
          f"{reachable} in some run's top {depth} ({len(runs(name))} runs; pool "
          f"{pool:.0f} documents per topic; {len(src.docs)} documents)\n")
    head = " | ".join(f"@{b}" for b in budgets)
    print(f"| strategy | recall {head} | mean per-topic recall @{budgets[-1]} | beyond the "
          f"runs @{budgets[-1]} |\n|---|{'---|' * len(budgets)}---|---|")
    for plan in PLANS:
        c = whole if plan.params.get("from") == "collection" else cands
        seq = sequences(plan, c, grades, max(budgets), seed=seed)
        cells = []
        for b in budgets:
            hit = sum(sum(1 for j in seq.get(t, [])[:b] if j.doc in rel[t]) for t in topics)
            cells.append(f"{hit / total:.1%}")
        per = sum(sum(1 for j in seq.get(t, []) if j.doc in rel[t]) / len(rel[t])
                  for t in topics) / len(topics)
        beyond = sum(sum(1 for j in seq.get(t, []) if j.doc in rel[t] and
                         j.doc not in in_runs[t]) for t in topics)
        print(f"| {plan.label} | {' | '.join(cells)} | {per:.1%} | {beyond} |")
    print(f"\ncal:from=collection with a stopping rule (at most {cap} judgments per topic):\n")
    print("| rule | topics stopped | mean judgments | recall (micro) | mean per-topic recall "
          "| topics with recall >= 70% |\n|---|---|---|---|---|---|")
    for rule in ("knee", "target"):
        stopped: dict[str, int] = {}
        seq = sequences(PLANS[0], whole, grades, cap, seed=seed, stop=rule, stopped=stopped)
        rec = {t: sum(1 for j in seq[t] if j.doc in rel[t]) / len(rel[t]) for t in topics}
        hit = sum(sum(1 for j in seq[t] if j.doc in rel[t]) for t in topics)
        spent = sum(len(seq[t]) for t in topics) / len(topics)
        print(f"| {rule} | {len(stopped)} of {len(topics)} | {spent:.1f} | {hit / total:.1%} "
              f"| {sum(rec.values()) / len(rec):.1%} | "
              f"{sum(r >= 0.7 for r in rec.values()) / len(rec):.1%} |")
    print(f"\n({time.perf_counter() - t0:.0f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--collection", choices=("cranfield", "vaswani"), action="append")
    ap.add_argument("--budgets", default="10,25,50,100")
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--stop-cap", type=int, default=1000)
    a = ap.parse_args()
    budgets = sorted(int(x) for x in a.budgets.split(","))
    for name in a.collection or ["cranfield", "vaswani"]:
        one(name, budgets, a.depth, a.seed, a.stop_cap)


if __name__ == "__main__":
    main()
