"""Benchmark peer: ir_measures on a TREC qrels and run file.

Usage: ``python ir_measures_run.py QRELS RUN``

Reads with ``ir_measures.read_trec_qrels`` / ``read_trec_run`` and computes
AP, nDCG@10, nDCG, P@10, R@100, RR and Rprec with ``ir_measures.calc_aggregate``;
prints one ``measure<TAB>all<TAB>value`` line per measure (trec_eval names).
"""

from __future__ import annotations

import sys

import ir_measures
from ir_measures import AP, RR, P, R, Rprec, nDCG

MEASURES = {
    "map": AP,
    "ndcg_cut_10": nDCG @ 10,
    "ndcg": nDCG,
    "P_10": P @ 10,
    "recall_100": R @ 100,
    "recip_rank": RR,
    "Rprec": Rprec,
}


def main() -> None:
    """Evaluate and print the means."""
    qrels_path, run_path = sys.argv[1:3]
    qrels = ir_measures.read_trec_qrels(qrels_path)
    run = ir_measures.read_trec_run(run_path)
    means = ir_measures.calc_aggregate(MEASURES.values(), qrels, run)
    for name, measure in MEASURES.items():
        print(f"{name}\tall\t{means[measure]:.6f}")


if __name__ == "__main__":
    main()
