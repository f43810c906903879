"""The scale under the document: each grade's key, label and definition, wrapped.

The assessor decides against the words of the guidelines, not against a
remembered number, so a definition is never cut: it wraps under its label
(a hanging indent keeps the keys in one column) however narrow the terminal.

On a short screen (:mod:`relkit.judging.tui.short`) the document needs those rows:
the scale is then one line, each key with its label (:class:`Brief`), and the
definitions are in the help.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.console import Console, ConsoleOptions, RenderResult
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.widget import Widget
from textual.widgets import Static

from relkit.corpora.types import RelevanceScale
from relkit.judging.tui.keymap import grade_key
from relkit.judging.tui.safe import safe
from relkit.judging.tui.tcss import default_css


def legend(scale: RelevanceScale) -> Table:
    grid = Table.grid(padding=(0, 1))
    grid.add_column(no_wrap=True)
    grid.add_column(ratio=1, overflow="fold")
    for g in scale.grades:
        line = Text(g.label, style="bold")
        if g.definition:
            line.append(": ")
            line.append_text(safe(g.definition))
        grid.add_row(_key(g.value), line)
    return grid


def _key(value: int) -> Text:
    return Text(f" {grade_key(value)} ", style="bold reverse")


class Brief:
    """The scale on one line: `` 0  Irrelevant ·  1  Related · …``.

    The labels are whole if the line holds them, else their first words
    ("Highly", "Perfectly"; "No interest", a first word too short alone); a scale too
    long even so wraps between grades.
    """

    SEP = " · "

    def __init__(self, scale: RelevanceScale) -> None:
        self.scale = scale

    @staticmethod
    def short(label: str) -> str:
        """A label's first word; two if the first is too short to mean anything alone
        (Cranfield's "No interest" is not "No")."""
        words = label.split()
        if not words:
            return label
        return " ".join(words[:2]) if len(words[0]) < 4 else words[0]

    def line(self, short: bool) -> Text:
        out = Text()
        for i, g in enumerate(self.scale.grades):
            label = self.short(g.label) if short else g.label
            if i:
                out.append(self.SEP)
            out.append_text(_key(g.value))
            out.append(" ")
            out.append_text(safe(label))
        out.stylize("bold", 0, len(out))
        return out

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        whole = self.line(short=False)
        if cell_len(whole.plain) <= options.max_width:
            yield whole
            return
        # Wrap only at the separators: a key never ends a row apart from its label.
        rows, row = [], Text()
        for part in self.line(short=True).split(self.SEP, include_separator=False):
            if row and cell_len(row.plain + self.SEP + part.plain) > options.max_width:
                rows.append(row)
                row = Text()
            if row:
                row.append(self.SEP)
            row.append_text(part)
        rows.append(row)
        yield Text("\n").join(rows)


class Legend(Widget):
    """The scale in both forms; the screen's ``-short`` class picks one (short.py)."""

    DEFAULT_CSS = default_css("legend.tcss")

    def __init__(self, scale: RelevanceScale, *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.scale = scale

    def compose(self) -> ComposeResult:
        yield Static(legend(self.scale), classes="full")
        yield Static(Brief(self.scale), classes="brief")
