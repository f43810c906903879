"""The comparison as a rich table for the terminal (rich is imported here only)."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

from relkit.metrics.compare.cells import legend, mark, value

if TYPE_CHECKING:
    from relkit.metrics.compare.core import Comparison


def rich_table(cmp: Comparison) -> Any:
    """A :class:`rich.table.Table`: best per measure bold, marks after the value."""
    from rich.markup import escape
    from rich.table import Table

    table = Table(caption=escape(legend(cmp)), caption_justify="left")
    if cmp.baseline is None:
        table.add_column("", style="dim")
    table.add_column("System", no_wrap=True)
    for meas in cmp.measures:
        table.add_column(meas, justify="right")
    for s, system in enumerate(cmp.systems):
        cells: list[str] = []
        if cmp.baseline is None:
            cells.append(cmp.letter(system))
        cells.append(escape(system) + (" (baseline)" if system == cmp.baseline else ""))
        for m, meas in enumerate(cmp.measures):
            text = escape(value(cmp, m, s))
            if system in cmp.shown_best(meas):
                text = f"[bold]{text}[/bold]"
            sig = mark(cmp, meas, system)
            if sig:
                colour = "red" if sig == "▼" else "green" if sig == "▲" else "magenta"
                text += f" [{colour}]{sig}[/{colour}]"
            cells.append(text)
        table.add_row(*cells)
    return table


def render_text(cmp: Comparison, width: int = 120) -> str:
    """The rich table as plain text (no colour codes)."""
    from rich.console import Console

    buf = io.StringIO()
    Console(file=buf, width=width, force_terminal=False, color_system=None).print(
        rich_table(cmp))
    return buf.getvalue()
