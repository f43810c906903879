"""The treatment effect on a ratio metric: delta method, CUPED, relative change.

Every function takes per-unit sums (numerator ``x``, denominator ``y`` per user, and
optionally the same for a pre-period covariate) of the two arms. A plain per-user mean
(``sessions_per_user``) is the ratio with ``y = 1``, and then the test is exactly
Welch's t test.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from relkit.metrics.online.ab.moments import ratio, ratio_cov, ratio_var

if TYPE_CHECKING:
    from relkit.metrics.online.ab.moments import FloatArray

Relative = Literal["log", "fieller"]
RELATIVE: tuple[str, ...] = get_args(Relative)


@dataclass(frozen=True)
class Arm:
    """One arm's per-unit sums: metric numerator/denominator, covariate's (or None)."""

    x: FloatArray
    y: FloatArray
    xc: FloatArray | None = None
    yc: FloatArray | None = None

    @property
    def n(self) -> int:
        """Units in the arm."""
        return len(self.x)


@dataclass(frozen=True, kw_only=True)
class Effect:
    """The comparison of treatment with control on one metric.

    ``control``/``treatment`` are the arms' estimates (CUPED-adjusted when a covariate
    was given), ``delta = treatment - control`` with its interval, ``rel`` the relative
    change ``treatment / control - 1`` with its interval, ``p`` the two-sided p-value,
    ``se`` the standard error of ``delta``, ``df`` the Welch degrees of freedom, and
    ``variance_reduction`` the share of ``se**2`` CUPED removed (None without CUPED).
    """

    n_control: int
    n_treatment: int
    control: float
    treatment: float
    delta: float
    delta_low: float
    delta_high: float
    rel: float
    rel_low: float
    rel_high: float
    p: float
    se: float
    df: float
    statistic: float
    variance_reduction: float | None = None


def welch_df(v1: float, n1: float, v2: float, n2: float) -> float:
    r"""Welch–Satterthwaite degrees of freedom of a difference of two means.

    .. math:: \nu = \frac{(v_1/n_1 + v_2/n_2)^2}{\frac{(v_1/n_1)^2}{n_1-1}
              + \frac{(v_2/n_2)^2}{n_2-1}}

    B. L. Welch, "The generalization of Student's problem when several different
    population variances are involved", Biometrika 34, 1947.
    """
    if n1 <= 1 or n2 <= 1:
        return float("nan")  # an arm of one unit has no variance to weigh
    a, b = v1 / n1, v2 / n2
    den = a * a / (n1 - 1) + b * b / (n2 - 1)
    return (a + b) ** 2 / den if den > 0 else float("inf")


def cuped_theta(control: Arm, treatment: Arm) -> float:
    r"""CUPED's coefficient :math:`\theta = \sigma_{R,R_c} / \sigma^2_{R_c}`, both arms pooled.

    :math:`R` is the metric's ratio and :math:`R_c` the covariate's, the (co)variances
    by the delta method (:func:`~.moments.ratio_cov`). 0 when the covariate is constant.
    Deng, Xu, Kohavi & Walker, "Improving the Sensitivity of Online Controlled
    Experiments by Utilizing Pre-Experiment Data", WSDM 2013, eq. (4) and section 3.3.
    """
    assert control.xc is not None and control.yc is not None
    assert treatment.xc is not None and treatment.yc is not None
    x, y = np.concatenate([control.x, treatment.x]), np.concatenate([control.y, treatment.y])
    xc = np.concatenate([control.xc, treatment.xc])
    yc = np.concatenate([control.yc, treatment.yc])
    vc = ratio_var(xc, yc)
    if not vc > 0:
        return 0.0
    return ratio_cov(x, y, xc, yc) / vc


def _arm_stats(arm: Arm, theta: float, cov_mean: float) -> tuple[float, float]:
    # The arm's (adjusted) mean and per-unit variance (Deng et al. 2013, eq. (3)):
    # Y_cv = Y - theta (X - E X), Var = Var Y + theta^2 Var X - 2 theta Cov(Y, X).
    mean, var = ratio(arm.x, arm.y), ratio_var(arm.x, arm.y)
    if arm.xc is None or arm.yc is None:
        return mean, var
    rc = ratio(arm.xc, arm.yc)
    cvar, ccov = ratio_var(arm.xc, arm.yc), ratio_cov(arm.x, arm.y, arm.xc, arm.yc)
    return mean - theta * (rc - cov_mean), var + theta * theta * cvar - 2 * theta * ccov


def ratio_effect(control: Arm, treatment: Arm, *, level: float = 0.95,
                 relative: Relative = "log", use_t: bool = True) -> Effect:
    r"""Effect of the treatment on a ratio metric, variance by the delta method.

    Each arm's estimate is :math:`R = \bar X / \bar Y` (with CUPED, when the arms
    carry covariates, :math:`R - \theta(R_c - \bar R_c)` with :math:`\bar R_c` the
    pooled covariate ratio, :func:`cuped_theta`), its variance :math:`\sigma^2/n`
    (:func:`~.moments.ratio_var`). The difference
    :math:`\Delta = R_T - R_C` has :math:`SE = \sqrt{\sigma_T^2/n_T + \sigma_C^2/n_C}`;
    the test is Welch's t with the Welch–Satterthwaite degrees of freedom
    (``use_t=False``: the normal), :math:`p = 2\,P(T_\nu > |\Delta|/SE)`.

    The relative change :math:`R_T/R_C - 1` has an interval by either

    - ``"log"`` (default): the delta method on :math:`\log(R_T/R_C)`, whose variance is
      :math:`\sigma_T^2/(n_TR_T^2) + \sigma_C^2/(n_CR_C^2)`; the interval
      :math:`(R_T/R_C)\,e^{\pm q\,SE_{\log}} - 1` is asymmetric and never crosses -100%
      (as tea-tasting does);
    - ``"fieller"``: Fieller's theorem, the set of :math:`\rho` with
      :math:`(R_T - \rho R_C)^2 \le q^2(V_T + \rho^2 V_C)` (arms independent); when
      :math:`R_C^2 \le q^2 V_C` the set is unbounded and the interval is
      :math:`(-\infty, \infty)`.

    Parameters
    ----------
    control, treatment
        The arms' per-unit sums; with covariates in both for CUPED.
    level
        Confidence level of the intervals.
    relative
        ``"log"`` or ``"fieller"``, the relative interval.
    use_t
        Student's t with Welch's df (default) or the normal distribution.

    References
    ----------
    Deng, Knoblich & Lu, KDD 2018 (delta method; log ratio, section 3.4);
    Deng, Xu, Kohavi & Walker, WSDM 2013 (CUPED);
    E. C. Fieller, "Some problems in interval estimation", JRSS B 16, 1954.
    """
    from scipy import stats

    cuped = control.xc is not None and treatment.xc is not None
    theta, cov_mean = 0.0, 0.0
    if cuped:
        assert control.xc is not None and control.yc is not None
        assert treatment.xc is not None and treatment.yc is not None
        theta = cuped_theta(control, treatment)
        cov_mean = ratio(np.concatenate([control.xc, treatment.xc]),
                         np.concatenate([control.yc, treatment.yc]))
    mc, vc = _arm_stats(control, theta, cov_mean)
    mt, vt = _arm_stats(treatment, theta, cov_mean)
    nc, nt = control.n, treatment.n
    se = math.sqrt(vc / nc + vt / nt)
    q_level = (1 + level) / 2
    df = welch_df(vc, nc, vt, nt) if use_t else float("inf")

    def quantile(dof: float) -> float:
        return float(stats.t.ppf(q_level, dof) if use_t else stats.norm.ppf(q_level))

    delta = mt - mc
    stat = delta / se if se > 0 else float("nan")
    p = float(2 * (stats.t.sf(abs(stat), df) if use_t else stats.norm.sf(abs(stat))))
    q = quantile(df)
    rel_low, rel_high = relative_interval(mc, vc / nc, mt, vt / nt, nc, nt, q_level,
                                          relative, use_t)
    reduction = None
    if cuped:
        raw_c, raw_t = Arm(control.x, control.y), Arm(treatment.x, treatment.y)
        raw = ratio_var(raw_c.x, raw_c.y) / nc + ratio_var(raw_t.x, raw_t.y) / nt
        reduction = 1 - se * se / raw if raw > 0 else 0.0
    return Effect(n_control=nc, n_treatment=nt, control=mc, treatment=mt, delta=delta,
                  delta_low=delta - q * se, delta_high=delta + q * se,
                  rel=mt / mc - 1 if mc != 0 else float("nan"), rel_low=rel_low,
                  rel_high=rel_high, p=p, se=se, df=df, statistic=stat,
                  variance_reduction=reduction)


def relative_interval(mc: float, var_mc: float, mt: float, var_mt: float, nc: int, nt: int,
                      q_level: float, method: Relative = "log",
                      use_t: bool = True) -> tuple[float, float]:
    r"""Interval of :math:`m_T/m_C - 1` by the log-ratio delta method or by Fieller.

    ``var_mc``/``var_mt`` are the variances of the arm means (:math:`\sigma^2/n`);
    the quantile is Student's t at the Welch df of the quantity (log ratio, or the
    difference for Fieller) unless ``use_t`` is False. See :func:`ratio_effect`.
    """
    from scipy import stats

    if mc == 0 or mt == 0:
        return float("nan"), float("nan")

    def quantile(v1: float, v2: float) -> float:
        if not use_t:
            return float(stats.norm.ppf(q_level))
        return float(stats.t.ppf(q_level, welch_df(v1 * nc, nc, v2 * nt, nt)))

    r = mt / mc
    if method == "log":
        lc, lt = var_mc / mc / mc, var_mt / mt / mt
        half = math.exp(quantile(lc, lt) * math.sqrt(lc + lt))
        return r / half - 1, r * half - 1
    q = quantile(var_mc, var_mt)
    a = mc * mc - q * q * var_mc
    if a <= 0:
        return float("-inf"), float("inf")
    b = mc * mt
    c = mt * mt - q * q * var_mt
    disc = b * b - a * c
    root = math.sqrt(max(disc, 0.0))
    return (b - root) / a - 1, (b + root) / a - 1


def bootstrap_effect(control: Arm, treatment: Arm, *, samples: int = 1000, seed: int = 0,
                     level: float = 0.95) -> Effect:
    r"""Effect on a ratio metric with a cluster (user) bootstrap instead of the delta method.

    Users are resampled with replacement within each arm ``samples`` times (seeded);
    each replicate recomputes :math:`\bar X/\bar Y` per arm, so the whole user (all
    of their queries) is the resampled cluster. The SE of :math:`\Delta` is the
    replicates' standard deviation; the intervals are percentile intervals (the
    relative one from the replicates' ratios); the p-value is the normal test of
    :math:`\Delta/SE`.

    Reference: B. Efron & R. Tibshirani, *An Introduction to the Bootstrap*, 1993,
    chapter 13; for clusters, A. C. Davison & D. V. Hinkley, *Bootstrap Methods and
    their Application*, 1997, section 3.8.
    """
    from scipy import stats

    rng = np.random.default_rng(seed)
    mc, mt = ratio(control.x, control.y), ratio(treatment.x, treatment.y)
    diffs = np.empty(samples)
    rels = np.empty(samples)
    for b in range(samples):
        rc = _resampled_ratio(control, rng)
        rt = _resampled_ratio(treatment, rng)
        diffs[b] = rt - rc
        rels[b] = rt / rc - 1 if rc != 0 else np.nan
    se = float(np.std(diffs, ddof=1))
    tail = (1 - level) / 2
    lo, hi = np.quantile(diffs, [tail, 1 - tail])
    rlo, rhi = np.nanquantile(rels, [tail, 1 - tail])
    delta = mt - mc
    stat = delta / se if se > 0 else float("nan")
    return Effect(n_control=control.n, n_treatment=treatment.n, control=mc, treatment=mt,
                  delta=delta, delta_low=float(lo), delta_high=float(hi),
                  rel=mt / mc - 1 if mc != 0 else float("nan"), rel_low=float(rlo),
                  rel_high=float(rhi), p=float(2 * stats.norm.sf(abs(stat))), se=se,
                  df=float("inf"), statistic=stat)


def _resampled_ratio(arm: Arm, rng: np.random.Generator) -> float:
    # Poisson(1) weights would be faster but are not the classical bootstrap; an index
    # draw per replicate keeps n fixed.
    idx = rng.integers(0, arm.n, size=arm.n)
    den = float(arm.y[idx].sum())
    return float(arm.x[idx].sum()) / den if den else float("nan")
