"""Evaluating a run held in memory, as each tool takes it: a pytrec_eval-shaped dict.

    .venv/bin/python bench/convert_bench.py [--topics 1000] [--depth 1000]

Builds qrels and a run as ``{qid: {docid: value}}`` dicts (the shape pytrec_eval, ranx
and relkit all take), then times, on the same data and measures (AP, nDCG@10, P@10):
relkit (``Evaluator(qrels_dict, ...).aggregate(run_dict)``, the conversion included),
ranx (``evaluate(Qrels(d), Run(d), ...)``, its conversion included), ir_measures
(``calc_aggregate`` on the dicts) and pytrec_eval. Prints the times and the ratios
(peer / relkit; relkit's second call, as the peers' imports are not timed either), and
checks the numbers agree. Speed is measured, not asserted. The
run has no tied scores, even in single precision, so ranx's tie order and trec_eval 9's
float32 scores do not matter.
"""

from __future__ import annotations

import argparse
import math
import time
from typing import Any


def make(topics: int, depth: int, seed: int = 0) -> tuple[dict[str, Any], dict[str, Any]]:
    import numpy as np

    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for t in range(topics):
        docs = [f"d{i}" for i in rng.choice(depth * 5, size=depth, replace=False)]
        # distinct even in single precision (pytrec_eval, so ir_measures, ranks on
        # float32 scores: trec_eval 9), so every tool ranks the same way
        scores = np.arange(depth, 0, -1, dtype=np.float64) / 8
        run[str(t)] = dict(zip(docs, scores.tolist(), strict=True))
        judged = rng.choice(depth * 5, size=depth // 2, replace=False)
        qrels[str(t)] = {f"d{i}": int(g) for i, g in zip(
            judged, rng.choice(4, size=len(judged), p=[0.6, 0.2, 0.1, 0.1]), strict=True)}
    return qrels, run


def timed(fn: Any) -> tuple[Any, float]:
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=1000)
    args = ap.parse_args()
    qrels, run = make(args.topics, args.depth)
    print(f"{args.topics} topics x {args.depth} documents "
          f"({sum(map(len, run.values())):,} run rows, {sum(map(len, qrels.values())):,} "
          "judgments), as dicts")

    from relkit.metrics.evaluator import Evaluator

    def relkit() -> Any:
        return Evaluator(qrels, ["AP", "nDCG@10", "P@10"]).aggregate(run)

    # The first call imports pandas and pyarrow (once per process); the peers' imports
    # are outside their timings, so the ratios use the second call.
    ours, t_cold = timed(relkit)
    ours, t_ours = timed(relkit)
    rows = [("relkit", t_ours)]
    print(f"  relkit first call, imports included: {t_cold:.2f} s")
    peers: dict[str, dict[str, float]] = {}
    try:
        import ranx

        got, t = timed(lambda: ranx.evaluate(ranx.Qrels(qrels), ranx.Run(run),
                                             ["map", "ndcg@10", "precision@10"]))
        peers["ranx"] = {"AP": got["map"], "nDCG@10": got["ndcg@10"], "P@10": got["precision@10"]}
        rows.append(("ranx", t))
    except ImportError:
        print("ranx not installed (pip install ranx)")
    try:
        import ir_measures
        from ir_measures import AP, P, nDCG

        got, t = timed(lambda: ir_measures.calc_aggregate([AP, nDCG @ 10, P @ 10], qrels, run))
        peers["ir_measures"] = {"AP": got[AP], "nDCG@10": got[nDCG @ 10], "P@10": got[P @ 10]}
        rows.append(("ir_measures", t))
    except ImportError:
        print("ir_measures not installed (pip install ir-measures)")
    try:
        import pytrec_eval

        def pytrec() -> dict[str, float]:
            per = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut.10", "P.10"}).evaluate(
                run)
            n = len(per)
            return {k: sum(q[m] for q in per.values()) / n
                    for k, m in (("AP", "map"), ("nDCG@10", "ndcg_cut_10"), ("P@10", "P_10"))}

        peers["pytrec_eval"], t = timed(pytrec)
        rows.append(("pytrec_eval", t))
    except ImportError:
        print("pytrec_eval not installed (pip install pytrec-eval-terrier)")
    for name, t in rows:
        print(f"  {name:12s} {t:8.2f} s   ratio {t / t_ours:6.2f}")
    for name, values in peers.items():
        for m, v in values.items():
            same = math.isclose(float(ours[m]), float(v), rel_tol=1e-9, abs_tol=1e-12)
            mark = "=" if same else "DIFFERS"
            print(f"  {name:12s} {m:8s} {v:.6f}  relkit {ours[m]:.6f}  {mark}")


if __name__ == "__main__":
    main()
