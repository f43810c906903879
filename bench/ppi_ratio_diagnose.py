"""Why the ratio estimators of bench/ppi_ratio.py do not cover (issue 37): diagnostics.

The numbers of docs/automatic-judges.md ("Normalised measures", "What goes wrong")
come from here, on the Cranfield pool and planted judges of bench/ppi_coverage.py::

    .venv/bin/python bench/ppi_ratio_diagnose.py sweep REPLICATES BUDGET JUDGE DESIGN [DEPTH]
    .venv/bin/python bench/ppi_ratio_diagnose.py parts REPLICATES BUDGET JUDGE DESIGN
    .venv/bin/python bench/ppi_ratio_diagnose.py topics REPLICATES BUDGET JUDGE
    .venv/bin/python bench/ppi_ratio_diagnose.py jackknife REPLICATES BUDGET JUDGE DESIGN
    .venv/bin/python bench/ppi_ratio_diagnose.py taylor REPLICATES BUDGET JUDGE DESIGN

An optional last ``DEPTH`` (any but ``topics``) pools the top DEPTH of each run
(default 20). ``JUDGE`` indexes the planted judges (0: noise 0.1, 1: noise 0.3,
2: noise 0.5, 3: over-grades 0.5). Each prints, per measure, the coverage of the 95% interval, the
mean error of the estimate (bias), its standard deviation over replicates (sd) and the
mean width, next to 4 sd (the width a normal interval of the true spread would have).

- ``sweep``: lambda tuned (PPI++), 1 (PPI) and 0 (human-only), the estimator as it is.
- ``parts``: PPI++ with and without the floor under the estimated counts and the clip
  of each topic's ratio to [0, 1] (both are in the estimator to tame the ratio).
- ``topics``: the first run's AP under PPI++, its bias split by the topic's number of
  relevant pooled pairs (true AP 0 when there is none).
- ``jackknife``: the grouped jackknife (20 groups drawn within the strata, each left
  out in turn and the rest reweighted) as a bias correction of the per-topic ratios,
  ``G theta - (G - 1) mean(theta_-g)``, with its variance
  ``(1 - n/N) (G - 1)/G sum (theta_-g - mean)^2`` and Student's quantile at G - 1
  degrees of freedom (Quenouille's correction; Shao & Tu, *The Jackknife and
  Bootstrap*, 1995, §2.1; Särndal, Swensson & Wretman 1992, §11.5), at PPI++'s lambda.
- ``taylor``: each topic's ratio less its estimated second-order bias (:func:`taylor`),
  at PPI++'s lambda and at lambda 1, the delta-method interval moved with it.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import numpy as np

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:       # run as a script it is there; a test puts it there
    sys.path.insert(0, _HERE)
import ppi_coverage as bench  # noqa: E402
import ppi_ratio as ratio  # noqa: E402

from relkit.metrics.ppi.design import draw, strata  # noqa: E402
from relkit.metrics.ppi.measures import Human, Pool  # noqa: E402

GROUPS = 20


def _setting(judge: int, design: str, depth: int = bench.DEPTH) -> tuple:
    """The pool (the top ``depth`` of each run), true grades, the judge's grades, the
    strata and each run's structures."""
    bench.DEPTH = depth
    truth, runs = bench.truth_and_runs()
    pool = Pool(truth)
    true = pool.auto.copy()
    kind, rate = [j for j in bench.JUDGES if j[0] != "supervised"][judge]
    auto = bench.judge(true, kind, rate, np.random.default_rng(100 + judge))
    codes = strata(auto, design)
    uniq, counts = np.unique(codes, return_counts=True)
    sizes = dict(zip(uniq.tolist(), counts.tolist(), strict=True))
    made = {}
    for system, ranked in runs.items():
        made[(system, "AP")] = ratio.APStructure(pool, ranked, bench.LEVEL)
        made[(system, "nDCG@10")] = ratio.NDCGStructure(pool, ranked, 10)
    whole = ratio.Sample(Human(np.arange(len(true)), true, np.zeros(len(true), np.int64),
                               {0: len(true)}))
    target = {key: ratio.ratio_estimate(st, true, whole, lam=0.0)[0].value
              for key, st in made.items()}
    return f"{kind} {rate}", pool, true, auto, codes, sizes, made, target


def _samples(pool: Pool, true: np.ndarray, auto: np.ndarray, codes: np.ndarray,
             sizes: dict[int, int], budget: int, design: str,
             replicates: int) -> Iterator[ratio.Sample]:
    for r in range(replicates):
        drawn = draw(pool.pairs, auto.tolist(), budget, design, seed=r)
        where = np.array([pool.index[(t, d)] for t, d, _, _ in drawn])
        yield ratio.Sample(Human(where, true[where], codes[where], sizes))


