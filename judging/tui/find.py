"""Find in the document: ``/`` opens a bar, matches are marked, ``n`` / ``N`` step through.

The search runs over the lines as wrapped on screen (joined by a space, so a phrase
broken across two lines is still found), case-insensitively, the query's words
matched with any whitespace between them. Matches become cell ranges per row that
:class:`~relkit.judging.tui.docview.DocView` draws over the text: searching never
re-wraps the document, and what is marked is exactly what is on screen.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal
from textual.css.query import NoMatches
from textual.widgets import Input, Static

from relkit.judging.tui.tcss import default_css

if TYPE_CHECKING:
    from relkit.judging.tui.docview import DocView


@dataclass(frozen=True)
class Match:
    row: int  # the row the match starts on
    spans: tuple[tuple[int, int, int], ...]  # (row, first cell, end cell) per row it covers


def find(rows: list[str], query: str) -> list[Match]:
    """Every match of ``query`` in ``rows`` (the wrapped lines), in reading order."""
    words = query.split()
    if not words:
        return []
    pattern = re.compile(r"\s+".join(re.escape(w) for w in words), re.IGNORECASE)
    starts, pos = [], 0  # where each row begins in the joined text
    for row in rows:
        starts.append(pos)
        pos += len(row) + 1
    joined = " ".join(rows)
    out = []
    for m in pattern.finditer(joined):
        spans = []
        first = _row_of(starts, m.start())
        last = _row_of(starts, m.end() - 1)
        for r in range(first, last + 1):
            a = max(m.start(), starts[r]) - starts[r]
            b = min(m.end(), starts[r] + len(rows[r])) - starts[r]
            if b > a:  # cells, not characters: wide characters take two
                spans.append((r, cell_len(rows[r][:a]), cell_len(rows[r][:b])))
        if spans:
            out.append(Match(first, tuple(spans)))
    return out


def _row_of(starts: list[int], offset: int) -> int:
    lo, hi = 0, len(starts) - 1
    while lo < hi:  # the last row starting at or before offset
        mid = (lo + hi + 1) // 2
        if starts[mid] <= offset:
            lo = mid
        else:
            hi = mid - 1
    return lo


def marks(matches: list[Match], current: int) -> dict[int, list[tuple[int, int, bool]]]:
    """Cell ranges per row for :meth:`DocView.mark`, ``current`` drawn apart."""
    out: dict[int, list[tuple[int, int, bool]]] = {}
    for i, m in enumerate(matches):
        for row, a, b in m.spans:
            out.setdefault(row, []).append((a, b, i == current))
    return out


class FindBar(Horizontal):
    """The find line under the document: the query, and where you are ("3/12")."""

    DEFAULT_CSS = default_css("find.tcss")

    def compose(self) -> ComposeResult:
        yield Static("Find:", id="find-label")
        yield Input(placeholder="word or phrase", id="find-input")
        yield Static("", id="find-count")

    @property
    def is_open(self) -> bool:
        return self.has_class("open")

    def count(self, text: str) -> None:
        self.query_one("#find-count", Static).update(Text(text))


class Finding:
    """The judging screen's find actions (a mixin: the screen has a DocView and a FindBar).

    ``n`` / ``N`` step through matches only while the bar is open (``n`` is also the
    note key: closing the bar with Esc gives it back), and Esc closes the bar before it
    means anything else.
    """

    _matches: list[Match]
    _current: int

    def _find_parts(self) -> tuple[FindBar, DocView]:
        from relkit.judging.tui.docview import DocView  # docview imports nothing of this

        return (self.query_one(FindBar),  # type: ignore[attr-defined]
                self.query_one(DocView))  # type: ignore[attr-defined]

    def action_find(self) -> None:
        bar, _ = self._find_parts()
        bar.add_class("open")
        box = bar.query_one(Input)
        box.focus()
        box.select_all()
        self.refresh_bindings()  # type: ignore[attr-defined]  # n, N, Esc: the bar's now

    def _search(self, query: str) -> None:
        bar, doc = self._find_parts()
        self._matches = find(doc.rows, query)
        top = round(doc.scroll_y)
        # The first match from where the assessor is reading, else the first.
        self._current = next((i for i, m in enumerate(self._matches) if m.row >= top), 0)
        self._goto(0)
        if query.strip() and not self._matches:
            bar.count("no match")

    def _goto(self, step: int) -> None:
        bar, doc = self._find_parts()
        if not self._matches:
            doc.mark({})
            bar.count("")
            return
        self._current = (self._current + step) % len(self._matches)
        doc.mark(marks(self._matches, self._current))
        doc.reveal_row(self._matches[self._current].row)
        bar.count(f"{self._current + 1}/{len(self._matches)} · n/N next/previous · Esc closes")

    def on_input_changed(self, event: Input.Changed) -> None:
        if event.input.id == "find-input":
            self._search(event.value)

    def action_find_done(self) -> None:
        # Enter, as a priority binding: the focus moves before the next key is routed,
        # so an "n" typed right after Enter steps to the next match instead of being
        # added to the query (Widget.focus would move it later: call_later).
        self.set_focus(self._find_parts()[1])  # type: ignore[attr-defined]

    def on_doc_view_rewrapped(self) -> None:
        bar, _ = self._find_parts()
        if bar.is_open:
            current = self._current
            self._search(bar.query_one(Input).value)
            if self._matches:
                self._current = min(current, len(self._matches) - 1)
                self._goto(0)

    def action_find_next(self) -> None:
        self._goto(1)

    def action_find_prev(self) -> None:
        self._goto(-1)

    def action_find_close(self) -> None:
        bar, doc = self._find_parts()
        bar.remove_class("open")
        self._matches = []
        doc.mark({})
        doc.focus()
        # check_action gives n and Esc back to note and the topic list: the footer is
        # drawn from the bindings as they were, so it must be told.
        self.refresh_bindings()  # type: ignore[attr-defined]

    def finding(self) -> bool:
        """Whether n, N and Esc belong to the find bar now."""
        try:
            return self._find_parts()[0].is_open
        except NoMatches:  # asked before the screen is composed (the footer's bindings)
            return False

    def typing_query(self) -> bool:
        """Whether Enter ends the query (the find box has the focus)."""
        return self.finding() and self._find_parts()[0].query_one(Input).has_focus
