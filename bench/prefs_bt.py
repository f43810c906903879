"""Recovery of a planted order by Bradley–Terry with ties, as the answers grow.

Usage: python bench/prefs_bt.py [--docs 20] [--nu 0.5] [--repeats 5]

Answers are drawn from Davidson's model with planted log-strengths (standard normal)
and tie parameter --nu on uniformly random pairs (tests/prefs_data.py); each row is the
mean Kendall tau between the planted and the fitted scores over --repeats seeds, the
share of fits that were maximum likelihood (the rest needed the prior), and the mean
standard error.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from prefs_data import planted  # noqa: E402
from relkit.metrics.prefs.bt import fit_bt  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--nu", type=float, default=0.5)
    ap.add_argument("--repeats", type=int, default=5)
    args = ap.parse_args()
    from scipy.stats import kendalltau

    docs = [f"d{i}" for i in range(args.docs)]
    print(f"{args.docs} documents, nu {args.nu}, {args.repeats} seeds")
    print("| answers | answers per doc | Kendall tau (mean) | MLE share | mean SE |")
    print("|---|---|---|---|---|")
    for n in (20, 50, 100, 200, 500, 1000, 2000, 5000):
        taus, mles, ses = [], [], []
        for seed in range(args.repeats):
            theta, answers = planted(args.docs, n, nu=args.nu, seed=seed)
            fit = fit_bt(answers, docs)
            taus.append(kendalltau(fit.theta, theta).statistic)
            mles.append(fit.mle)
            ses.append(float(np.mean(fit.se)))
        print(f"| {n} | {2 * n / args.docs:.0f} | {np.mean(taus):.3f} | "
              f"{np.mean(mles):.1f} | {np.mean(ses):.3f} |", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