def _report(label: str, rows: dict, target: dict) -> None:
    """Coverage, bias, sd and width per measure, averaged over the runs."""
    for measure in ("AP", "nDCG@10"):
        per = {k: np.array(v, dtype=float) for k, v in rows.items() if k[1] == measure}
        cov = np.mean([v[:, 1].mean() for v in per.values()])
        err = {k: v[:, 0] - target[k] for k, v in per.items()}
        bias = np.mean([e.mean() for e in err.values()])
        sd = np.mean([e.std() for e in err.values()])
        width = np.mean([v[:, 2].mean() for v in per.values()])
        print(f"| {label} | {measure} | {cov:.3f} | {bias:+.4f} | {sd:.4f} | "
              f"{width:.4f} | {4 * sd:.4f} |", flush=True)


def _header() -> None:
    print("| setting | measure | coverage | bias | sd | width | 4 sd |")
    print("|---|---|---|---|---|---|---|")


def _run(setting: tuple, budget: int, design: str, replicates: int,
         estimators: dict[str, Callable]) -> None:
    name, pool, true, auto, codes, sizes, made, target = setting
    rows: dict = {e: {k: [] for k in made} for e in estimators}
    for sample in _samples(pool, true, auto, codes, sizes, budget, design, replicates):
        for e, fn in estimators.items():
            for key, st in made.items():
                value, low, high = fn(st, auto, sample)
                rows[e][key].append((value, low <= target[key] <= high, high - low))
    for e in estimators:
        _report(f"{name}, {design}, {budget}, {e}", rows[e], target)


def _plain(lam: float | str) -> Callable:
    def fn(st: object, auto: np.ndarray, sample: ratio.Sample) -> tuple[float, float, float]:
        e = ratio.ratio_estimate(st, auto, sample, lam=lam)[0]  # type: ignore[arg-type]
        return e.value, e.low, e.high
    return fn


