"""Agreement statistics on 1,000,000 judgments from 5 assessors (200,000 items, grades 0-3).

    .venv/bin/python bench/agreement_bench.py [--items 200000] [--replicates 1000]

Prints relkit's timings and the peers' on the same data, with ratios (peer / relkit).
Peers: scikit-learn cohen_kappa_score (one pair), statsmodels fleiss_kappa (with
aggregate_raters), the krippendorff package (alpha, ordinal). Speed is measured, not asserted.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd


def make(items: int, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    truth = rng.choice(4, size=items, p=[0.5, 0.25, 0.15, 0.1])
    grades = np.clip(truth[:, None] + rng.choice([-1, 0, 0, 0, 1], size=(items, 5)), 0, 3)
    topics = (np.arange(items) // 1000).astype(str)
    docs = np.char.add("d", (np.arange(items) % 1000).astype(str))
    return pd.DataFrame({"assessor": np.repeat([[f"a{j}" for j in range(5)]], items, 0).ravel(),
                         "topic": np.repeat(topics, 5), "doc": np.repeat(docs, 5),
                         "grade": grades.ravel()})


def timed(fn):  # type: ignore[no-untyped-def]
    t = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--items", type=int, default=200_000)
    ap.add_argument("--replicates", type=int, default=1000)
    args = ap.parse_args()
    from relkit.corpora.types import TREC_DL
    from relkit.judging.agreement import multi, pairwise
    from relkit.judging.agreement.analysis import Options, analyse
    from relkit.judging.agreement.frame import Ratings

    frame = make(args.items)
    print(f"{len(frame):,} judgments, 5 assessors, {args.items:,} items")
    r, t_frame = timed(lambda: Ratings.from_frame(frame, TREC_DL))
    print(f"relkit  build ratings matrix            {t_frame:8.3f} s")
    _, t_all = timed(lambda: analyse(r, opts=Options(replicates=args.replicates)))
    print(f"relkit  full analysis, graded + binary  {t_all:8.3f} s  ({args.replicates} "
          "bootstrap replicates for every statistic)")
    codes = r.codes
    vals = r.values
    pat, t_pat = timed(lambda: multi.patterns(codes, 4))
    w = pat.freq[None].astype(float)
    rows = []
    # one pair, unweighted Cohen
    k_ours, t = timed(lambda: float(pairwise.cohen_kappa(
        pairwise.confusion(codes[:, 0], codes[:, 1], 4), vals)))
    from sklearn.metrics import cohen_kappa_score

    k_ref, tr = timed(lambda: cohen_kappa_score(codes[:, 0], codes[:, 1]))
    rows.append(("Cohen kappa (1 pair)", "scikit-learn", t, tr, k_ours, k_ref))
    # Fleiss
    f_ours, t = timed(lambda: float(multi.fleiss_kappa(multi.patterns(codes, 4).counts,
                                                       w, vals)[0]))
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    f_ref, tr = timed(lambda: fleiss_kappa(aggregate_raters(codes)[0]))
    rows.append(("Fleiss kappa", "statsmodels", t + t_pat, tr, f_ours, f_ref))
    # Krippendorff ordinal
    a_ours, t = timed(lambda: float(multi.krippendorff_alpha("ordinal")(
        multi.patterns(codes, 4).counts, w, vals)[0]))
    try:
        import krippendorff

        a_ref, tr = timed(lambda: krippendorff.alpha(reliability_data=codes.T.astype(float),
                                                     level_of_measurement="ordinal",
                                                     value_domain=[0, 1, 2, 3]))
        rows.append(("Krippendorff alpha ordinal", "krippendorff", t + t_pat, tr, a_ours, a_ref))
    except ImportError:
        print("(krippendorff not installed)")
    print(f"\n{'statistic':28} {'peer':13} {'relkit s':>9} {'peer s':>9} {'ratio':>7}  values")
    for name, peer, t, tr, a, b in rows:
        print(f"{name:28} {peer:13} {t:9.4f} {tr:9.4f} {tr / t:7.1f}x  {a:.6f} / {b:.6f}")


if __name__ == "__main__":
    main()
