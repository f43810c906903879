r"""Weighted Fleiss' kappa and Brennan–Prediger for many assessors, and every P_a / P_e.

All of Gwet's many-assessor coefficients share one form (Gwet, *Handbook of
Inter-Rater Reliability*, 4th ed., 2014, ch. 2-5; ``irrCAC.raw.CAC``):

.. math::
    \hat\kappa = \frac{p_a - p_e}{1 - p_e},\qquad
    p_a = \frac1{n'}\sum_{i: m_i \ge 2}\sum_k
          \frac{n_{ik}(n^\star_{ik} - 1)}{m_i(m_i - 1)},\quad
    n^\star_{ik} = \sum_l w_{kl} n_{il}

and differ only in the chance agreement :math:`p_e`, with
:math:`\pi_k = \frac1n\sum_i n_{ik}/m_i` over the n items judged at least once:

- Fleiss (weighted): :math:`p_e = \sum_{kl} w_{kl}\pi_k\pi_l` (Fleiss 1971; with
  identity weights it is :func:`relkit.judging.agreement.multi.fleiss_kappa`,
  which for two assessors is Scott's pi);
- Brennan–Prediger: :math:`p_e = T_w / q^2`, :math:`T_w = \sum_{kl} w_{kl}` (Brennan &
  Prediger, "Coefficient kappa: some uses, misuses, and alternatives", EPM 41(3),
  1981), a constant, so its variance has no chance-correction term;
- Gwet's AC1/AC2: :math:`p_e = \frac{T_w}{q(q-1)}\sum_k \pi_k(1 - \pi_k)`.

Functions take grade-count patterns ``C`` (P, q) and pattern counts ``W``
(batch, P), like :mod:`.multi`; ``parts`` functions return (p_a, p_e) per batch row.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from relkit.judging.agreement import variance as V
from relkit.judging.agreement.weights import matrix

Fn = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]
Parts = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]
Chance = Callable[[np.ndarray, np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def _fleiss_chance(w: np.ndarray) -> Chance:
    def chance(pi: np.ndarray, C: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        pe = np.einsum("bk,kl,bl->b", pi, w, pi)
        piw = (pi @ w.T + pi @ w) / 2          # Gwet 2014 eq. 5.7: symmetrised weights
        return pe, (piw @ C.T) / np.maximum(m, 1)[None, :]
    return chance


def _bp_chance(w: np.ndarray) -> Chance:
    def chance(pi: np.ndarray, C: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = w.shape[0]
        pe = np.full(len(pi), w.sum() / q ** 2)
        return pe, np.repeat(pe[:, None], len(C), axis=1)
    return chance


def _gwet_chance(w: np.ndarray) -> Chance:
    def chance(pi: np.ndarray, C: np.ndarray, m: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        q = w.shape[0]
        tw = w.sum() / (q * (q - 1)) if q > 1 else np.nan
        pe = tw * (pi * (1 - pi)).sum(axis=1)
        return pe, tw * ((1 - pi) @ C.T) / np.maximum(m, 1)[None, :]
    return chance


CHANCE: dict[str, Callable[[np.ndarray], Chance]] = {
    "fleiss": _fleiss_chance, "brennan_prediger": _bp_chance, "gwet": _gwet_chance}


def parts(family: str, kind: str) -> Parts:
    """(p_a, p_e) of the ``family`` coefficient with ``kind`` weights."""
    def f(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = matrix(values, kind)
        with np.errstate(invalid="ignore", divide="ignore"):
            C2, W2, m, two, pa_i, n, n2, pa, pi = V._common(C, W, w)
            pe, _ = CHANCE[family](w)(pi, C2, m)
        return pa, pe
    return f


def coefficient(family: str, kind: str) -> Fn:
    """The ``family`` coefficient :math:`(p_a - p_e)/(1 - p_e)` with ``kind`` weights."""
    p = parts(family, kind)

    def f(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
        pa, pe = p(C, W, values)
        return V._div(pa - pe, 1 - pe)
    f.__doc__ = __doc__
    return f


def se(family: str, kind: str) -> Fn:
    """Gwet's linearised SE of the ``family`` coefficient (see :mod:`.variance`)."""
    def f(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> np.ndarray:
        w = matrix(values, kind)
        return V._chance_corrected(C, W, w, CHANCE[family](w))
    return f


def alpha_parts(metric: str) -> Parts:
    r"""Krippendorff's alpha as Gwet (2011) writes it: :math:`\alpha = (p_a - p_e)/(1 - p_e)`.

    Over the n items judged twice or more, :math:`\bar r` their mean number of
    judgments and :math:`\varepsilon = 1/(n\bar r)`: :math:`p_a = (1 - \varepsilon)p'_a
    + \varepsilon`, :math:`p'_a = \frac1{n}\sum_i \frac{\sum_k n_{ik}(n^\star_{ik} - 1)}
    {\bar r(m_i - 1)}`, :math:`p_e = \sum_{kl} w_{kl}\pi_k\pi_l` with :math:`\pi_k =
    \frac1n\sum_i n_{ik}/\bar r` (``irrCAC`` ``krippendorff``: its ``pa`` and ``pe``).
    """
    def f(C: np.ndarray, W: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        w = V.krippendorff_weights(metric, values)
        C = C.astype(np.float64)
        W = np.atleast_2d(np.asarray(W, dtype=np.float64))
        m = C.sum(axis=1)
        two = m >= 2
        C2, W2, m2 = C[two], W[:, two], m[two]
        with np.errstate(invalid="ignore", divide="ignore"):
            n = W2.sum(axis=1)
            judgments = W2 @ m2
            rbar = V._div(judgments, n)
            eps = V._div(np.ones_like(judgments), judgments)
            term = (C2 * (C2 @ w.T - 1)).sum(axis=1) / np.maximum(m2 - 1, 1)
            paprime = V._div(W2 @ term, rbar * n)
            pi = V._div(W2 @ C2, (n * rbar)[:, None])
            pe = np.einsum("bk,kl,bl->b", pi, w, pi)
        return (1 - eps) * paprime + eps, pe
    return f
