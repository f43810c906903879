"""Coverage and width of prediction-powered intervals on Cranfield (issue 37).

Truth: Cranfield's complete judgments on the pool of its six real runs (top 20 of each;
Cleverdon's grades turned so that higher is more relevant: 1 -> 4, 2 -> 3, 3 -> 2,
4 -> 1, -1 and unlisted -> 0). Automatic judges are planted: symmetric noise (with
probability rho a pair's grade is replaced by another grade drawn uniformly) and a
biased one (every grade raised by one with probability 0.5, capped at 4); and one is
learnt: the supervised judge trained on 300 or 1,000 pairs drawn at random (:func:`supervised`).
Each setting
(judge x design) draws its judge once, then REPLICATES human samples of BUDGET pairs;
each gives, for every run and measure, the PPI++ interval and the human-only interval
of the same sample. Printed: coverage of the true value (the measure with complete
human labels) over runs x replicates, the lowest run's coverage, and the mean widths.

    .venv/bin/python bench/ppi_coverage.py [REPLICATES] [BUDGET] [JUDGES]
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from relkit.metrics.data import Run
from relkit.metrics.ppi.design import draw, strata
from relkit.metrics.ppi.measures import Human, Pool, estimate, gain
from relkit.metrics.ranking import ranked_docnos

CRAN = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "cranfield"
if not CRAN.exists():
    CRAN = Path("/work/shared/corpora/cranfield")
DEPTH = 20
MEASURES = [("P", 10), ("DCG", 10), ("P", 20)]
LEVEL = 1


def truth_and_runs() -> tuple[dict[str, dict[str, int]], dict[str, dict[str, list[str]]]]:
    grades: dict[tuple[str, str], int] = {}
    for line in (CRAN / "cranqrel").read_text().split("\n"):
        f = line.split()
        if len(f) == 3:
            g = int(f[2])
            grades[(f[0], f[1])] = 5 - g if g > 0 else 0
    runs = {}
    for path in sorted(CRAN.glob("runs/*/*.txt")):
        runs[f"{path.parent.name}/{path.stem}"] = ranked_docnos(Run.read(path))
    truth: dict[str, dict[str, int]] = {}
    for ranked in runs.values():
        for t, docs in ranked.items():
            for d in docs[:DEPTH]:
                truth.setdefault(t, {})[d] = grades.get((t, d), 0)
    return truth, runs


def judge(true: np.ndarray, kind: str, rate: float, rng: np.random.Generator) -> np.ndarray:
    if kind == "noise":
        flip = rng.random(len(true)) < rate
        other = (true + rng.integers(1, 5, len(true))) % 5   # a uniform other grade
        return np.where(flip, other, true)
    return np.where(rng.random(len(true)) < rate, np.minimum(true + 1, 4), true)


def supervised(pool: Pool, true: np.ndarray, size: int, seed: int = 11) -> np.ndarray:
    """The supervised judge as a collection builder would make it: ``size`` pool pairs
    drawn uniformly at random (``seed``), graded by the humans (the truth), train
    :class:`relkit.pooling.cal.supervised.SupervisedJudge` (relevant at grade >= 1, the
    topic's title and text as the seed document); it then grades every pooled pair. A
    topic none of whose sampled pairs is relevant gets no model worth the name (the
    judge says 0 for its pairs, as the model trained on zeros would)."""
    from relkit.corpora.collection import open_collection
    from relkit.pooling.cal.supervised import SupervisedJudge
    from relkit.pooling.cal.texts import TextSource

    col = open_collection(CRAN, layout="cranfield")
    docs = {d.id: " ".join(x for x in (d.title, d.text) if x) for d in col.iter_docs()}
    topics = {t.id: " ".join(x for x in (t.title, t.description) if x)
              for t in col.read_topics()}
    rng = np.random.default_rng(seed)
    train = sorted(int(i) for i in rng.choice(len(pool.pairs), size, replace=False))
    model = SupervisedJudge.fit(TextSource(docs, topics),
                                [(*pool.pairs[i], int(true[i])) for i in train], level=LEVEL)
    return np.array([model.grade(t, d)[0] if t in model.models else 0
                     for t, d in pool.pairs])


JUDGES = [("noise", 0.1), ("noise", 0.3), ("noise", 0.5), ("over-grades", 0.5),
          ("supervised", 300), ("supervised", 1000)]


def main(replicates: int = 500, budget: int = 600,
         judges: list[tuple[str, float]] | None = None) -> None:
    truth, runs = truth_and_runs()
    pool0 = Pool(truth)
    true = pool0.auto.copy()
    weights = {(s, kind, k): pool0.weights(r, kind, k)[0]
               for s, r in runs.items() for kind, k in MEASURES}
    target = {key: float((gain(true, key[1], LEVEL) * w).sum()) for key, w in weights.items()}
    judges = JUDGES if judges is None else judges
    print(f"Cranfield: {len(runs)} runs, {len(pool0.topics)} topics, pool depth {DEPTH}: "
          f"{len(pool0.pairs):,} pairs; human budget {budget} pairs; {replicates} "
          "replicates per setting; 95% intervals\n")
    print("| judge | design | measure | PPI++ coverage | lowest run | human-only coverage "
          "| PPI++ width | human-only width | width ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    for j, (kind, rate) in enumerate(judges):
        if kind == "supervised":
            auto = supervised(pool0, true, int(rate))
            agree = float((auto == true).mean())
            print(f"<!-- supervised judge: trained on {int(rate)} pairs; exact grade on "
                  f"{agree:.1%} of the pool -->", flush=True)
        else:
            auto = judge(true, kind, rate, np.random.default_rng(100 + j))
        pool = Pool(truth)
        pool.auto = auto        # the same pairs, the judge's grades
        for design in ("simple", "stratified"):
            codes = strata(auto, design)
            uniq, counts = np.unique(codes, return_counts=True)
            sizes = dict(zip(uniq.tolist(), counts.tolist(), strict=True))
            hits = {key: np.zeros(replicates, bool) for key in weights}
            hits0 = {key: np.zeros(replicates, bool) for key in weights}
            width = {key: np.zeros(replicates) for key in weights}
            width0 = {key: np.zeros(replicates) for key in weights}
            for r in range(replicates):
                sample = draw(pool.pairs, auto.tolist(), budget, design, seed=r)
                where = np.array([pool.index[(t, d)] for t, d, _, _ in sample])
                human = Human(where, true[where], codes[where], sizes)
                for key, w in weights.items():
                    ppi, classical = estimate(pool, human, w, key[1], LEVEL)
                    hits[key][r] = ppi.low <= target[key] <= ppi.high
                    hits0[key][r] = classical.low <= target[key] <= classical.high
                    width[key][r] = ppi.high - ppi.low
                    width0[key][r] = classical.high - classical.low
            for kind_m, k in MEASURES:
                keys = [key for key in weights if key[1:] == (kind_m, k)]
                cov = np.mean([hits[key].mean() for key in keys])
                low = min(hits[key].mean() for key in keys)
                cov0 = np.mean([hits0[key].mean() for key in keys])
                wid = np.mean([width[key].mean() for key in keys])
                wid0 = np.mean([width0[key].mean() for key in keys])
                label = (f"supervised ({int(rate)} labels)" if kind == "supervised"
                         else f"noise {rate}" if kind == "noise" else f"over-grades {rate}")
                print(f"| {label} | {design} | {kind_m}@{k} | {cov:.3f} | {low:.3f} | "
                      f"{cov0:.3f} | {wid:.4f} | {wid0:.4f} | {wid / wid0:.2f} |", flush=True)


LLMJUDGE = CRAN.parent / "llmjudge-dl23"


def _grades(path: Path) -> dict[tuple[str, str], int]:
    out = {}
    for line in path.read_text().splitlines():
        f = line.split()
        if len(f) == 4:
            out[(f[0], f[2])] = int(f[3])
    return out


def llmjudge(replicates: int = 500, budget: int = 200) -> None:
    """Label-level PPI on llmjudge-dl23 (NIST grades for all 4,423 pairs, 33 judges):
    the mean NIST grade and the share of pairs graded >= 2, from ``budget`` NIST labels
    drawn at random (simple design) and one judge's grades on every pair."""
    from relkit.metrics.ppi.estimators import difference_estimate, effective_labels

    nist = _grades(LLMJUDGE / "llmjudge_test_qrel_idx.txt")
    keys = sorted(nist)
    true = np.array([nist[k] for k in keys], dtype=float)
    big_n = len(keys)
    stats = {"mean grade": lambda g: g, "share >= 2": lambda g: (g >= 2).astype(float)}
    print(f"\nllmjudge-dl23: {big_n:,} pairs, {budget} NIST labels drawn at random, "
          f"{replicates} replicates; PPI++ (simple design), 95% intervals\n")
    print("| judge | statistic | truth | judge alone | PPI++ coverage | PPI++ width "
          "| human-only width | effective labels |")
    print("|---|---|---|---|---|---|---|---|")
    zeros = np.zeros(budget, dtype=np.int64)
    for path in sorted((LLMJUDGE / "llm-judgments").glob("*.txt")):
        got = _grades(path)
        auto = np.array([got[k] for k in keys], dtype=float)
        rng = np.random.default_rng(7)
        for name, f in stats.items():
            y, yhat = f(true) / big_n, f(auto) / big_n
            target, total = float(y.sum()), float(yhat.sum())
            hit, wid, wid0, eff = 0, 0.0, 0.0, 0.0
            for _ in range(replicates):
                s = rng.choice(big_n, budget, replace=False)
                e = difference_estimate(y[s], yhat[s], total, zeros, {0: big_n})
                c = difference_estimate(y[s], yhat[s], 0.0, zeros, {0: big_n}, lam=0.0)
                hit += e.low <= target <= e.high
                wid += e.high - e.low
                wid0 += c.high - c.low
                eff += effective_labels(y[s], zeros, {0: big_n}, e.se ** 2)
            print(f"| {path.stem} | {name} | {target:.3f} | {total:.3f} | "
                  f"{hit / replicates:.3f} | {wid / replicates:.4f} | "
                  f"{wid0 / replicates:.4f} | {eff / replicates:.0f} |", flush=True)


if __name__ == "__main__":
    # A third argument names the judges (their kind) to run, e.g. `supervised`: the
    # Cranfield table for those alone, without the llmjudge table.
    only = sys.argv[3].split(",") if len(sys.argv) > 3 else None
    main(*(int(a) for a in sys.argv[1:3]),
         judges=None if only is None else [j for j in JUDGES if j[0] in only])
    if only is None:
        llmjudge(*(int(a) for a in sys.argv[1:2]))
