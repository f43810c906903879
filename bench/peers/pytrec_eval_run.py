"""Benchmark peer: pytrec_eval (trec_eval 9.0.8) on a TREC qrels and run file.

Usage: ``python pytrec_eval_run.py QRELS RUN``

Parses both files into ``{qid: {docno: value}}`` dicts in plain Python, evaluates
MAP, nDCG@10, nDCG, P@10, Recall@100, MRR and R-precision with
``pytrec_eval.RelevanceEvaluator`` and prints the mean over queries of each, one
``measure<TAB>all<TAB>value`` line per measure (trec_eval names).
"""

from __future__ import annotations

import sys

import pytrec_eval

MEASURES = {"map", "ndcg_cut.10", "ndcg", "P.10", "recall.100", "recip_rank", "Rprec"}
OUTPUT = ("map", "ndcg_cut_10", "ndcg", "P_10", "recall_100", "recip_rank", "Rprec")


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    """``qid docno grade`` lines (4 columns) into nested dicts."""
    qrels: dict[str, dict[str, int]] = {}
    with open(path) as f:
        for line in f:
            qid, _, docno, grade = line.split()
            qrels.setdefault(qid, {})[docno] = int(grade)
    return qrels


def read_run(path: str) -> dict[str, dict[str, float]]:
    """``qid Q0 docno rank score runid`` lines into nested dicts."""
    run: dict[str, dict[str, float]] = {}
    with open(path) as f:
        for line in f:
            qid, _, docno, _, score, _ = line.split()
            run.setdefault(qid, {})[docno] = float(score)
    return run


def main() -> None:
    """Evaluate and print the means."""
    qrels_path, run_path = sys.argv[1:3]
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(run)
    n = len(per_query)
    for name in OUTPUT:
        mean = sum(q[name] for q in per_query.values()) / n
        print(f"{name}\tall\t{mean:.6f}")


if __name__ == "__main__":
    main()
