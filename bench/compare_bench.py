"""Benchmark of the paired randomisation test behind ``relkit compare``.

Usage::

    .venv/bin/python bench/compare_bench.py [--runs 20] [--topics 1000] [--samples 10000]
                                            [--scipy-pairs 3] [--seed 0]

Synthetic per-topic scores (``runs`` systems x ``topics`` topics, AP-like values
in [0, 1] with a per-topic difficulty and small per-system effects) are
compared with the randomisation test for every pair (``runs * (runs-1) / 2``
pairs), as ``compare_scores`` does: one sign matrix shared by all pairs, one
matrix product per block. Reported: the wall time of the whole comparison (test,
Holm correction, effect sizes), and, on ``--scipy-pairs`` pairs,
``scipy.stats.permutation_test`` (vectorised statistic, same number of samples)
per pair against ours per pair, with the largest p-value difference (both are
Monte Carlo estimates, so they agree to about 1/sqrt(samples)).
"""

from __future__ import annotations

import argparse
import time

import numpy as np


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=20)
    ap.add_argument("--topics", type=int, default=1000)
    ap.add_argument("--samples", type=int, default=10_000)
    ap.add_argument("--scipy-pairs", type=int, default=3)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args()

    from scipy import stats

    from relkit.metrics.compare.core import compare_scores
    from relkit.metrics.compare.scores import Scores

    rng = np.random.default_rng(args.seed)
    difficulty = rng.beta(2, 5, args.topics)
    effect = rng.normal(0, 0.02, args.runs)
    values = np.clip(difficulty[None, :] + effect[:, None]
                     + rng.normal(0, 0.1, (args.runs, args.topics)), 0, 1)
    scores = Scores(tuple(f"run{i:02d}" for i in range(args.runs)), ("AP",),
                    tuple(f"q{i}" for i in range(args.topics)), values[None])
    pairs = args.runs * (args.runs - 1) // 2

    compare_scores(scores, test="randomisation", samples=100)      # warm-up (imports)
    start = time.perf_counter()
    cmp = compare_scores(scores, test="randomisation", samples=args.samples, seed=args.seed)
    ours = time.perf_counter() - start
    print(f"relkit: {args.runs} runs x {args.topics} topics, {pairs} pairs, "
          f"{args.samples} samples: {ours:.2f} s ({ours / pairs * 1000:.1f} ms per pair)")

    k = min(args.scipy_pairs, pairs)
    start = time.perf_counter()
    ref = []
    for p in cmp.pairs[:k]:
        d = values[scores.system_index(p.a)] - values[scores.system_index(p.b)]
        ref.append(stats.permutation_test(
            (d,), lambda x, axis: np.mean(x, axis=axis), permutation_type="samples",
            vectorized=True, n_resamples=args.samples,
            rng=np.random.default_rng(args.seed)).pvalue)
    theirs = (time.perf_counter() - start) / k
    gap = max(abs(r - p.p) for r, p in zip(ref, cmp.pairs[:k], strict=True))
    print(f"scipy.stats.permutation_test: {theirs * 1000:.1f} ms per pair on {k} pairs "
          f"(all {pairs} pairs: ~{theirs * pairs:.1f} s)")
    print(f"ratio scipy / relkit per pair: {theirs / (ours / pairs):.1f}x; "
          f"largest p difference on those pairs: {gap:.4f}")


if __name__ == "__main__":
    main()
