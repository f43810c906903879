"""alpha-nDCG@20 and ERR@20 against relkit's nDCG@20 on the same input, and pyndeval.

Input (generated, deterministic for a seed): ``--topics`` topics (10,000) x ``--docs``
retrieved documents (1,000), scores with 3 decimals (some tie); per topic ``--subtopics``
subtopics (5) and 15% of the retrieved documents judged, each for 1-3 subtopics, about a
third of those judgments relevant. The plain qrels for nDCG and ERR are the same
judgments with a document's grade the number of subtopics it is relevant to. Ids are
fixed-width bytes as wide as the longest id, as the file readers give them.

Timed in this process, from the run and qrels already read (reading is the same code for
all, and is not timed), in turns (nDCG, alpha-nDCG, ERR, nDCG, ...) so that a change in
the machine's load hits each; the best of ``--repeat`` turns is kept. Times are CPU
times (user + system of this process, ``time.process_time``): on a shared, loaded
machine wall-clock time measures the other jobs as much as this one.

* relkit nDCG@20: ``Evaluator(qrels, ["nDCG@20"]).compute(run)``, qrels prepared inside;
* relkit alpha_nDCG@20: ``DiversityEvaluator(SubtopicQrels(...), ["alpha_nDCG@20"])
  .compute(run)``: the subtopic ids coded, the qrels prepared, the greedy ideal built;
* relkit ERR@20: ``Evaluator(qrels, ["ERR@20"]).compute(run)`` (the plain qrels);
* pyndeval alpha-nDCG@20 (the peer), from its own tuples (``--peer-topics`` of them,
  1,000 by default, scaled to all topics: it is per-topic Python and C).

Then the cost of each further run once the qrels are prepared (``compute`` again on the
same evaluator). The target (issue 19): alpha_nDCG and ERR within 1.5x of nDCG.
Usage::

    .venv/bin/python bench/diversity_bench.py [--topics 10000] [--docs 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

import numpy as np


def generate(topics: int, docs: int, subtopics: int, seed: int
             ) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The run's columns and the subtopic judgments' columns (numpy, vectorised)."""
    rng = np.random.default_rng(seed)
    qid = np.repeat(np.arange(topics), docs)
    doc = np.tile(np.arange(docs), topics) + rng.integers(0, 50_000, topics * docs) * docs
    score = np.round(rng.random(topics * docs) * 100, 3)
    judged = rng.random(topics * docs) < 0.15
    jq, jd = qid[judged], doc[judged]
    per = rng.integers(1, 4, len(jq))                 # subtopics each judged document has
    sq, sd = np.repeat(jq, per), np.repeat(jd, per)
    first = rng.integers(0, subtopics, len(jq))
    step = np.arange(len(sq)) - np.repeat(np.cumsum(per) - per, per)
    ss = (np.repeat(first, per) + step) % subtopics    # distinct subtopics per document
    grade = (rng.random(len(sq)) < 0.33).astype(np.int64)
    run = {"query_id": qid.astype(str), "doc_id": ("D" + doc.astype(str).astype(object))
           .astype(str), "score": score}
    sub = {"query_id": sq.astype(str), "subtopic": ss.astype(str),
           "doc_id": ("D" + sd.astype(str).astype(object)).astype(str), "relevance": grade}
    return run, sub


