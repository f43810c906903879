"""Looking at an experiment more than once: group-sequential bounds and mSPRT p-values.

A fixed-horizon test read every day rejects far more often than its alpha. Two ways to
look repeatedly and keep the error rate:

- :func:`obrien_fleming_bounds`: the z boundaries of a group-sequential design whose
  type I error is spent by the Lan–DeMets O'Brien–Fleming-type function, at any
  information fractions decided as the data comes;
- :func:`msprt`: always-valid p-values (and intervals) of the mixture sequential
  probability ratio test, valid at every look however many there are.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from relkit.metrics.online.ab.errors import ABError

_GRID = 1201  # Simpson points per look: the bounds agree with ldbounds to ~1e-4


def obf_spending(t: float, alpha: float = 0.05) -> float:
    r"""Type I error spent by information fraction *t*, O'Brien–Fleming type (two-sided).

    .. math:: \alpha^*(t) = 4 - 4\,\Phi\!\left(z_{1-\alpha/4}/\sqrt t\right),
              \quad \alpha^*(1) = \alpha

    each side spending :math:`\alpha/2` by the one-sided O'Brien–Fleming-type function
    :math:`2 - 2\Phi(z_{1-\alpha'/2}/\sqrt t)` with :math:`\alpha' = \alpha/2` (the
    symmetric two-sided design of R's ``ldbounds`` and ``gsDesign``).

    K. K. G. Lan & D. L. DeMets, "Discrete sequential boundaries for clinical trials",
    Biometrika 70(3), 1983.
    """
    from scipy import stats

    if t <= 0:
        return 0.0
    return float(4 * stats.norm.sf(stats.norm.isf(alpha / 4) / math.sqrt(min(t, 1.0))))


def _simpson_weights(n: int, width: float) -> np.ndarray:
    w = np.ones(n)
    w[1:-1:2], w[2:-1:2] = 4, 2
    out: np.ndarray = w * width / (n - 1) / 3
    return out


def obrien_fleming_bounds(fractions: Sequence[float], alpha: float = 0.05) -> list[float]:
    r"""Two-sided z boundaries :math:`c_k` at information fractions :math:`t_1 < \dots < t_K`.

    :math:`c_k` solves :math:`P(|Z_1|<c_1, \dots, |Z_{k-1}|<c_{k-1}, |Z_k| \ge c_k) =
    \alpha^*(t_k) - \alpha^*(t_{k-1})` under the null, where the score
    :math:`S_k = Z_k\sqrt{t_k}` has independent normal increments of variance
    :math:`t_k - t_{k-1}`. The density of :math:`S_k` on the continuation region is
    carried from look to look by numerical integration (Simpson's rule), the recursion of
    Armitage, McPherson & Rowe (1969) as in Jennison & Turnbull, *Group Sequential
    Methods with Applications to Clinical Trials*, 2000, chapter 19. The first bound is
    exactly :math:`z_{1-\alpha^*(t_1)/2}`; with five equal looks at alpha 0.05 the bounds
    are 4.877, 3.357, 2.680, 2.290, 2.031 (R's ``ldbounds``).

    Parameters
    ----------
    fractions
        Increasing information fractions in (0, 1] (users so far / planned users).
    alpha
        Overall two-sided type I error.
    """
    from scipy import optimize, stats

    t = [float(x) for x in fractions]
    if not t or any(b <= a for a, b in zip(t, t[1:], strict=False)) or t[0] <= 0 or t[-1] > 1:
        raise ABError(f"information fractions must increase within (0, 1]; got {t}")
    bounds = [float(stats.norm.isf(obf_spending(t[0], alpha) / 2))]
    # The density of S on the continuation region after look 1.
    half = bounds[0] * math.sqrt(t[0])
    grid = np.linspace(-half, half, _GRID)
    dens = stats.norm.pdf(grid, scale=math.sqrt(t[0]))
    for k in range(1, len(t)):
        target = obf_spending(t[k], alpha) - obf_spending(t[k - 1], alpha)
        sd = math.sqrt(t[k] - t[k - 1])
        wdens = dens * _simpson_weights(len(grid), grid[-1] - grid[0])
        root_t = math.sqrt(t[k])

        def excess(c: float, wdens: np.ndarray = wdens, grid: np.ndarray = grid,
                   sd: float = sd, root_t: float = root_t, target: float = target) -> float:
            # P(continue so far, then exit at this look) minus the alpha to spend here
            b = c * root_t
            tails = stats.norm.sf((b - grid) / sd) + stats.norm.cdf((-b - grid) / sd)
            return float(np.dot(wdens, tails)) - target

        c = float(optimize.brentq(excess, 1e-6, 40.0, xtol=1e-10)) if target > 0 else math.inf
        bounds.append(c)
        if k + 1 < len(t) and math.isfinite(c):
            half = c * root_t
            new = np.linspace(-half, half, _GRID)
            kern = stats.norm.pdf((new[:, None] - grid[None, :]) / sd) / sd
            dens, grid = kern @ wdens, new
    return bounds


@dataclass(frozen=True, kw_only=True)
class MSPRTLook:
    """One look of :func:`msprt`: the always-valid p and interval so far."""

    p: float
    low: float
    high: float


def msprt(estimates: Sequence[float], variances: Sequence[float], tau: float,
          alpha: float = 0.05) -> list[MSPRTLook]:
    r"""Always-valid p-values of the normal mixture SPRT, one per look.

    At a look with estimate :math:`\hat\theta` of the difference and its variance
    :math:`V` (:math:`SE^2`), with a :math:`N(0, \tau^2)` mixture over the effect,

    .. math::

        \Lambda = \sqrt{\frac{V}{V+\tau^2}}
                  \exp\!\left(\frac{\tau^2\hat\theta^2}{2V(V+\tau^2)}\right), \qquad
        p_k = \min(p_{k-1}, 1/\Lambda_k),\ p_0 = 1,

    and the always-valid interval is the running intersection of
    :math:`\hat\theta \pm \sqrt{\tfrac{V(V+\tau^2)}{\tau^2}
    \left(\log\tfrac{V+\tau^2}{V} - 2\log\alpha\right)}`. Rejecting when
    :math:`p_k \le \alpha` at any look keeps the type I error at most alpha.

    References
    ----------
    R. Johari, P. Koomen, L. Pekelis & D. Walsh, "Peeking at A/B Tests: Why it matters,
    and what to do about it", KDD 2017 (eq. (3) and section 4.2).
    """
    if tau <= 0:
        raise ABError(f"the mixture scale tau must be > 0; got {tau}")
    out: list[MSPRTLook] = []
    p, lo, hi = 1.0, float("-inf"), float("inf")
    t2 = tau * tau
    for est, v in zip(estimates, variances, strict=True):
        if v > 0 and math.isfinite(v) and math.isfinite(est):
            log_lr = 0.5 * math.log(v / (v + t2)) + t2 * est * est / (2 * v * (v + t2))
            p = min(p, math.exp(-log_lr)) if log_lr > 0 else p
            width = math.sqrt(v * (v + t2) / t2 * (math.log((v + t2) / v)
                                                    - 2 * math.log(alpha)))
            lo, hi = max(lo, est - width), min(hi, est + width)
        out.append(MSPRTLook(p=p, low=lo, high=hi))
    return out
