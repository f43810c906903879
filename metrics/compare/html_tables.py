"""The HTML report's tables: numbers that line up, one precision per column.

A significance mark sits in a fixed-width slot after its number (the same width
down a column), so the numbers' right edges align whether a cell has a mark or
not; digits are tabular. Each column of a table has one precision: 4 decimals
as trec_eval prints (p-values too, below 0.0001 written ``<0.0001``); booleans
read ``yes`` / ``no``.
"""

from __future__ import annotations

import html
from collections.abc import Collection
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.compare.cells import label, legend, mark, value

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.compare.core import Comparison

P_FLOOR = 1e-4
# the width of a mark slot per mark character: a ▲ is the widest glyph used
SLOT_EM = 0.8


def _esc(x: object) -> str:
    return html.escape(str(x))


def systems_table(cmp: Comparison) -> str:
    """The systems x measures table (best in bold, marks in an aligned slot)."""
    head = "".join(f"<th>{_esc(m)}</th>" for m in cmp.measures)
    marks = [[mark(cmp, meas, system) for meas in cmp.measures] for system in cmp.systems]
    slots = [max(len(row[m]) for row in marks) for m in range(len(cmp.measures))]
    rows = []
    for s, system in enumerate(cmp.systems):
        cells = [f"<td>{_esc(label(cmp, system))}</td>"]
        for m, meas in enumerate(cmp.measures):
            text = _esc(value(cmp, m, s))
            if system in cmp.shown_best(meas):
                text = f"<strong>{text}</strong>"
            slot = (f'<span class="mark" style="width:{slots[m] * SLOT_EM:.1f}em">'
                    f"{_esc(marks[s][m])}</span>" if slots[m] else "")
            cells.append(f'<td class="num"><span class="v">{text}</span>{slot}</td>')
        rows.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<table class="systems"><thead><tr><th>System</th>{head}</tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>"
            f'<p class="legend">{_esc(legend(cmp))}</p>')


def number(x: float, digits: int = 4, p_value: bool = False) -> str:
    """``x`` to ``digits`` decimals; '–' when not finite; a p-value below 10^-digits as
    ``<0.0001`` (never ``0.0000``, never an exponent)."""
    if not np.isfinite(x):
        return "–"
    floor = 10.0 ** -digits
    if p_value and x < floor:
        return f"<{floor:.{digits}f}"
    text = f"{x:.{digits}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def frame_table(frame: pd.DataFrame, cls: str, digits: int = 4,
                p_values: Collection[str] = ()) -> str:
    """A plain HTML table of a frame: floats to ``digits`` decimals in every column,
    the ``p_values`` columns as p-values (:func:`number`), booleans as yes / no."""
    head = "".join(f"<th>{_esc(c)}</th>" for c in frame.columns)
    body = []
    for row in frame.itertuples(index=False):
        cells = []
        for col, x in zip(frame.columns, row, strict=True):
            if isinstance(x, bool | np.bool_):
                cells.append(f'<td class="{"sig" if x else "flag"}">{"yes" if x else "no"}'
                             "</td>")
            elif isinstance(x, float | np.floating):
                cells.append(f'<td class="num">{_esc(number(float(x), digits, col in p_values))}'
                             "</td>")
            else:
                cells.append(f"<td>{_esc(x)}</td>")
        body.append("<tr>" + "".join(cells) + "</tr>")
    return (f'<div class="wide"><table class="{cls}"><thead><tr>{head}</tr></thead>'
            f"<tbody>{''.join(body)}</tbody></table></div>")