def turns(fns: dict[str, Callable[[], object]], repeat: int) -> dict[str, float]:
    """The best CPU time (user + system) of each of ``fns``, run in turns."""
    best = {name: float("inf") for name in fns}
    for _ in range(repeat):
        for name, fn in fns.items():
            start = time.process_time()
            fn()
            best[name] = min(best[name], time.process_time() - start)
    return best


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--topics", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=1_000)
    ap.add_argument("--subtopics", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--peer-topics", type=int, default=1_000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    import pyarrow as pa

    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.diversity.evaluator import DiversityEvaluator
    from relkit.metrics.diversity.subtopics import SubtopicQrels
    from relkit.metrics.evaluator import Evaluator

    run_cols, sub_cols = generate(args.topics, args.docs, args.subtopics, args.seed)
    run = Run(pa.table({"query_id": run_cols["query_id"], "iteration": np.full(
        len(run_cols["score"]), "Q0"), "doc_id": run_cols["doc_id"], "rank": np.zeros(
        len(run_cols["score"]), np.int64), "score": run_cols["score"], "run_id": np.full(
        len(run_cols["score"]), "bench")}), "<bench run>")
    # as the file readers give ids: bytes as wide as the longest (astype("S") of these
    # str columns would keep numpy's 21 characters of an int)
    ids = [np.char.encode(sub_cols[c]) for c in ("query_id", "subtopic", "doc_id")]

    def subtopic_qrels() -> SubtopicQrels:
        # coding the ids (np.unique) is part of the timed work, as preparing the plain
        # qrels is part of Evaluator's
        return SubtopicQrels(*ids, sub_cols["relevance"], "<bench>")

    sub = subtopic_qrels()
    # plain qrels: a document's grade is how many subtopics it is relevant to
    key = np.char.add(np.char.add(sub_cols["query_id"], " "), sub_cols["doc_id"])
    uniq, inv = np.unique(key, return_inverse=True)
    grade = np.bincount(inv, weights=sub_cols["relevance"]).astype(np.int64)
    parts = np.char.partition(uniq, " ")
    qrels = Qrels(pa.table({"query_id": parts[:, 0], "iteration": np.full(len(uniq), "0"),
                            "doc_id": parts[:, 2], "relevance": grade}), "<bench qrels>")
    print(f"input: {args.topics:,} topics x {args.docs:,} docs ({len(run_cols['score']):,} "
          f"run lines), {len(sub):,} subtopic judgments ({args.subtopics} subtopics/topic), "
          f"{len(uniq):,} plain judgments")

    best = turns({
        "ndcg": lambda: Evaluator(qrels, ["nDCG@20"]).compute(run),
        "alpha": lambda: DiversityEvaluator(subtopic_qrels(), ["alpha_nDCG@20"]).compute(run),
        "err": lambda: Evaluator(qrels, ["ERR@20"]).compute(run)}, args.repeat)
    every = turns({"every": lambda: DiversityEvaluator(subtopic_qrels()).compute(run)}, 1)
    # prepare once, evaluate many: the cost of each further run against the same qrels
    ev_n = Evaluator(qrels, ["nDCG@20"])
    ev_a = DiversityEvaluator(subtopic_qrels(), ["alpha_nDCG@20"])
    ev_e = Evaluator(qrels, ["ERR@20"])
    for ev in (ev_n, ev_a, ev_e):
        ev.compute(run)                    # builds the prepared qrels and greedy ideal
    again = turns({"ndcg": lambda: ev_n.compute(run), "alpha": lambda: ev_a.compute(run),
                   "err": lambda: ev_e.compute(run)}, args.repeat)

    import pyndeval

    n_peer = min(args.peer_topics, args.topics)
    keep_run = run_cols["query_id"].astype(np.int64) < n_peer
    keep_sub = sub_cols["query_id"].astype(np.int64) < n_peer
    p_qrels = list(zip(sub_cols["query_id"][keep_sub].tolist(),
                       sub_cols["subtopic"][keep_sub].tolist(),
                       sub_cols["doc_id"][keep_sub].tolist(),
                       sub_cols["relevance"][keep_sub].tolist(), strict=True))
    p_run = list(zip(run_cols["query_id"][keep_run].tolist(),
                     run_cols["doc_id"][keep_run].tolist(),
                     run_cols["score"][keep_run].tolist(), strict=True))
    peer = turns({"peer": lambda: pyndeval.ndeval(p_qrels, p_run, ["alpha-nDCG@20"])}, 1)
    peer_all = peer["peer"] * args.topics / n_peer
    ndcg, alpha, err = best["ndcg"], best["alpha"], best["err"]

    print(f"CPU seconds (user + system), best of {args.repeat} turns")
    print(f"relkit nDCG@20                 {ndcg:8.3f} s")
    print(f"relkit alpha_nDCG@20           {alpha:8.3f} s   ratio to nDCG@20: "
          f"{alpha / ndcg:.2f} (target <= 1.5)")
    print(f"relkit ERR@20                  {err:8.3f} s   ratio to nDCG@20: "
          f"{err / ndcg:.2f} (target <= 1.5)")
    print(f"relkit ndeval's 21 measures    {every['every']:8.3f} s   ratio to nDCG@20: "
          f"{every['every'] / ndcg:.2f} (one turn)")
    print(f"per further run, qrels prepared: nDCG@20 {again['ndcg']:.3f} s, alpha_nDCG@20 "
          f"{again['alpha']:.3f} s (ratio {again['alpha'] / again['ndcg']:.2f}), ERR@20 "
          f"{again['err']:.3f} s (ratio {again['err'] / again['ndcg']:.2f})")
    print(f"pyndeval alpha-nDCG@20         {peer_all:8.3f} s   ({peer['peer']:.3f} s on "
          f"{n_peer:,} topics, scaled; ratio to relkit alpha_nDCG@20: {peer_all / alpha:.2f})")

if __name__ == "__main__":
    main()
