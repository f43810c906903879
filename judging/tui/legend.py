"""The scale under the document: each grade's key, label and definition, wrapped.

The assessor decides against the words of the guidelines, not against a
remembered number, so a definition is never cut: it wraps under its label
(a hanging indent keeps the keys in one column) however narrow the terminal.
"""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from relkit.corpora.types import RelevanceScale
from relkit.judging.tui.keymap import grade_key
from relkit.judging.tui.safe import safe


def legend(scale: RelevanceScale) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for g in scale.grades:
        line = Text(g.label, style="bold")
        if g.definition:
            line.append(": ")
            line.append_text(safe(g.definition))
        grid.add_row(Text(f" {grade_key(g.value)} ", style="bold reverse"), line)
    return grid
