r"""Confidence intervals: analytic (normal, from a standard error) and a seeded bootstrap.

The bootstrap resamples *items* with replacement. Every statistic here
depends on the items only through how many items fall into each "pattern" (a
cell of a two-assessor table; a vector of grade counts for many assessors),
so drawing n items with replacement is exactly drawing pattern counts from
:math:`\mathrm{Multinomial}(n, f/n)` where f are the observed pattern counts.
One multinomial draw of shape (replicates, patterns) replaces n x replicates
index draws, and every statistic is evaluated on all replicates at once.
The interval is the percentile interval (Efron & Tibshirani, *An Introduction
to the Bootstrap*, 1993, ch. 13); replicates where the statistic is undefined
(e.g. every resampled item in one grade) are left out and counted.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import lru_cache
from statistics import NormalDist
from typing import Literal, get_args

import numpy as np

from relkit.judging.agreement.frame import AgreementError
from relkit.judging.agreement.result import Interval
from relkit.metrics.core.levels import check_unit


def _checked(level: float) -> float:
    """``level`` if it is in (0, 1); else :class:`AgreementError` (a 1.5 gives no interval)."""
    return check_unit("agreement", "level", level, AgreementError)


@lru_cache(maxsize=8)
def _z(level: float) -> float:
    return NormalDist().inv_cdf(0.5 + _checked(level) / 2)


def normal(value: float, se: float, level: float = 0.95,
           bounds: tuple[float, float] = (-np.inf, np.inf)) -> Interval:
    r"""Wald interval :math:`\hat\theta \pm z_{1-\alpha/2}\,SE`, clipped to ``bounds``."""
    z = _z(level)
    lo, hi = max(value - z * se, bounds[0]), min(value + z * se, bounds[1])
    return Interval("analytic", lo, hi, level, se=se)


def normal_ends(values: np.ndarray, ses: np.ndarray, level: float = 0.95
                ) -> tuple[list[float], list[float]]:
    r""":math:`\hat\theta \mp z_{1-\alpha/2}\,SE` for a stack of values, not clipped, as
    Python floats: the same IEEE operations as :func:`normal` makes on each (a product,
    then a difference or a sum), once for the stack instead of once per value."""
    z = _z(level)
    v = np.asarray(values, dtype=np.float64)
    e = np.asarray(ses, dtype=np.float64)
    with np.errstate(invalid="ignore", over="ignore"):
        return (v - z * e).tolist(), (v + z * e).tolist()


Distribution = Literal["normal", "t"]
DISTRIBUTIONS: tuple[str, ...] = get_args(Distribution)


def t(value: float, se: float, df: float, level: float = 0.95,
      bounds: tuple[float, float] = (-np.inf, np.inf)) -> Interval:
    r""":math:`\hat\theta \pm t_{1-\alpha/2,\,df}\,SE`, clipped to ``bounds``: irrCAC's
    (and Gwet's) interval for its coefficients, with df = n - 1 (n items judged)."""
    from scipy.stats import t as tdist  # scipy: only when t intervals are asked for

    if df < 1:
        raise ValueError(f"a t interval needs df >= 1; got {df}")
    q = float(tdist.ppf(0.5 + _checked(level) / 2, df))
    lo, hi = max(value - q * se, bounds[0]), min(value + q * se, bounds[1])
    return Interval("analytic", lo, hi, level, se=se, distribution="t", df=df)


def analytic(value: float, se: float, level: float, bounds: tuple[float, float],
             distribution: str, df: float | None) -> Interval:
    """The ``distribution`` interval when it is "t" and a df is known, else the normal one."""
    if distribution == "t" and df is not None and df >= 1:
        return t(value, se, df, level, bounds)
    return normal(value, se, level, bounds)


def percentile(values: np.ndarray, level: float, seed: int) -> Interval | None:
    level = _checked(level)
    v = np.asarray(values, dtype=np.float64)
    v = v[np.isfinite(v)]
    if len(v) == 0:
        return None
    lo, hi = np.quantile(v, [(1 - level) / 2, (1 + level) / 2])
    return Interval("bootstrap", float(lo), float(hi), level, replicates=len(v), seed=seed)


def draw(freq: np.ndarray, replicates: int, seed: int) -> np.ndarray:
    """Pattern counts of ``replicates`` item resamples: shape (replicates, len(freq))."""
    f = np.asarray(freq, dtype=np.float64)
    n = int(round(f.sum()))
    rng = np.random.default_rng(seed)
    return rng.multinomial(n, f / n, size=replicates)


def bootstrap_table(fn: Callable[[np.ndarray], np.ndarray], table: np.ndarray,
                    replicates: int = 1000, seed: int = 0, level: float = 0.95
                    ) -> Interval | None:
    """Percentile interval of ``fn`` over resampled k x k tables."""
    t = np.asarray(table)
    k = t.shape[-1]
    tables = draw(t.ravel(), replicates, seed).reshape(replicates, k, k)
    return percentile(fn(tables), level, seed)


def bootstrap_weights(fn: Callable[[np.ndarray], np.ndarray], freq: np.ndarray,
                      replicates: int = 1000, seed: int = 0, level: float = 0.95,
                      chunk: int = 200) -> Interval | None:
    """Percentile interval of ``fn(weights)`` over resampled pattern counts (in chunks)."""
    out = []
    rng_seed = np.random.SeedSequence(seed)
    for i, child in enumerate(rng_seed.spawn((replicates + chunk - 1) // chunk)):
        b = min(chunk, replicates - i * chunk)
        w = draw(freq, b, int(child.generate_state(1)[0]))
        out.append(fn(w))
    return percentile(np.concatenate(out), level, seed)
