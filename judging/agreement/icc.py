r"""Intraclass correlation: Shrout & Fleiss's six forms with their F-based intervals.

From the two-way ANOVA of an n targets x k judges matrix of grade *values*
(mean squares: :math:`MS_R` targets, :math:`MS_C` judges, :math:`MS_E` residual,
:math:`MS_W = (SS_C + SS_E)/(n(k-1))` within targets):

.. math::
    ICC(1,1) = \frac{MS_R - MS_W}{MS_R + (k-1)MS_W},\quad
    ICC(2,1) = \frac{MS_R - MS_E}{MS_R + (k-1)MS_E + k(MS_C - MS_E)/n},\quad
    ICC(3,1) = \frac{MS_R - MS_E}{MS_R + (k-1)MS_E},

and the reliabilities of the mean of the k judges, :math:`ICC(1,k) = (MS_R -
MS_W)/MS_R`, :math:`ICC(2,k) = (MS_R - MS_E)/(MS_R + (MS_C - MS_E)/n)`,
:math:`ICC(3,k) = (MS_R - MS_E)/MS_R`. Case 1: each target judged by its own
random judges; case 2: the same random judges (absolute agreement, McGraw &
Wong's ICC(A,1)); case 3: these fixed judges (consistency, ICC(C,1)).
Intervals from the F distribution: Shrout & Fleiss (1979) Table 4 for cases 1
and 3, Satterthwaite's approximate degrees of freedom for case 2 (McGraw &
Wong 1996, Table 7). Shrout & Fleiss, "Intraclass correlations: uses in
assessing rater reliability", Psychological Bulletin 86(2):420-428, 1979;
McGraw & Wong, "Forming inferences about some intraclass correlation
coefficients", Psychological Methods 1(1):30-46, 1996 (``pingouin.intraclass_corr``,
the tests' oracle).

ICC needs every target judged by every judge: :func:`complete` keeps the
items every assessor judged and says how many it dropped.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

FORMS: tuple[str, ...] = ("icc1", "icc2", "icc3", "icc1k", "icc2k", "icc3k")
LABELS = {"icc1": "ICC(1,1)", "icc2": "ICC(2,1)", "icc3": "ICC(3,1)",
          "icc1k": "ICC(1,k)", "icc2k": "ICC(2,k)", "icc3k": "ICC(3,k)"}


@dataclass(frozen=True)
class ICC:
    """One form's value, F statistic with its degrees of freedom, and interval."""

    form: str
    value: float
    low: float
    high: float
    f: float
    df1: float
    df2: float
    n: int
    k: int


def complete(codes: np.ndarray) -> tuple[np.ndarray, int]:
    """Rows judged by every assessor (codes >= 0), and how many judged rows were dropped."""
    judged = (codes >= 0).any(axis=1)
    full = (codes >= 0).all(axis=1)
    return np.flatnonzero(full), int((judged & ~full).sum())


def mean_squares(x: np.ndarray) -> tuple[float, float, float, float]:
    """MS_R (targets), MS_C (judges), MS_E (residual), MS_W (within targets) of x (n, k)."""
    x = np.asarray(x, dtype=np.float64)
    n, k = x.shape
    grand = x.mean()
    ssr = k * ((x.mean(axis=1) - grand) ** 2).sum()
    ssc = n * ((x.mean(axis=0) - grand) ** 2).sum()
    sst = ((x - grand) ** 2).sum()
    sse = sst - ssr - ssc
    # The sums of squares come from differences of sums: a part that is 0 in exact
    # arithmetic comes out as rounding noise (+-1e-16 of the total), which would then
    # divide into an ICC of -1e16 in one judge order and be undefined in another.
    # Noise is snapped to 0 so a degenerate form is undefined in every order.
    tiny = 1e-12 * sst
    ssr, ssc, sse = (0.0 if v <= tiny else v for v in (ssr, ssc, sse))
    return (ssr / (n - 1), ssc / (k - 1), sse / ((n - 1) * (k - 1)),
            (ssc + sse) / (n * (k - 1)))


def _div(a: float, b: float, scale: float = 0.0) -> float:
    """Every denominator here is a sum of mean squares that should be positive; with
    degenerate data the ANOVA estimate can be 0 or negative (ICC(2,k) of 4.0 on 3 x 2
    data), and a value there would be an artefact, not an ICC: undefined instead.
    A combination of mean squares that is 0 in exact arithmetic comes out as rounding
    noise: below ``1e-12 * scale`` (the sum of the mean squares) it counts as 0."""
    return a / b if b > 1e-12 * scale else float("nan")


