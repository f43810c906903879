"""Sample moments of ratio metrics by the delta method, from per-unit sums.

A query-level metric analysed at the randomisation unit (the user) is a *ratio of
means*: with :math:`X_i` the sum of the metric over user *i*'s queries and :math:`Y_i`
the user's query count, the estimate is :math:`R = \\bar X / \\bar Y`. The users are
independent, the queries of one user are not; the delta method linearises *R* around
the means and gives its variance from the per-user moments only.

References
----------
A. Deng, U. Knoblich & J. Lu, "Applying the Delta Method in Metric Analytics: A
Practical Guide with Novel Ideas", KDD 2018.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

    FloatArray = npt.NDArray[np.float64]


def _cov(a: FloatArray, b: FloatArray) -> float:
    # Sample covariance (ddof = 1), in two passes for accuracy at 10^7 users.
    n = len(a)
    if n < 2:
        return float("nan")
    return float(np.dot(a - a.mean(), b - b.mean()) / (n - 1))


def ratio(x: FloatArray, y: FloatArray) -> float:
    """The ratio of means :math:`\\bar X / \\bar Y` (NaN when :math:`\\bar Y = 0`).

    Parameters
    ----------
    x, y
        Per-unit numerator and denominator sums.
    """
    my = float(np.mean(y)) if len(y) else 0.0
    return float(np.mean(x)) / my if my != 0 else float("nan")


def ratio_var(x: FloatArray, y: FloatArray) -> float:
    r"""Per-unit variance of the ratio of means by the delta method.

    .. math::

        \sigma^2_R = \frac{1}{\mu_Y^2}\left(\sigma^2_X - 2\frac{\mu_X}{\mu_Y}\sigma_{XY}
        + \frac{\mu_X^2}{\mu_Y^2}\sigma^2_Y\right)

    with sample (ddof = 1) variances and covariance; :math:`\operatorname{Var}(R)
    \approx \sigma^2_R / n`. With :math:`Y \equiv 1` it is the sample variance of *X*
    (the plain mean). Deng, Knoblich & Lu (KDD 2018), eq. (2); tea-tasting's
    ``Aggregates.ratio_var`` is the same formula.

    Parameters
    ----------
    x, y
        Per-unit numerator and denominator sums.

    Returns
    -------
    float
        :math:`\sigma^2_R` (NaN with fewer than two units or :math:`\mu_Y = 0`).
    """
    return ratio_cov(x, y, x, y)


def ratio_cov(x1: FloatArray, y1: FloatArray, x2: FloatArray, y2: FloatArray) -> float:
    r"""Per-unit covariance of two ratios of means on the same units, by the delta method.

    .. math::

        \sigma_{R_1R_2} = \frac{\sigma_{X_1X_2} - r_2\sigma_{X_1Y_2} - r_1\sigma_{Y_1X_2}
        + r_1r_2\sigma_{Y_1Y_2}}{\mu_{Y_1}\mu_{Y_2}}, \qquad r_k = \mu_{X_k}/\mu_{Y_k}.

    The covariance between the metric and its pre-period covariate that CUPED needs
    (Deng, Xu, Kohavi & Walker, WSDM 2013, section 3.3 for ratio metrics).

    Parameters
    ----------
    x1, y1, x2, y2
        Per-unit sums of the two ratios' numerators and denominators.
    """
    my1, my2 = float(np.mean(y1)), float(np.mean(y2))
    if my1 == 0 or my2 == 0:
        return float("nan")
    r1, r2 = float(np.mean(x1)) / my1, float(np.mean(x2)) / my2
    return (_cov(x1, x2) - r2 * _cov(x1, y2) - r1 * _cov(y1, x2)
            + r1 * r2 * _cov(y1, y2)) / my1 / my2
