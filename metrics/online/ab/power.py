"""Power, sample size and minimum detectable effect of a two-arm test.

The t-test functions follow R's ``power.t.test`` (two-sample, two-sided, equal n per
arm, noncentral t with :math:`2(n-1)` df), the proportion functions R's
``power.prop.test`` (normal approximation). Solving for *n* or the effect uses Brent's
method, as R's ``uniroot``. For a ratio metric, ``sd`` is the per-user delta-method
standard deviation (:func:`~.moments.ratio_var`) estimated from a log.

References
----------
R Core Team, ``stats::power.t.test`` and ``stats::power.prop.test``;
J. Cohen, *Statistical Power Analysis for the Behavioral Sciences*, 2nd ed., 1988.
"""

from __future__ import annotations

import math


def power_t(n: float, delta: float, sd: float = 1.0, alpha: float = 0.05, *,
            strict: bool = False) -> float:
    r"""Power of the two-sided two-sample t test with *n* units per arm.

    .. math::

        \nu = 2(n-1),\quad \lambda = \sqrt{n/2}\,\frac{\delta}{\sigma},\quad
        \text{power} = P(T_{\nu,\lambda} > t_{1-\alpha/2,\nu})
        \;[+\,P(T_{\nu,\lambda} < -t_{1-\alpha/2,\nu}) \text{ if strict}]

    ``strict=False`` counts the upper tail only, R's default (``power.t.test(n = 20,
    delta = 1)`` is 0.8689528); ``strict=True`` adds the far tail (tea-tasting's).
    """
    from scipy import stats

    df = 2 * (n - 1)
    nc = math.sqrt(n / 2) * abs(delta) / sd
    crit = stats.t.isf(alpha / 2, df)
    power = float(stats.nct.sf(crit, df, nc))
    if strict:
        power += float(stats.nct.cdf(-crit, df, nc))
    return power


def n_t(power: float, delta: float, sd: float = 1.0, alpha: float = 0.05, *,
        strict: bool = False) -> float:
    """Units per arm for ``power`` at effect ``delta`` (R's ``power.t.test(power=...)``).

    The root of :func:`power_t` in *n* (not rounded: 22.0211 for power 0.9 at
    delta = 1 sd).
    """
    from scipy.optimize import brentq

    def gap(n: float) -> float:
        return power_t(n, delta, sd, alpha, strict=strict) - power

    hi = 4.0
    while gap(hi) < 0:
        hi *= 2
    return float(brentq(gap, 2.0, hi, xtol=1e-10))


def mde_t(n: float, power: float, sd: float = 1.0, alpha: float = 0.05, *,
          strict: bool = False) -> float:
    """The smallest effect detected with ``power`` by *n* units per arm (in ``sd``'s unit)."""
    from scipy.optimize import brentq

    def gap(d: float) -> float:
        return power_t(n, d, sd, alpha, strict=strict) - power

    hi = sd
    while gap(hi) < 0:
        hi *= 2
    return float(brentq(gap, 1e-12 * sd, hi, xtol=1e-14 * sd))


def power_prop(n: float, p1: float, p2: float, alpha: float = 0.05, *,
               strict: bool = False) -> float:
    r"""Power of the two-sided test of two proportions with *n* per arm (``power.prop.test``).

    .. math::

        \text{power} = \Phi\!\left(\frac{\sqrt n\,|p_1-p_2| - z_{1-\alpha/2}
        \sqrt{(p_1+p_2)(1-\bar p)}}{\sqrt{p_1(1-p_1)+p_2(1-p_2)}}\right),
        \quad \bar p = (p_1+p_2)/2

    (``strict=True`` adds the far tail, as R's ``strict = TRUE``).
    """
    from scipy import stats

    qu = stats.norm.isf(alpha / 2)
    d = abs(p1 - p2)
    q1, q2 = 1 - p1, 1 - p2
    pbar = (p1 + p2) / 2
    spread = math.sqrt(p1 * q1 + p2 * q2)
    pooled = math.sqrt((p1 + p2) * (1 - pbar))
    power = float(stats.norm.cdf((math.sqrt(n) * d - qu * pooled) / spread))
    if strict:
        power += float(stats.norm.cdf((-math.sqrt(n) * d - qu * pooled) / spread))
    return power


def n_prop(power: float, p1: float, p2: float, alpha: float = 0.05, *,
           strict: bool = False) -> float:
    """Units per arm for ``power`` to tell ``p1`` from ``p2`` (76.65 for 0.5 vs 0.75 at 0.9)."""
    from scipy.optimize import brentq

    def gap(n: float) -> float:
        return power_prop(n, p1, p2, alpha, strict=strict) - power

    hi = 4.0
    while gap(hi) < 0:
        hi *= 2
    return float(brentq(gap, 2.0, hi, xtol=1e-10))
