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
from collections.abc import Callable

from relkit.metrics.online.ab.errors import ParameterError, check_open_unit

# The search for n (or the effect) doubles its upper bound until the power is reached;
# past this many units per arm it stops and says the power is out of reach (a target
# of 1, or an effect too small for float arithmetic), rather than loop for ever.
MAX_N = 1e15
# Below this alpha the critical t is so far out that scipy's noncentral t takes minutes
# per value and then returns NaN (alpha 1e-300: 255 s); no design tests at such levels.
MIN_ALPHA = 1e-12


def _positive(param: str, value: float) -> None:
    if not (value > 0 and math.isfinite(value)):
        raise ParameterError(param, f"{param} must be a positive number; got {value}")


def _solve(gap: Callable[[float], float], lo: float, start: float, what: str) -> float:
    """The root of the increasing ``gap`` above ``lo``: its bound doubled from
    ``start`` up to :data:`MAX_N` (Brent's method, as R's ``uniroot``)."""
    from scipy.optimize import brentq

    if gap(lo) >= 0:
        return lo   # reached at the smallest value already
    hi = start
    while not gap(hi) >= 0:  # NaN (no power computed) goes on to the bound
        if hi >= MAX_N:
            raise ParameterError("power", f"the power asked for is not reached "
                                      f"with any {what} up to {MAX_N:.0e}")
        hi *= 2
    return float(brentq(gap, lo, hi, xtol=1e-10))


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

    check_open_unit("alpha", alpha)
    if alpha < MIN_ALPHA:
        raise ParameterError("alpha", f"alpha must be at least {MIN_ALPHA:g} for the t test's "
                             f"power; got {alpha:g}")
    _positive("sd", sd)
    if not n > 1:
        raise ParameterError("n", f"n must be more than 1 unit per arm; got {n}")
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
    delta = 1 sd); 2 when two units per arm already have the power. ``power`` and
    ``alpha`` must lie in (0, 1) and ``delta`` be non-zero
    (:class:`ParameterError` otherwise, never an endless search).
    """
    check_open_unit("power", power)
    check_open_unit("alpha", alpha)
    _positive("sd", sd)
    _positive("mde", abs(delta))

    def gap(n: float) -> float:
        return power_t(n, delta, sd, alpha, strict=strict) - power

    return _solve(gap, 2.0, 4.0, "n")


def mde_t(n: float, power: float, sd: float = 1.0, alpha: float = 0.05, *,
          strict: bool = False) -> float:
    """The smallest effect detected with ``power`` by *n* units per arm (in ``sd``'s unit).

    ``power`` must exceed the power of a null effect (``alpha``/2 one-sided, ``alpha``
    with ``strict``) and be below 1 (:class:`ParameterError` otherwise).
    """
    from scipy.optimize import brentq

    check_open_unit("power", power)
    check_open_unit("alpha", alpha)
    _positive("sd", sd)

    def gap(d: float) -> float:
        return power_t(n, d, sd, alpha, strict=strict) - power

    if gap(1e-12 * sd) >= 0:
        raise ParameterError("power", f"power {power} is no more than a null "
                                  f"effect's at alpha {alpha}: every effect has it")
    hi = sd
    while not gap(hi) >= 0:
        if hi >= MAX_N * sd:
            raise ParameterError("power", f"power {power} is not reached with "
                                      f"{n} units per arm by any effect")
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

    check_open_unit("alpha", alpha)
    for name, p in (("p1", p1), ("p2", p2)):
        check_open_unit(name, p)
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
    """Units per arm for ``power`` to tell ``p1`` from ``p2`` (76.65 for 0.5 vs 0.75 at 0.9).

    ``power``, ``alpha``, ``p1`` and ``p2`` must lie in (0, 1), ``p1 != p2``
    (:class:`ParameterError` otherwise, never an endless search).
    """
    check_open_unit("power", power)
    check_open_unit("alpha", alpha)
    if p1 == p2:
        raise ParameterError("mde", "p1 and p2 are equal: no effect to detect")

    def gap(n: float) -> float:
        return power_prop(n, p1, p2, alpha, strict=strict) - power

    return _solve(gap, 2.0, 4.0, "n")