def _unclipped(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    ok = den > 0
    inv = np.where(ok, 1.0 / np.where(ok, den, 1.0), 0.0)
    return num * inv, inv


def _with(floor: bool, clip: bool) -> Callable:
    """PPI++ with the floor and the clip switched on or off (patched for the call)."""
    def no_floor(flags: np.ndarray, topics: ratio.Topics, sample: ratio.Sample) -> np.ndarray:
        return np.zeros(topics.count)

    def fn(st: object, auto: np.ndarray, sample: ratio.Sample) -> tuple[float, float, float]:
        saved = ratio._observed, ratio._ratio
        ratio._observed = saved[0] if floor else no_floor     # type: ignore[assignment]
        ratio._ratio = saved[1] if clip else _unclipped       # type: ignore[assignment]
        try:
            return _plain("tuned")(st, auto, sample)
        finally:
            ratio._observed, ratio._ratio = saved
    return fn


def jackknife(st: object, auto: np.ndarray, sample: ratio.Sample, lam: float,
              rng: np.random.Generator, groups: int = GROUPS,
              alpha: float = 0.05) -> tuple[float, float, float]:
    """The grouped jackknife's bias-corrected estimate and interval (module docstring)."""
    from scipy import stats

    full = st.estimate(auto, sample, lam)[0]                  # type: ignore[attr-defined]
    group = np.empty(len(sample.where), np.int64)
    for h in np.unique(sample.strata):
        idx = np.flatnonzero(sample.strata == h)
        group[idx[rng.permutation(len(idx))]] = np.arange(len(idx)) % groups
    left = np.array([st.estimate(auto, sample.without(group == g), lam)[0]  # type: ignore[attr-defined]
                     for g in range(groups)])
    mean = left.mean()
    fpc = 1 - len(sample.where) / sum(sample.sizes.values())
    half = stats.t.ppf(1 - alpha / 2, groups - 1) * np.sqrt(
        fpc * (groups - 1) / groups * ((left - mean) ** 2).sum())
    value = groups * full - (groups - 1) * mean
    return value, value - half, value + half


def domain_covariance(topic: np.ndarray, x: np.ndarray, y: np.ndarray,
                      sample: ratio.Sample, count: int) -> np.ndarray:
    r"""Per topic :math:`t`, the estimated design covariance of the Horvitz-Thompson
    totals of :math:`x 1_t` and :math:`y 1_t` under stratified sampling without
    replacement: :math:`\sum_h N_h^2 (1 - n_h/N_h) s_{h}(x 1_t, y 1_t) / n_h` (Särndal
    et al. 1992, §3.7 and §10.3 for domains)."""
    out = np.zeros(count)
    keep = topic >= 0
    for h in np.unique(sample.strata):
        inside = (sample.strata == h) & keep
        n, big = float((sample.strata == h).sum()), float(sample.sizes[int(h)])
        if n < 2:
            continue
        t = topic[inside]
        sx = np.bincount(t, weights=x[inside], minlength=count)
        sy = np.bincount(t, weights=y[inside], minlength=count)
        sxy = np.bincount(t, weights=(x * y)[inside], minlength=count)
        out += big * big * (1 - n / big) / n * (sxy - sx * sy / n) / (n - 1)
    return out


def taylor(st: object, auto: np.ndarray, sample: ratio.Sample,
           lam: float | str = "tuned") -> tuple[float, float, float]:
    r"""Each topic's ratio less its estimated second-order (Taylor) bias,
    :math:`\hat M_t - (\hat M_t \hat V(\hat B_t) - \hat C(\hat A_t, \hat B_t))/\hat B_t^2`
    (Särndal et al. 1992, §5.6 and §7.3.1; Cochran 1977, §6.8), clipped to [0, 1];
    the delta-method interval around the corrected mean."""
    e = ratio.ratio_estimate(st, auto, sample, lam=lam)[0]   # type: ignore[arg-type]
    p = st.parts                                              # type: ignore[attr-defined]
    count = len(p.num)
    ok = p.den > 0
    den = np.where(ok, p.den, 1.0)
    m = np.where(ok, np.clip(p.num / den, 0.0, 1.0), 0.0)
    vb = domain_covariance(p.topic, p.d_den, p.d_den, sample, count)
    cab = domain_covariance(p.topic, p.d_num, p.d_den, sample, count)
    fixed = np.where(ok, np.clip(m - (m * vb - cab) / den ** 2, 0.0, 1.0), 0.0)
    value = float(fixed.mean())
    return value, value - (e.value - e.low), value + (e.high - e.value)


def _jack() -> Callable:
    rng = np.random.default_rng(1000)

    def fn(st: object, auto: np.ndarray, sample: ratio.Sample) -> tuple[float, float, float]:
        lam = ratio.ratio_estimate(st, auto, sample)[0].lam   # type: ignore[arg-type]
        return jackknife(st, auto, sample, lam, rng)
    return fn


def topics(replicates: int, budget: int, judge: int) -> None:
    """The first run's AP bias under PPI++ split by the topic's relevant pooled pairs."""
    name, pool, true, auto, codes, sizes, made, _ = _setting(judge, "simple")
    key = next(k for k in made if k[1] == "AP")
    st = made[key]
    t = st.topics
    keep = t.of >= 0
    relevant = np.bincount(t.of[keep], weights=(true[keep] >= bench.LEVEL),
                           minlength=t.count)
    per_topic: list[np.ndarray] = []
    real = ratio._ratio

    def spy(num: np.ndarray, den: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        out = real(num, den)
        per_topic.append(out[0])
        return out

    ratio._ratio = spy                                        # type: ignore[assignment]
    try:
        whole = ratio.Sample(Human(np.arange(len(true)), true,
                                   np.zeros(len(true), np.int64), {0: len(true)}))
        st.estimate(true, whole, 0.0)
        exact = per_topic[-1].copy()
        errors = []
        for sample in _samples(pool, true, auto, codes, sizes, budget, "simple", replicates):
            ratio.ratio_estimate(st, auto, sample)
            errors.append(per_topic[-1] - exact)
    finally:
        ratio._ratio = real                                   # type: ignore[assignment]
    bias = np.mean(errors, axis=0)
    print(f"{key[0]}, AP, {name}, simple, {budget} labels, PPI++: {t.count} topics, "
          f"mean AP bias {bias.sum() / t.count:+.4f}\n")
    print("| relevant pooled pairs | topics | share of the mean's bias |")
    print("|---|---|---|")
    for label, m in (("0", relevant == 0), ("1", relevant == 1), ("2", relevant == 2),
                     (">= 3", relevant >= 3)):
        print(f"| {label} | {int(m.sum())} | {bias[m].sum() / t.count:+.4f} |")


def main(argv: list[str]) -> None:
    what, replicates, budget, judge = argv[0], int(argv[1]), int(argv[2]), int(argv[3])
    if what == "topics":
        topics(replicates, budget, judge)
        return
    design = argv[4]
    estimators = {
        "sweep": {"PPI++": _plain("tuned"), "PPI": _plain(1.0), "human-only": _plain(0.0)},
        "parts": {"as is": _with(True, True), "no floor": _with(False, True),
                  "no clip": _with(True, False)},
        "jackknife": {"PPI++ delta": _plain("tuned"), "PPI++ jackknife": _jack()},
        "taylor": {"PPI++ delta": _plain("tuned"), "PPI++ Taylor": taylor,
                   "PPI delta": _plain(1.0),
                   "PPI Taylor": lambda st, a, s: taylor(st, a, s, 1.0)},
    }[what]
    _header()
    depth = int(argv[5]) if len(argv) > 5 else bench.DEPTH
    setting = _setting(judge, design, depth)
    print(f"<!-- pool depth {depth}: {len(setting[1].pairs):,} pairs -->")
    _run(setting, budget, design, replicates, estimators)


if __name__ == "__main__":
    main(sys.argv[1:])
