"""Corrections for multiple comparisons, one small object per method.

``adjust(p)`` returns adjusted p-values (same order as ``p``); a comparison is
significant when its adjusted p is <= alpha. Values agree with
``statsmodels.stats.multitest.multipletests`` (methods ``bonferroni``,
``holm``, ``fdr_bh``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from relkit.metrics.compare.errors import CompareError
from relkit.metrics.core.registry import Registry


@dataclass(frozen=True)
class Correction:
    """One method: ``adjust(p) -> adjusted p`` and what it controls."""

    name: str
    aliases: tuple[str, ...]
    description: str
    adjust: Callable[[np.ndarray], np.ndarray]


CORRECTIONS: Registry[Correction] = Registry("correction", CompareError, ignore_case=True)


def get_correction(name: str) -> Correction:
    """The correction called ``name`` (or one of its aliases)."""
    return CORRECTIONS.lookup(name)


def none(p: np.ndarray) -> np.ndarray:
    """No correction: each test at level alpha."""
    return np.asarray(p, dtype=np.float64).copy()


def bonferroni(p: np.ndarray) -> np.ndarray:
    r"""Bonferroni: :math:`\tilde p_i = \min(1, m\,p_i)` (family-wise error rate).

    Reference: O. J. Dunn, "Multiple comparisons among means", JASA 56, 1961.
    """
    p = np.asarray(p, dtype=np.float64)
    adjusted: np.ndarray = np.minimum(1.0, p * len(p))   # numpy's stubs: ufuncs return Any
    return adjusted


def holm(p: np.ndarray) -> np.ndarray:
    r"""Holm's step-down method (family-wise error rate, uniformly beats Bonferroni).

    With :math:`p_{(1)} \le \dots \le p_{(m)}`:
    :math:`\tilde p_{(i)} = \min(1, \max_{j \le i} (m - j + 1)\,p_{(j)})`.

    Reference: S. Holm, "A simple sequentially rejective multiple test
    procedure", Scandinavian Journal of Statistics 6(2), 1979.
    """
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    stepped = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


def benjamini_hochberg(p: np.ndarray) -> np.ndarray:
    r"""Benjamini-Hochberg step-up method (false discovery rate).

    With :math:`p_{(1)} \le \dots \le p_{(m)}`:
    :math:`\tilde p_{(i)} = \min(1, \min_{j \ge i} \tfrac{m}{j}\,p_{(j)})`.

    Reference: Y. Benjamini & Y. Hochberg, "Controlling the false discovery
    rate", JRSS B 57(1), 1995.
    """
    p = np.asarray(p, dtype=np.float64)
    m = len(p)
    order = np.argsort(p, kind="stable")
    scaled = p[order] * m / np.arange(1, m + 1)
    stepped = np.minimum.accumulate(scaled[::-1])[::-1]
    out = np.empty(m)
    out[order] = np.minimum(1.0, stepped)
    return out


CORRECTIONS.register(
    Correction("none", ("no",), "no correction", none),
    Correction("bonferroni", ("bonf",), "Bonferroni (family-wise error)", bonferroni),
    Correction("holm", ("holm-bonferroni",), "Holm step-down (family-wise error)", holm),
    Correction("bh", ("fdr_bh", "benjamini-hochberg", "fdr"),
               "Benjamini-Hochberg (false discovery rate)", benjamini_hochberg),
)
