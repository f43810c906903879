"""Benchmark peer: pytrec_eval (trec_eval 9.0.8) on a TREC qrels and run file.

Usage: ``python pytrec_eval_run.py QRELS RUN [MEASURE ...]``

Parses both files into ``{qid: {docno: value}}`` dicts in plain Python, evaluates
with ``pytrec_eval.RelevanceEvaluator`` and prints the mean over queries of each
measure, one ``measure<TAB>all<TAB>value`` line per measure (trec_eval names): the
whole job of ``relkit eval`` (read, evaluate, print). The measures default to
MAP, nDCG@10, nDCG, P@10, Recall@100, MRR and R-precision; ``all_trec`` (or any
other pytrec_eval measure or nickname) may be given instead.
"""

from __future__ import annotations

import sys

import pytrec_eval

MEASURES = ("map", "ndcg_cut.10", "ndcg", "P.10", "recall.100", "recip_rank", "Rprec")


def read_qrels(path: str) -> dict[str, dict[str, int]]:
    """``qid iter docno grade`` lines (4 columns) into nested dicts."""
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
    measures = sys.argv[3:] or list(MEASURES)
    qrels = read_qrels(qrels_path)
    run = read_run(run_path)
    per_query = pytrec_eval.RelevanceEvaluator(qrels, set(measures)).evaluate(run)
    n = len(per_query)
    names = sorted(next(iter(per_query.values()))) if n else []
    out = []
    for name in names:
        values = [q[name] for q in per_query.values()]
        if all(isinstance(v, (int, float)) for v in values):
            out.append(f"{name}\tall\t{sum(values) / n:.6f}\n")
    sys.stdout.write("".join(out))


if __name__ == "__main__":
    main()
