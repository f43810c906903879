r"""The two-assessor coefficients and their standard errors, as batch functions of
confusion tables.

Each function takes tables ``t`` of shape ``(..., k, k)`` and the grades' values and
returns one value per table (NaN: undefined); the analytic standard errors and the
``(P_a, P_e)`` parts sit beside the coefficient they belong to. The registry that names
them, and the measuring with intervals, are :mod:`.pairwise`; the formulas are here,
apart from it, so that each reads next to its own standard error.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal, get_args

import numpy as np

Weights = Literal["none", "linear", "quadratic"]
WEIGHTS: tuple[str, ...] = get_args(Weights)


def confusion(x: np.ndarray, y: np.ndarray, k: int) -> np.ndarray:
    """The k x k table of two aligned arrays of grade positions."""
    return np.bincount(x.astype(np.int64) * k + y, minlength=k * k).reshape(k, k)


def weight_matrix(values: np.ndarray, kind: Weights) -> np.ndarray:
    r"""Agreement weights from the declared scale's grade *values*.

    .. math::
        w_{ij} = 1 - \frac{|v_i - v_j|}{v_{max} - v_{min}} \;\text{(linear)},\qquad
        w_{ij} = 1 - \frac{(v_i - v_j)^2}{(v_{max} - v_{min})^2} \;\text{(quadratic)}

    Built from every grade of the scale, used or not: weights built from the
    positions of the *observed* labels (scikit-learn's ``cohen_kappa_score``
    without ``labels``) differ as soon as a middle grade goes unused.
    Reference: Cohen, "Weighted kappa", Psychological Bulletin 70(4), 1968.
    """
    v = np.asarray(values, dtype=np.float64)
    k = len(v)
    if kind == "none" or k < 2:
        return np.eye(k)
    span = v.max() - v.min()
    d = np.abs(v[:, None] - v[None, :]) / span
    if kind == "linear":
        return 1.0 - d
    if kind == "quadratic":
        return 1.0 - d ** 2
    raise ValueError(f"unknown weights {kind!r}; expected one of {', '.join(WEIGHTS)}")


def _props(t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    t = np.asarray(t, dtype=np.float64)
    n = t.sum(axis=(-2, -1))
    with np.errstate(invalid="ignore", divide="ignore"):
        p = t / n[..., None, None]
    return p, n


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.asarray(a, dtype=np.float64) / b
    return np.where(np.abs(b) < 1e-15, np.nan, out)


def kappa_parts(t: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Observed and chance agreement (weighted by ``w``) and n."""
    p, n = _props(t)
    r, c = p.sum(axis=-1), p.sum(axis=-2)
    po = (w * p).sum(axis=(-2, -1))
    pe = (w * r[..., :, None] * c[..., None, :]).sum(axis=(-2, -1))
    return po, pe, n


