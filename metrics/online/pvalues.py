"""p-values in the online commands' text tables: three significant digits.

A table's floats print with four decimals (:func:`relkit.metrics.core.tables.write_table`),
which shows p = 1.8e-6 as ``0.0000``; the online commands print their p-value columns
with three significant digits instead (``1.8e-06``), and JSON keeps the full number.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence

from relkit.metrics.core.tables import Cell


def p_text(x: float | None) -> str:
    """``x`` with three significant digits; empty for None or NaN.

    >>> p_text(1.8e-06), p_text(0.21347), p_text(1.0), p_text(None)
    ('1.8e-06', '0.213', '1', '')
    """
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return ""
    return f"{x:.3g}"


def p_columns(header: Sequence[str], rows: Iterable[Sequence[Cell]], fmt: str,
              columns: Iterable[str]) -> list[list[Cell]]:
    """``rows`` with the ``columns`` named (p-values) as text for the text formats;
    unchanged for JSON."""
    out = [list(r) for r in rows]
    if fmt.lower() == "json":
        return out
    where = [header.index(c) for c in columns if c in header]
    for r in out:
        for i in where:
            v = r[i]
            r[i] = p_text(float(v)) if isinstance(v, (int, float)) else v
    return out