def _mean_of_k(bound: float, k: int) -> float:
    """A bound of ICC(2,1) as ICC(2,k)'s (Spearman-Brown: b k / (1 + b (k - 1))). At
    b = -1/(k - 1) the denominator is 0 in exact arithmetic and comes out as rounding
    noise, which divided into a bound of -1e13 in one judge order and -1e13 + 1e10 in
    another (hypothesis, 2 complete targets of 3 judges): undefined there instead."""
    den = 1 + bound * (k - 1)
    return bound * k / den if abs(den) > 1e-9 else float("nan")


def icc(x: np.ndarray, level: float = 0.95) -> dict[str, ICC]:
    """The six ICC forms of the (n targets, k judges) matrix ``x``, each with its interval.

    NaN values (and intervals) mark an undefined form: fewer than 2 targets or
    judges, no variance, or a denominator whose ANOVA estimate is not positive
    (pingouin returns the artefact there, e.g. ICC(2,k) = 4).
    """
    from scipy.stats import f as fdist  # scipy: only when an ICC is asked for

    from relkit.judging.agreement.frame import AgreementError
    from relkit.metrics.core.levels import check_unit

    check_unit("icc", "level", level, AgreementError)
    x = np.asarray(x, dtype=np.float64)
    n, k = x.shape
    nan = float("nan")
    if n < 2 or k < 2:
        return {f: ICC(f, nan, nan, nan, nan, nan, nan, n, k) for f in FORMS}
    msr, msc, mse, msw = mean_squares(x)
    scale = msr + msc + mse + msw
    a = 1 - level
    with np.errstate(invalid="ignore", divide="ignore"):
        icc1 = _div(msr - msw, msr + (k - 1) * msw, scale)
        icc2 = _div(msr - mse, msr + (k - 1) * mse + k * (msc - mse) / n, scale)
        icc3 = _div(msr - mse, msr + (k - 1) * mse, scale)
        f1, df1, df1w = _div(msr, msw, scale), n - 1, n * (k - 1)
        f3, df3 = _div(msr, mse, scale), (n - 1) * (k - 1)
        f1l = f1 / fdist.ppf(1 - a / 2, df1, df1w)
        f1u = f1 * fdist.ppf(1 - a / 2, df1w, df1)
        f3l = f3 / fdist.ppf(1 - a / 2, df1, df3)
        f3u = f3 * fdist.ppf(1 - a / 2, df3, df1)
        fj = _div(msc, mse, scale)
        # Satterthwaite's df for ICC(2,1) (McGraw & Wong 1996, Table 7, case 2A)
        vn = df3 * (k * icc2 * fj + n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        vd = df1 * k ** 2 * icc2 ** 2 * fj ** 2 + (n * (1 + (k - 1) * icc2) - k * icc2) ** 2
        v = _div(vn, vd)
        f2u = fdist.ppf(1 - a / 2, n - 1, v)
        f2l = fdist.ppf(1 - a / 2, v, n - 1)
        l2 = n * (msr - f2u * mse) / (f2u * (k * msc + (k * n - k - n) * mse) + n * msr)
        u2 = n * (f2l * msr - mse) / (k * msc + (k * n - k - n) * mse + n * f2l * msr)
        out = {
            "icc1": (icc1, (f1l - 1) / (f1l + k - 1), (f1u - 1) / (f1u + k - 1), f1, df1w),
            "icc2": (icc2, l2, u2, f3, df3),
            "icc3": (icc3, (f3l - 1) / (f3l + k - 1), (f3u - 1) / (f3u + k - 1), f3, df3),
            "icc1k": (_div(msr - msw, msr, scale), 1 - 1 / f1l, 1 - 1 / f1u, f1, df1w),
            "icc2k": (_div(msr - mse, msr + (msc - mse) / n, scale), _mean_of_k(l2, k),
                      _mean_of_k(u2, k), f3, df3),
            "icc3k": (_div(msr - mse, msr, scale), 1 - 1 / f3l, 1 - 1 / f3u, f3, df3),
        }
    return {name: ICC(name, float(val), float(lo), float(hi), float(fs), float(df1), float(d2),
                      n, k) for name, (val, lo, hi, fs, d2) in out.items()}
