r"""Analytic standard errors of the many-assessor coefficients (Gwet's linearisation).

Gwet (2008) writes each chance-corrected coefficient :math:`\hat\kappa` as a
mean of per-item terms plus a correction for the estimated chance agreement,

.. math::
    \kappa^\star_i = \kappa_i - 2(1 - \hat\kappa)\frac{p_{e|i} - p_e}{1 - p_e},\qquad
    \widehat{var}(\hat\kappa) = \frac{1 - f}{n(n - 1)} \sum_{i=1}^{n}
    (\kappa^\star_i - \hat\kappa)^2,

with :math:`\kappa_i = \frac{n}{n'}\,\frac{p_{a|i} - p_e [m_i \ge 2]}{1 - p_e}`,
:math:`p_{a|i}` the item's weighted agreeing pairs over :math:`m_i(m_i - 1)`,
:math:`n'` the items judged twice or more and :math:`f = 0` (an infinite
population of items). It does not assume :math:`\kappa = 0` (unlike Fleiss,
Nee & Landis 1979, whose variance holds under the null only and needs every
item judged by the same number of assessors), and it handles missing labels.
References: Gwet, "Computing inter-rater reliability and its variance in the
presence of high agreement", BJMSP 61(1):29-48, 2008; Gwet, *Handbook of
Inter-Rater Reliability*, 4th ed., 2014, ch. 5 (Fleiss, AC1/AC2) and
section 5.5 / Gwet (2011) for Krippendorff's alpha; implemented in the
``irrCAC`` R and Python packages, which the tests use as the oracle.

Like the statistics in :mod:`.multi`, each function takes the distinct grade
count patterns ``C`` (P, q) and pattern counts ``W`` (batch, P): the batch is
topics here, so per-topic standard errors are one vectorised call.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Fn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.asarray(a, dtype=np.float64) / b
    return np.where(np.abs(b) < 1e-15, np.nan, out)


def _finish(x: np.ndarray, est: np.ndarray, W: np.ndarray, n: np.ndarray) -> np.ndarray:
    var = _div((W * (x - est[:, None]) ** 2).sum(axis=1), n * (n - 1))
    return np.sqrt(np.maximum(var, 0.0))


def _common(C: np.ndarray, W: np.ndarray, w: np.ndarray
            ) -> tuple[np.ndarray, ...]:
    C = C.astype(np.float64)
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    m = C.sum(axis=1)
    two = m >= 2
    sum_q = (C * (C @ w.T - 1)).sum(axis=1)
    pa_i = np.where(two, sum_q / np.where(two, m * (m - 1), 1.0), 0.0)
    n = W.sum(axis=1)
    n2 = W[:, two].sum(axis=1)
    pa = _div(W @ pa_i, n2)
    pi = _div(W @ (C / np.maximum(m, 1)[:, None]), n[:, None])
    return C, W, m, two, pa_i, n, n2, pa, pi


def _chance_corrected(C: np.ndarray, W: np.ndarray, w: np.ndarray,
                      chance: Callable[[np.ndarray, np.ndarray, np.ndarray],
                                       tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    with np.errstate(invalid="ignore", divide="ignore"):
        return _linearised(C, W, w, chance)


def _linearised(C: np.ndarray, W: np.ndarray, w: np.ndarray,
                chance: Callable[[np.ndarray, np.ndarray, np.ndarray],
                                 tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
    C, W, m, two, pa_i, n, n2, pa, pi = _common(C, W, w)
    pe, pe_i = chance(pi, C, m)
    est = _div(pa - pe, 1 - pe)
    k_i = (_div(n, n2)[:, None] * (pa_i[None, :] - pe[:, None] * two[None, :])
           / (1 - pe)[:, None])
    x = k_i - 2 * (1 - est)[:, None] * (pe_i - pe[:, None]) / (1 - pe)[:, None]
    return _finish(x, est, W, n)


def fleiss_se(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""SE of Fleiss' kappa: :math:`p_{e|i} = \frac{1}{m_i}\sum_k n_{ik}\,\pi_k`
    (Gwet 2014, eq. 5.7; ``irrCAC`` ``fleiss``)."""
    w = np.eye(C.shape[1])

    def chance(pi: np.ndarray, C: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pe = (pi ** 2).sum(axis=1)
        return pe, (pi @ C.T) / np.maximum(m, 1)[None, :]
    return _chance_corrected(C, W, w, chance)


def gwet_se(kind: str) -> Fn:
    """SE of Gwet's AC1 (``kind="none"``) / AC2 (weighted), Gwet (2008) eq. 31-33."""
    from relkit.judging.agreement.pairwise import weight_matrix

    def se(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
        q = C.shape[1]
        w = weight_matrix(values, kind)  # type: ignore[arg-type]
        tw = w.sum() / (q * (q - 1)) if q > 1 else np.nan   # (one grade: undefined)

        def chance(pi: np.ndarray, C: np.ndarray, m: np.ndarray
                   ) -> tuple[np.ndarray, np.ndarray]:
            pe = tw * (pi * (1 - pi)).sum(axis=1)
            return pe, tw * ((1 - pi) @ C.T) / np.maximum(m, 1)[None, :]
        return _chance_corrected(C, W, w, chance)
    return se


def percent_agreement_se(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
    r"""SE of the mean agreement over items judged twice or more:
    :math:`\sqrt{\sum_i (p_{a|i} - p_a)^2 / (n'(n' - 1))}`."""
    C, W, m, two, pa_i, n, n2, pa, pi = _common(C, W, np.eye(C.shape[1]))
    return _finish(pa_i[two][None, :], pa, W[:, two], n2)


def krippendorff_weights(metric: str, values: np.ndarray) -> np.ndarray:
    r"""Agreement weights :math:`1 - \delta^2_{kl} / \max \delta^2` of a data-free metric.

    Alpha is unchanged by rescaling :math:`\delta^2`, so nominal alpha uses the
    identity, interval alpha quadratic weights, ratio alpha ratio weights
    (Gwet 2014, section 3.5). The ordinal metric depends on the observed
    marginals; the linearisation does not cover it (bootstrap only).
    """
    v = np.asarray(values, dtype=np.float64)
    if metric == "nominal":
        return np.eye(len(v))
    if metric == "interval":
        d = (v[:, None] - v[None, :]) ** 2
    elif metric == "ratio":
        s = v[:, None] + v[None, :]
        d = np.where(s == 0, 0.0, _div(v[:, None] - v[None, :], s) ** 2)
    else:
        raise ValueError(f"no analytic variance for the {metric!r} metric")
    if not d.max():          # one grade on the scale: it agrees with itself
        return np.ones_like(d)
    return 1.0 - d / d.max()


def krippendorff_se(metric: str) -> Fn:
    r"""SE of Krippendorff's alpha in Gwet's formulation (Gwet 2011; Gwet 2014, eq. 5.12).

    Over the n items judged twice or more, :math:`\bar r` their mean number of
    judgments: :math:`p_{a|i} = \frac{\sum_k n_{ik}(n^\star_{ik} - 1)}{\bar r (m_i - 1)}
    - p_a \frac{m_i - \bar r}{\bar r}`, :math:`p_{e|i} = \frac{1}{\bar r}\sum_k n_{ik}
    \bar\pi_k - p_e \frac{m_i - \bar r}{\bar r}` (``irrCAC`` ``krippendorff``).
    """
    def se(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
        with np.errstate(invalid="ignore", divide="ignore"):
            return _alpha_se(krippendorff_weights(metric, values), C, W)
    return se


def _alpha_se(w: np.ndarray, C: np.ndarray, W: np.ndarray) -> np.ndarray:
    """Gwet's linearised SE of alpha with agreement weights ``w`` (see above)."""
    C = C.astype(np.float64)
    W = np.atleast_2d(np.asarray(W, dtype=np.float64))
    m = C.sum(axis=1)
    two = m >= 2
    C2, W2, m2 = C[two], W[:, two], m[two]
    n = W2.sum(axis=1)
    judgments = W2 @ m2
    rbar = _div(judgments, n)[:, None]
    eps = _div(np.ones_like(judgments), judgments)
    sum_q = (C2 * (C2 @ w.T - 1)).sum(axis=1)
    term = sum_q / np.maximum(m2 - 1, 1)
    paprime = _div(W2 @ term, (rbar[:, 0] * n))
    pa = (1 - eps) * paprime + eps
    pi = _div(W2 @ C2, (n * rbar[:, 0])[:, None])
    pe = np.einsum("bk,kl,bl->b", pi, w, pi)
    alpha_p = _div(paprime - pe, 1 - pe)
    pa_i = term[None, :] / rbar - pa[:, None] * (m2[None, :] - rbar) / rbar
    k_i = (pa_i - pe[:, None]) / (1 - pe)[:, None]
    piw = (pi @ w.T + pi @ w) / 2
    pe_i = (piw @ C2.T) / rbar - pe[:, None] * (m2[None, :] - rbar) / rbar
    x = k_i - 2 * (1 - alpha_p)[:, None] * (pe_i - pe[:, None]) / (1 - pe)[:, None]
    return _finish(x, alpha_p, W2, n)
