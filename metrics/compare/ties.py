"""Which values a reader cannot tell apart: the rule for "best" in every rendering.

A table prints means to :data:`DIGITS` decimals, so bolding one of two systems whose
means print the same would claim a difference nobody can see, and two means that
are the same fraction (53/60) summed in another order differ in the last bits of
the float. So the best of a column is every system whose value

* prints as the highest value prints (to :data:`DIGITS` decimals), or
* equals it up to floating-point noise (a relative :data:`NOISE`): an exact tie
  whose two floats happen to straddle a rounding boundary of the printed digits.

The per-topic views use the same rule, so every table, chart and report agrees: a
topic's best and worst system (:func:`tied_with_best`), and the wins and losses of a
precision histogram, whose differences of noise are 0 (:func:`difference`, by
:func:`noise`).

:meth:`relkit.metrics.compare.core.Comparison.best` (library callers) is the highest
up to noise only (``digits=None``); ``shown_best`` adds the printed-digits rule.
"""

from __future__ import annotations

import numpy as np

# The decimals of the table's means (trec_eval prints 4).
DIGITS = 4
# Relative difference below which two values are one value summed in another order:
# a mean of n per-topic values carries an error near n * 1e-16; this is far above it
# and far below any difference printed to DIGITS decimals.
NOISE = 1e-9


def printed(x: float, digits: int = DIGITS) -> str:
    """``x`` as a table prints it (``-0.0000`` as ``0.0000``)."""
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def noise(a: np.ndarray | float, b: np.ndarray | float) -> np.ndarray:
    """Where ``a`` and ``b`` differ by floating-point noise only (or not at all)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    scale = np.maximum(np.maximum(np.abs(a), np.abs(b)), 1.0)
    with np.errstate(invalid="ignore"):
        return np.asarray((a == b) | (np.abs(a - b) <= NOISE * scale))


def tied_with_best(values: np.ndarray, digits: int | None = DIGITS, lowest: bool = False
                   ) -> np.ndarray:
    """Mask of the values a reader sees as the highest (``lowest``: the lowest): those
    printed the same to ``digits`` decimals or equal up to :func:`noise`; with ``digits``
    None, equal up to noise only.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.compare.ties import tied_with_best
    >>> a, b = 0.1 + 0.2, 0.3                          # one value, summed two ways
    >>> a == b, tied_with_best(np.array([a, b, 0.25])).tolist()
    (False, [True, True, False])
    >>> tied_with_best(np.array([0.88334, 0.88336, 0.88344])).tolist()   # 0.8833 0.8834 0.8834
    [False, True, True]
    >>> tied_with_best(np.array([0.88334, 0.88336, 0.88344]), digits=None).tolist()
    [False, False, True]
    """
    v = np.asarray(values, dtype=np.float64)
    finite = np.isfinite(v)
    if not finite.any():
        return np.zeros(v.shape, dtype=bool)
    best = float(v[finite].min() if lowest else v[finite].max())
    if digits is None:
        return np.asarray(finite & noise(v, best), dtype=bool)
    shown = printed(best, digits)
    same = np.array([bool(ok) and printed(float(x), digits) == shown
                     for x, ok in zip(v, finite, strict=True)], dtype=bool)
    return np.asarray(same | (finite & noise(v, best)), dtype=bool)


def difference(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a - b``, exactly 0 where the two differ by floating-point noise only
    (:func:`noise`), so a precision histogram never counts a win nobody could see.

    >>> import numpy as np
    >>> from relkit.metrics.compare.ties import difference
    >>> difference(np.array([0.1 + 0.2, 1000.0]), np.array([0.3, 1000.0 + 1e-7])).tolist()
    [0.0, 0.0]
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.where(noise(a, b), 0.0, a - b)
