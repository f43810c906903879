r"""Conger's kappa for many assessors, with Gwet's linearised standard error.

Conger keeps Fleiss' :math:`p_a` (:mod:`.many`) but takes the chance agreement
from each assessor's *own* grade distribution, as Cohen does for two: the
mean of the :math:`r(r-1)/2` pairwise Cohen chance agreements,

.. math::
    p_e = \sum_{kl} w_{kl}\Big(\bar p_{k}\bar p_{l} - \frac{s^2_{kl}}{r}\Big),\qquad
    s^2_{kl} = \frac{1}{r-1}\sum_g (p_{gk} - \bar p_k)(p_{gl} - \bar p_l),

:math:`p_{gk}` the share of assessor g's judgments in grade k, :math:`\bar p_k`
their mean over the r assessors. With two assessors it is Cohen's kappa.
Conger, "Integration and generalization of kappas for multiple raters",
Psychological Bulletin 88(2), 1980; the missing-data form and the variance:
Gwet, *Handbook of Inter-Rater Reliability*, 4th ed., 2014, section 5.4
(``irrCAC.raw.CAC.conger``).

Unlike the statistics of :mod:`.multi`, Conger's kappa depends on *who* gave
each grade, not only on each item's grade counts: it takes the item x
assessor code matrix (-1: not judged). The per-item chance term is computed
on the judged cells only (an assessor who did not judge item i contributes a
constant per assessor), so crowd data with thousands of assessors stays cheap.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Conger:
    """Value, (p_a, p_e), SE and n (items judged at least once); NaN when undefined."""

    value: float
    pa: float
    pe: float
    se: float
    n: int
    pairable: int


def conger(codes: np.ndarray, w: np.ndarray) -> Conger:
    """Conger's kappa of ``codes`` (items x assessors, -1 missing) with weights ``w`` (q x q)."""
    q = w.shape[0]
    codes = np.asarray(codes)
    codes = codes[(codes >= 0).any(axis=1)]
    codes = codes[:, (codes >= 0).any(axis=0)]   # an assessor with no judgment here: no p_gk
    n, r = codes.shape
    nan = float("nan")
    if n == 0 or r < 2:
        return Conger(nan, nan, nan, nan, n, 0)
    ii, gg = np.nonzero(codes >= 0)
    cc = codes[ii, gg].astype(np.int64)
    agree = np.zeros((n, q))
    np.add.at(agree, (ii, cc), 1.0)
    classif = np.zeros((r, q))
    np.add.at(classif, (gg, cc), 1.0)
    m = agree.sum(axis=1)
    two = m >= 2
    n2 = int(two.sum())
    if n2 == 0:
        return Conger(nan, nan, nan, nan, n, 0)
    sum_q = (agree * (agree @ w.T - 1)).sum(axis=1)
    pa_i = np.where(two, sum_q / np.where(two, m * (m - 1), 1.0), 0.0)
    pa = float(pa_i[two].sum() / n2)
    ng = classif.sum(axis=1)
    pgk = classif / ng[:, None]
    pbar = pgk.mean(axis=0)
    s2 = (pgk.T @ pgk - r * np.outer(pbar, pbar)) / (r - 1)
    pe = float((w * (np.outer(pbar, pbar) - s2 / r)).sum())
    if abs(1 - pe) < 1e-15:
        return Conger(nan, pa, pe, nan, n, n2)
    kappa = (pa - pe) / (1 - pe)
    # Gwet's lambda_ig: A = w p_g, B = r pbar - p_g; an unjudged cell gives c_g = A_g . B_g
    A = pgk @ w.T
    B = r * pbar[None, :] - pgk
    c = (A * B).sum(axis=1)
    judged = n / ng[gg] * ((w[:, cc].T * B[gg]).sum(axis=1) - (1 - ng[gg] / n) * c[gg])
    lam = np.full(n, c.sum())
    np.add.at(lam, ii, judged - c[gg])
    pe_i = lam / (r * (r - 1))
    k_i = n / n2 * (pa_i - pe * two) / (1 - pe)
    x = k_i - 2 * (1 - kappa) * (pe_i - pe) / (1 - pe)
    var = ((x - kappa) ** 2).sum() / (n * (n - 1)) if n > 1 else nan
    return Conger(float(kappa), pa, pe, float(np.sqrt(max(var, 0.0))), n, n2)
