"""Judgments each pair strategy needs to recover the top 10 of each Cranfield topic.

Usage: python bench/prefs_strategies.py [--pool 20] [--noise 0.1] [--topics N] [--seed 0]
       python bench/prefs_strategies.py --sizes 10,20,40

Each topic's pool is its judged documents (Cranfield's graded qrels, relkit's 0-4 scale:
relkit.corpora.known.CRANFIELD_GRADES) topped up to --pool with the best unjudged
documents of the BM25 run in ../shared/corpora/cranfield/runs (grade 0), cut to --pool
by grade then BM25 rank. The simulated assessor (relkit.pooling.pairs.simulate) answers
by the true grades, with probability --noise at random; top-k's graded pre-filter costs
one graded judgment per document. Printed per strategy: topics, topics whose top 10 was
recovered at the end, judgments needed to recover it (mean and median over the recovered
topics, graded judgments included), answers asked in all (mean), and CPU seconds.

--sizes: answers each strategy asks before it is done, for n documents, without noise:
five seeded pools per n with grades drawn uniformly from 0-4 (top-k's graded judgments
not counted; all-pairs asks n(n-1)/2 by construction and is not run).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CRAN = ROOT.parent / "shared" / "corpora" / "cranfield"

from relkit.corpora.known import CRANFIELD_GRADES  # noqa: E402
from relkit.pooling.pairs import names  # noqa: E402
from relkit.pooling.pairs.simulate import run_topic  # noqa: E402


def cranfield(pool: int) -> dict[str, tuple[list[str], dict[str, int]]]:
    truth: dict[str, dict[str, int]] = {}
    for line in (CRAN / "cranqrel").read_text().splitlines():
        q, d, code = line.split()[:3]
        truth.setdefault(q, {})[d] = CRANFIELD_GRADES[int(code)]
    ranked: dict[str, list[str]] = {}
    for line in (CRAN / "runs" / "taylorj8" / "BM25Similarity_results.txt").read_text() \
            .splitlines():
        q, _, d, rank, *_ = line.split()
        ranked.setdefault(q, []).append(d)
    out = {}
    for q, grades in truth.items():
        bm25 = ranked.get(q, [])
        order = {d: r for r, d in enumerate(bm25)}
        judged = sorted(grades, key=lambda d: (-grades[d], order.get(d, len(bm25)), d))
        extra = [d for d in bm25 if d not in grades]
        docs = (judged + extra)[:pool]
        out[q] = (docs, {d: grades.get(d, 0) for d in docs})
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pool", type=int, default=20)
    ap.add_argument("--noise", type=float, default=0.1)
    ap.add_argument("--topics", type=int, default=None, help="only the first N topics")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--strategies", default=",".join(names()))
    ap.add_argument("--sizes", default=None, help="comma-separated n: the answers table")
    args = ap.parse_args()
    if args.sizes:
        return sizes([int(n) for n in args.sizes.split(",")])
    topics = cranfield(args.pool)
    keys = sorted(topics, key=int)[:args.topics]
    print(f"Cranfield: {len(keys)} topics, pool {args.pool}, noise {args.noise}, "
          f"seed {args.seed}, top 10")
    print("| strategy | topics | recovered | judgments needed (mean) | (median) | "
          "answers asked (mean) | CPU s |")
    print("|---|---|---|---|---|---|---|")
    for name in args.strategies.split(","):
        t0 = time.process_time()
        runs = [run_topic(name, q, topics[q][0], topics[q][1], noise=args.noise, k=10,
                          seed=args.seed) for q in keys]
        cpu = time.process_time() - t0
        needed = [r.needed for r in runs if r.needed is not None]
        mean = f"{statistics.mean(needed):.1f}" if needed else "-"
        median = f"{statistics.median(needed):.0f}" if needed else "-"
        asked = statistics.mean(r.answers + r.graded for r in runs)
        print(f"| {name} | {len(runs)} | {len(needed)} | {mean} | {median} | {asked:.1f} | "
              f"{cpu:.0f} |", flush=True)
    return 0


def sizes(ns: list[int]) -> int:
    import random

    print("| n | all-pairs n(n-1)/2 | top-k answers (mean of 5) | adaptive answers (mean of 5) |")
    print("|---|---|---|---|")
    for n in ns:
        asked: dict[str, list[int]] = {"top-k": [], "adaptive": []}
        for seed in range(5):
            rng = random.Random(seed * 1000 + n)
            docs = [f"d{i}" for i in range(n)]
            truth = {d: rng.randint(0, 4) for d in docs}
            for name in asked:
                asked[name].append(run_topic(name, str(n), docs, truth, noise=0.0, k=10,
                                             seed=seed).answers)
        print(f"| {n} | {n * (n - 1) // 2} | {statistics.mean(asked['top-k']):.1f} | "
              f"{statistics.mean(asked['adaptive']):.1f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
