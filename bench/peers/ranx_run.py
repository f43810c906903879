"""Benchmark peer: ranx on a TREC qrels and run file.

Usage: ``python ranx_run.py QRELS RUN``

Loads with ``Qrels.from_file`` / ``Run.from_file`` (``kind="trec"``) and computes
map, ndcg@10, ndcg, precision@10, recall@100, mrr and r-precision with
``ranx.evaluate``; prints one ``measure<TAB>all<TAB>value`` line per measure
(trec_eval names). ranx compiles its metrics with numba (cached on disk), so the
benchmark warms that cache with one untimed run before timing.
"""

from __future__ import annotations

import sys

from ranx import Qrels, Run, evaluate

MEASURES = {
    "map": "map",
    "ndcg_cut_10": "ndcg@10",
    "ndcg": "ndcg",
    "P_10": "precision@10",
    "recall_100": "recall@100",
    "recip_rank": "mrr",
    "Rprec": "r-precision",
}


def main() -> None:
    """Evaluate and print the means."""
    qrels_path, run_path = sys.argv[1:3]
    qrels = Qrels.from_file(qrels_path, kind="trec")
    run = Run.from_file(run_path, kind="trec")
    means = evaluate(qrels, run, list(MEASURES.values()))
    for name, metric in MEASURES.items():
        print(f"{name}\tall\t{means[metric]:.6f}")


if __name__ == "__main__":
    main()
