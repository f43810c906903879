"""Effect size of a paired difference, and confidence intervals of a mean."""

from __future__ import annotations

import numpy as np


def cohens_dz(D: np.ndarray) -> np.ndarray:
    r"""Standardised mean difference of paired scores, per column of ``D``.

    .. math:: d_z = \bar d / s_d

    with :math:`s_d` the sample standard deviation (ddof 1) of the per-topic
    differences; :math:`t = d_z \sqrt n` for the paired t test. NaN when every
    difference is equal (s_d = 0), since no scale is defined then.
    Conventional reading: 0.2 small, 0.5 medium, 0.8 large.

    Reference: J. Cohen, Statistical Power Analysis for the Behavioral Sciences,
    2nd ed., 1988, section 2.3 (d_z); D. Lakens, "Calculating and reporting
    effect sizes", Frontiers in Psychology 4, 2013, eq. 6.
    """
    D = np.asarray(D, dtype=np.float64)
    if D.ndim == 1:
        D = D[:, None]
    sd = D.std(axis=0, ddof=1) if len(D) > 1 else np.zeros(D.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(sd > 0, D.mean(axis=0) / np.where(sd > 0, sd, 1.0), np.nan)


def t_interval(x: np.ndarray, level: float) -> tuple[np.ndarray, np.ndarray]:
    r"""Student-t confidence interval of the mean of each column of ``x``.

    .. math:: \bar x \pm t_{n-1,\,(1+\gamma)/2}\; s / \sqrt n

    As ``scipy.stats.ttest_1samp(x).confidence_interval(level)``. A single
    topic gives an interval of width 0 (undefined otherwise).
    """
    from scipy import stats

    from relkit.metrics.core.errors import MeasureError
    from relkit.metrics.core.levels import check_unit

    check_unit("t_interval", "level", level, MeasureError)
    x = np.asarray(x, dtype=np.float64)
    n = len(x)
    mean = x.mean(axis=0)
    if n < 2:
        return mean, mean
    half = stats.t.ppf((1 + level) / 2, n - 1) * x.std(axis=0, ddof=1) / np.sqrt(n)
    return mean - half, mean + half


def bootstrap_interval(x: np.ndarray, level: float, samples: int, seed: int
                       ) -> tuple[np.ndarray, np.ndarray]:
    """Percentile bootstrap interval of the mean of each column of ``x``.

    The resamples are those of ``scipy.stats.bootstrap`` for the same seed, and
    so is the interval (``method='percentile'``).

    Reference: Efron & Tibshirani, An Introduction to the Bootstrap, 1993, ch. 13.
    """
    from relkit.metrics.compare.significance import bootstrap_means
    from relkit.metrics.core.errors import MeasureError
    from relkit.metrics.core.levels import check_unit

    check_unit("bootstrap_interval", "level", level, MeasureError)
    x = np.asarray(x, dtype=np.float64)
    means = bootstrap_means(x.reshape(len(x), -1), samples, seed)
    tail = (1 - level) / 2 * 100
    low, high = np.percentile(means, [tail, 100 - tail], axis=0)
    return low.reshape(x.shape[1:]), high.reshape(x.shape[1:])
