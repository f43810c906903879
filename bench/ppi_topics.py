"""Coverage and width of prediction-powered intervals with whole topics sampled (issue 37).

The setting of bench/ppi_coverage.py (Cranfield's complete judgments on the pool of its
six runs, top 20 of each, as the truth; the same planted judges, and the supervised one
if asked), with the ``topics`` design: each replicate draws
:func:`relkit.metrics.ppi.topics.topic_count` topics at random (``BUDGET`` labels'
worth: floor(BUDGET x topics / pairs)), judged completely by the truth, and estimates
every run's mean AP, nDCG@10, P@10 and DCG@10 (PPI++, PPI at lambda = 1 and
human-only, the same topics).
Per-topic values come from relkit eval (:func:`relkit.metrics.ppi.topics.per_topic`),
so the truth is relkit eval's exact mean under complete human labels.

    .venv/bin/python bench/ppi_topics.py [REPLICATES] [BUDGET] [JUDGES]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:   # run as a script; the test puts bench/ on the path itself
    sys.path.insert(0, _HERE)
from ppi_coverage import CRAN, JUDGES, LEVEL, judge, supervised, truth_and_runs  # noqa: E402

from relkit.metrics.data import Run  # noqa: E402
from relkit.metrics.ppi.measures import Pool  # noqa: E402
from relkit.metrics.ppi.topics import (  # noqa: E402
    draw_topics,
    per_topic,
    topic_count,
    topic_estimates,
)

MEASURES = ["AP", "nDCG@10", "P@10", "DCG@10"]


def _qrels(pool: Pool, grades: np.ndarray) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (t, d), g in zip(pool.pairs, grades.tolist(), strict=True):
        out.setdefault(t, {})[d] = int(g)
    return out


def main(replicates: int = 1000, budget: int = 1500,
         judges: list[tuple[str, float]] | None = None) -> None:
    truth, _ = truth_and_runs()
    pool = Pool(truth)
    true = pool.auto.copy()
    runs = {f"{p.parent.name}/{p.stem}": Run.read(p) for p in sorted(CRAN.glob("runs/*/*.txt"))}
    human = {s: per_topic(truth, r, MEASURES, LEVEL) for s, r in runs.items()}
    sizes = {t: len(d) for t, d in truth.items()}
    n = topic_count(sizes, budget)
    samples = [set(draw_topics(list(sizes), n, seed=r)) for r in range(replicates)]
    labels = np.mean([sum(sizes[t] for t in s) for s in samples])
    print(f"Cranfield: {len(runs)} runs, {len(sizes)} topics, {len(pool.pairs):,} pooled "
          f"pairs; budget {budget} labels = {n} topics (mean {labels:.0f} labels over "
          f"samples); {replicates} replicates per setting; 95% intervals\n")
    print("| judge | measure | PPI++ coverage | lowest run | human-only coverage "
          "| PPI (lambda 1) coverage | PPI++ width | human-only width | width ratio "
          "| PPI (lambda 1) width |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    judges = [j for j in JUDGES if j[0] != "supervised"] if judges is None else judges
    for kind, rate in judges:
        if kind == "supervised":
            auto = supervised(pool, true, int(rate))
        else:   # the seed ppi_coverage.py gives the judge: the same planted grades
            auto = judge(true, kind, rate, np.random.default_rng(100 + JUDGES.index((kind, rate))))
        auto_q = _qrels(pool, auto)
        a = {s: per_topic(auto_q, r, MEASURES, LEVEL) for s, r in runs.items()}
        label = (f"supervised ({int(rate)} labels)" if kind == "supervised"
                 else f"noise {rate}" if kind == "noise" else f"over-grades {rate}")
        for m in MEASURES:
            cov, cov0, cov1, wid, wid0, wid1 = [], [], [], [], [], []
            for s in runs:
                target = float(np.mean(list(human[s][m].values())))
                hits = hits0 = hits1 = 0
                w = w0 = w1 = 0.0
                for sample in samples:
                    h = {t: v for t, v in human[s][m].items() if t in sample}
                    ppi, classical, _ = topic_estimates(a[s][m], h)
                    one, _, _ = topic_estimates(a[s][m], h, lam=1.0)
                    hits += ppi.low <= target <= ppi.high
                    hits0 += classical.low <= target <= classical.high
                    hits1 += one.low <= target <= one.high
                    w += ppi.high - ppi.low
                    w0 += classical.high - classical.low
                    w1 += one.high - one.low
                cov.append(hits / replicates)
                cov0.append(hits0 / replicates)
                cov1.append(hits1 / replicates)
                wid.append(w / replicates)
                wid0.append(w0 / replicates)
                wid1.append(w1 / replicates)
            print(f"| {label} | {m} | {np.mean(cov):.3f} | {min(cov):.3f} | "
                  f"{np.mean(cov0):.3f} | {np.mean(cov1):.3f} | {np.mean(wid):.4f} | "
                  f"{np.mean(wid0):.4f} | {np.mean(wid) / np.mean(wid0):.2f} | "
                  f"{np.mean(wid1):.4f} |", flush=True)


if __name__ == "__main__":
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    chosen = None if only is None else [j for j in JUDGES if j[0] in only]
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 1000,
         int(sys.argv[2]) if len(sys.argv) > 2 else 1500, chosen)
