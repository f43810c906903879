"""The plain two-sample tests: two-proportion z and Welch t from sums.

The per-impression tests (:func:`proportion_z`, :func:`welch_from_sums`) treat every
query as an independent observation. On user-randomised data that is wrong: a user's
queries are correlated, so their standard error is too small and their p-values too
optimistic (Deng, Knoblich & Lu, KDD 2018, section 3.2). relkit runs them only when the
user asks for ``--unit impression`` explicitly, and flags the output.
"""

from __future__ import annotations

import math

from relkit.metrics.online.ab.effect import Effect, relative_interval, welch_df


def proportion_z(xc: float, nc: float, xt: float, nt: float, *,
                 level: float = 0.95) -> Effect:
    r"""Two-proportion z test: :math:`x_C` successes in :math:`n_C` trials against the treatment's.

    .. math::

        z = \frac{\hat p_T - \hat p_C}{\sqrt{\hat p(1-\hat p)(1/n_C + 1/n_T)}},
        \qquad \hat p = \frac{x_C + x_T}{n_C + n_T}

    (pooled under the null, as ``statsmodels.stats.proportion.proportions_ztest``); the
    interval of the difference uses the unpooled SE
    :math:`\sqrt{\hat p_C(1-\hat p_C)/n_C + \hat p_T(1-\hat p_T)/n_T}` (Wald), the
    relative one the log-ratio delta method.

    Reference: A. Agresti, *Categorical Data Analysis*, 3rd ed., 2013, section 3.1.
    """
    from scipy import stats

    pc, pt = xc / nc, xt / nt
    pooled = (xc + xt) / (nc + nt)
    se0 = math.sqrt(pooled * (1 - pooled) * (1 / nc + 1 / nt))
    z = (pt - pc) / se0 if se0 > 0 else float("nan")
    var_c, var_t = pc * (1 - pc) / nc, pt * (1 - pt) / nt
    se = math.sqrt(var_c + var_t)
    q = float(stats.norm.ppf((1 + level) / 2))
    rlo, rhi = relative_interval(pc, var_c, pt, var_t, int(nc), int(nt), (1 + level) / 2,
                                 "log", use_t=False)
    return Effect(n_control=int(nc), n_treatment=int(nt), control=pc, treatment=pt,
                  delta=pt - pc, delta_low=pt - pc - q * se, delta_high=pt - pc + q * se,
                  rel=pt / pc - 1 if pc else float("nan"), rel_low=rlo, rel_high=rhi,
                  p=float(2 * stats.norm.sf(abs(z))), se=se, df=float("inf"), statistic=z)


def welch_from_sums(sc: float, ssc: float, nc: float, st: float, sst: float, nt: float, *,
                    level: float = 0.95) -> Effect:
    r"""Welch's t test from each sample's sum, sum of squares and count.

    Means :math:`s/n`, variances :math:`(ss - s^2/n)/(n-1)`; then Welch's test
    (``scipy.stats.ttest_ind(equal_var=False)`` on the samples gives the same). Used
    for the per-impression test of a non-binary query metric without materialising
    the impressions.

    Reference: Welch, Biometrika 34, 1947.
    """
    from scipy import stats

    mc, mt = sc / nc, st / nt
    vc = max((ssc - sc * sc / nc) / (nc - 1), 0.0)
    vt = max((sst - st * st / nt) / (nt - 1), 0.0)
    se = math.sqrt(vc / nc + vt / nt)
    df = welch_df(vc, nc, vt, nt)
    stat = (mt - mc) / se if se > 0 else float("nan")
    q = float(stats.t.ppf((1 + level) / 2, df))
    rlo, rhi = relative_interval(mc, vc / nc, mt, vt / nt, int(nc), int(nt), (1 + level) / 2)
    return Effect(n_control=int(nc), n_treatment=int(nt), control=mc, treatment=mt,
                  delta=mt - mc, delta_low=mt - mc - q * se, delta_high=mt - mc + q * se,
                  rel=mt / mc - 1 if mc else float("nan"), rel_low=rlo, rel_high=rhi,
                  p=float(2 * stats.t.sf(abs(stat), df)), se=se, df=df, statistic=stat)