def percent_agreement(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Proportion of items given the same grade: :math:`p_o = \sum_i p_{ii}`."""
    return kappa_parts(t, np.eye(t.shape[-1]))[0]


def _cohen(kind: Weights) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def f(t: np.ndarray, values: np.ndarray) -> np.ndarray:
        po, pe, _ = kappa_parts(t, weight_matrix(values, kind))
        return _div(po - pe, 1.0 - pe)
    return f


cohen_kappa = _cohen("none")
cohen_kappa.__doc__ = r"""Cohen's kappa :math:`\kappa = (p_o - p_e)/(1 - p_e)`,
:math:`p_e = \sum_i p_{i\cdot} p_{\cdot i}` (each assessor's own marginals).
Cohen, "A coefficient of agreement for nominal scales", EPM 20(1), 1960."""


def scott_pi(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Scott's pi: chance agreement from the pooled marginals.

    :math:`\pi = (p_o - p_e)/(1 - p_e)`, :math:`p_e = \sum_i m_i^2`,
    :math:`m_i = (p_{i\cdot} + p_{\cdot i})/2`.

    Scott, "Reliability of content analysis: the case of nominal scale
    coding", Public Opinion Quarterly 19(3), 1955.
    """
    p, _ = _props(t)
    m = (p.sum(axis=-1) + p.sum(axis=-2)) / 2
    po = np.trace(p, axis1=-2, axis2=-1)
    return _div(po - (m ** 2).sum(axis=-1), 1.0 - (m ** 2).sum(axis=-1))


def pabak(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Prevalence- and bias-adjusted kappa: :math:`(k p_o - 1)/(k - 1)` (k = 2: :math:`2p_o - 1`).

    Byrt, Bishop & Carlin, "Bias, prevalence and kappa", J Clin Epidemiol 46(5), 1993;
    k is the number of grades on the declared scale. With one grade (k = 1: a scale
    inferred from judgments that all gave it) there is no chance agreement to adjust
    for: undefined.
    """
    k = t.shape[-1]
    po = percent_agreement(t, values)
    return (k * po - 1.0) / (k - 1) if k > 1 else np.full_like(po, np.nan, dtype=float)


def prevalence_index(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Binary only: :math:`PI = (a - d)/n`, a = both relevant, d = both not relevant.

    Signed as in Byrt, Bishop & Carlin (1993): positive when relevance is the
    more common agreed grade.
    """
    p, _ = _props(t)
    return p[..., 1, 1] - p[..., 0, 0]


def bias_index(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Binary only: :math:`BI = (b - c)/n`, b = first says relevant and second not.

    Signed as in Byrt, Bishop & Carlin (1993): positive when the first
    assessor calls more items relevant.
    """
    p, _ = _props(t)
    return p[..., 1, 0] - p[..., 0, 1]


def positive_agreement(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Binary only: :math:`p_{pos} = 2a/(2a + b + c)` (Cicchetti & Feinstein,
    J Clin Epidemiol 43(6), 1990). Undefined when neither found anything relevant."""
    p, _ = _props(t)
    a, b, c = p[..., 1, 1], p[..., 1, 0], p[..., 0, 1]
    return _div(2 * a, 2 * a + b + c)


def negative_agreement(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Binary only: :math:`p_{neg} = 2d/(2d + b + c)`.

    Undefined when both assessors found every item relevant."""
    p, _ = _props(t)
    d, b, c = p[..., 0, 0], p[..., 1, 0], p[..., 0, 1]
    return _div(2 * d, 2 * d + b + c)


def kappa_se(t: np.ndarray, w: np.ndarray) -> np.ndarray:
    r"""Large-sample standard error of (weighted) kappa, not assuming kappa = 0.

    .. math::
        \widehat{var}(\hat\kappa) = \frac{\sum_{ij} p_{ij}\,[w_{ij} - (\bar w_{i\cdot}
        + \bar w_{\cdot j})(1 - \hat\kappa)]^2 - [\hat\kappa - p_e(1 - \hat\kappa)]^2}
        {n (1 - p_e)^2}

    with :math:`\bar w_{i\cdot} = \sum_j p_{\cdot j} w_{ij}` and
    :math:`\bar w_{\cdot j} = \sum_i p_{i\cdot} w_{ij}`. Fleiss, Cohen & Everitt,
    "Large sample standard errors of kappa and weighted kappa", Psychological
    Bulletin 72(5), 1969 (SAS's ASE; statsmodels' ``std_kappa``). Batched like
    the statistics: ``t`` is (..., k, k).
    """
    p, n = _props(t)
    r, c = p.sum(axis=-1), p.sum(axis=-2)
    po, pe, _ = kappa_parts(t, w)
    kap = _div(po - pe, 1 - pe)
    wi = c @ w.T                      # sum_j c_j w_ij
    wj = r @ w                        # sum_i r_i w_ij
    dev = w - (wi[..., :, None] + wj[..., None, :]) * (1 - kap)[..., None, None]
    inner = (p * dev ** 2).sum(axis=(-2, -1))
    var = _div(inner - (kap - pe * (1 - kap)) ** 2, n * (1 - pe) ** 2)
    return np.sqrt(np.maximum(var, 0.0))


def _kappa_se(kind: Weights) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    return lambda t, values: kappa_se(t, weight_matrix(values, kind))


def _prop_se(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    po, n = percent_agreement(t, values), np.asarray(t).sum(axis=(-2, -1))
    return np.sqrt(_div(po * (1 - po), n))


def _pabak_se(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    k = t.shape[-1]
    se = _prop_se(t, values)
    return k / (k - 1) * se if k > 1 else np.full_like(se, np.nan, dtype=float)


def scott_pi_se(t: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""Large-sample SE of Scott's pi for two assessors, not assuming pi = 0.

    .. math::
        \widehat{var}(\hat\pi) = \frac{\sum_{kl} p_{kl}\,[w_{kl} - (1 - \hat\pi)
        (\bar\pi_k + \bar\pi_l)]^2 - [p_o - 2(1 - \hat\pi)p_e]^2}{n(1 - p_e)^2}

    with :math:`\bar\pi_k = m_k` the pooled marginal (identity weights). Gwet,
    *Handbook of Inter-Rater Reliability*, 4th ed., 2014, eq. 2.23 (``irrCAC``
    table ``scott``); Gwet's raw-data linearisation gives the same up to n/(n-1).
    """
    p, n = _props(t)
    m = (p.sum(axis=-1) + p.sum(axis=-2)) / 2
    po = np.trace(p, axis1=-2, axis2=-1)
    pe = (m ** 2).sum(axis=-1)
    pi = _div(po - pe, 1 - pe)
    k = t.shape[-1]
    dev = np.eye(k) - (1 - pi)[..., None, None] * (m[..., :, None] + m[..., None, :])
    inner = (p * dev ** 2).sum(axis=(-2, -1))
    var = _div(inner - (po - 2 * (1 - pi) * pe) ** 2, n * (1 - pe) ** 2)
    return np.sqrt(np.maximum(var, 0.0))


def scott_parts(t: np.ndarray, w: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Weighted observed agreement and Scott's chance agreement from the pooled marginals."""
    p, _ = _props(t)
    m = (p.sum(axis=-1) + p.sum(axis=-2)) / 2
    return (w * p).sum(axis=(-2, -1)), np.einsum("...k,kl,...l->...", m, w, m)


def _scott_w(kind: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    def f(t: np.ndarray, values: np.ndarray) -> np.ndarray:
        from relkit.judging.agreement.weights import matrix

        po, pe = scott_parts(t, matrix(values, kind))
        return _div(po - pe, 1.0 - pe)
    f.__doc__ = rf"""Scott's pi with {kind} weights: :math:`p_e = \sum_{{kl}} w_{{kl}} m_k m_l`
    (Gwet 2014, section 3.2; ``irrCAC.table.CAC(weights=...).scott``)."""
    return f


def _scott_w_se(kind: str) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    r""":func:`scott_pi_se` with weights: :math:`\bar\pi_k = \sum_l w_{kl} m_l`."""
    def se(t: np.ndarray, values: np.ndarray) -> np.ndarray:
        from relkit.judging.agreement.weights import matrix

        w = matrix(values, kind)
        p, n = _props(t)
        m = (p.sum(axis=-1) + p.sum(axis=-2)) / 2
        po, pe = scott_parts(t, w)
        pi = _div(po - pe, 1 - pe)
        pb = (m @ w + m @ w.T) / 2
        dev = w - (1 - pi)[..., None, None] * (pb[..., :, None] + pb[..., None, :])
        inner = (p * dev ** 2).sum(axis=(-2, -1))
        var = _div(inner - (po - 2 * (1 - pi) * pe) ** 2, n * (1 - pe) ** 2)
        return np.sqrt(np.maximum(var, 0.0))
    return se


def _parts_cohen(kind: Weights) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]]:
    return lambda t, values: kappa_parts(t, weight_matrix(values, kind))[:2]


def _parts_scott(kind: str) -> Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, ...]]:
    def f(t: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
        from relkit.judging.agreement.weights import matrix

        return scott_parts(t, matrix(values, kind))
    return f


def _parts_pabak(t: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, ...]:
    po = percent_agreement(t, values)
    return po, np.full_like(po, 1.0 / t.shape[-1])


def _diff_se(i: tuple[int, int], j: tuple[int, int]) -> Callable[[np.ndarray, np.ndarray],
                                                                   np.ndarray]:
    """SE of a difference of two multinomial cell shares: (p_i + p_j - (p_i - p_j)^2) / n."""
    def se(t: np.ndarray, values: np.ndarray) -> np.ndarray:
        p, n = _props(t)
        a, b = p[..., i[0], i[1]], p[..., j[0], j[1]]
        return np.sqrt(np.maximum(_div(a + b - (a - b) ** 2, n), 0.0))
    return se


def _specific_se(cell: int) -> Callable[[np.ndarray, np.ndarray], np.ndarray]:
    r"""SE of specific agreement by the delta method (Graham & Bull 1998):

    .. math::
        SE(p_{pos}) = \frac{\sqrt{4a(b + c)(a + b + c)/n}}{(2a + b + c)^2}\cdot\sqrt{n}
        = \frac{\sqrt{4a(b + c)(a + b + c)}}{(2a + b + c)^2}

    in counts (d for :math:`p_{neg}`). Graham & Bull, "Approximate standard
    errors and confidence intervals for indices of positive and negative
    agreement", J Clin Epidemiol 51(9):763-771, 1998.
    """
    def se(t: np.ndarray, values: np.ndarray) -> np.ndarray:
        t = np.asarray(t, dtype=np.float64)
        a, s = t[..., cell, cell], t[..., 1, 0] + t[..., 0, 1]
        return np.sqrt(np.maximum(_div(4 * a * s * (a + s), (2 * a + s) ** 4), 0.0))
    return se
