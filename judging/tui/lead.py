"""The lead's adjudication screen: disagreements side by side, a digit records the final grade.

Unlike the assessor's screens this one shows every assessor's grade and note
for a pair (that is its purpose); it is opened with ``relkit judge --lead``.
The lead decides against the same words as the assessors: the topic statement
and the grade definitions are on screen. A final grade is acknowledged once it
is committed; if the database cannot be reached the status line says that it is
not saved (the pair still shows ``final: -``), and nothing crashes.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from relkit.judging.reports import (
    Disagreement,
    adjudicate,
    disagreements,
    document_text,
    topic_text,
)
from relkit.judging.store import Store
from relkit.judging.tui.outbox import UNREACHABLE
from relkit.judging.tui.safe import cut, safe


class LeadApp(App[None]):
    CSS = """
    #head { height: auto; }
    #pairs { height: 35%; }
    #status { height: auto; color: $accent; }
    #status.error { background: $error; color: $text; text-style: bold; }
    #detail { height: 1fr; padding: 0 1; border-top: solid $primary 40%; }
    """
    BINDINGS = [Binding("q", "quit", "Quit")]

    def __init__(self, store: Store, lead: str) -> None:
        super().__init__()
        self.store = store
        self.lead = lead
        self.scale = store.scale()
        self.pairs: list[Disagreement] = []
        for g in self.scale.values:
            if 0 <= g <= 9:
                self.bind(str(g), f"decide({g})", description=f"final {g}", show=False)

    def compose(self) -> ComposeResult:
        head = Text()
        head.append_text(safe(f"relkit · lead {self.lead} · adjudicate disagreements"))
        head.stylize("bold")
        head.append("\nfinal grade:")
        for g in self.scale.grades:
            head.append(f"  {g.value} ", style="bold reverse")
            head.append(f" {g.label}")
        head.append("   Tab: the detail pane (↑↓ PgUp PgDn scroll it)", style="dim")
        yield Static(head, id="head")
        yield OptionList(id="pairs")
        yield Static("", id="status")
        with VerticalScroll(id="detail"):
            yield Static("", id="detail-text")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def _status(self, text: str, error: bool = False) -> None:
        status = self.query_one("#status", Static)
        status.update(safe(text))
        status.set_class(error, "error")

    def reload(self) -> None:
        try:
            self.pairs = disagreements(self.store)
        except UNREACHABLE:
            self._status("Database unreachable: the list of disagreements is not up to date.",
                         error=True)
            return
        ol = self.query_one(OptionList)
        keep = ol.highlighted
        ol.clear_options()
        for d in self.pairs:
            grades = " ".join(f"{a}={g}" for a, g in sorted(d.grades.items()))
            final = "-" if d.adjudicated is None else str(d.adjudicated)
            ol.add_option(Option(cut(f"{d.topic:>6} {d.doc:<16} {grades}   final: {final}",
                                     200, pad=False)))
        if self.pairs:
            ol.highlighted = min(keep or 0, len(self.pairs) - 1)
            self.show_detail(ol.highlighted or 0)
        else:
            self.query_one("#detail-text", Static).update("No disagreements.")
        ol.focus()

    def on_option_list_option_highlighted(self, event: OptionList.OptionHighlighted) -> None:
        self.show_detail(event.option_index)

    def show_detail(self, index: int) -> None:
        d = self.pairs[index]
        try:
            topic = topic_text(self.store, d.topic)
            row = document_text(self.store, d.doc)
        except UNREACHABLE:
            self._status("Database unreachable: cannot show this pair now.", error=True)
            return
        # The grades first (what is to be settled), then the topic, then the document.
        out = Text()
        for a, g in sorted(d.grades.items()):
            out.append(f"{a}: {g} {self.scale.grade(g).label}", style="bold")
            note = d.notes.get(a)
            out.append_text(safe(f"  note: {note}" if note else ""))
            out.append("\n")
        if topic is not None:
            title, description, narrative = topic
            heading = safe(f"\nTopic {d.topic}: {title or ''}")
            heading.stylize("bold")
            out.append_text(heading)
            for part in (description, narrative):
                if part:
                    out.append("\n")
                    out.append_text(safe(part))
            out.append("\n")
        out.append("\n")
        if row is not None:
            doc = safe(row[0])
            doc.stylize("bold")
            out.append_text(doc)
            out.append("\n")
            out.append_text(safe(row[1]))
        self.query_one("#detail-text", Static).update(out)
        self.query_one("#detail", VerticalScroll).scroll_home(animate=False)

    def action_decide(self, grade: int) -> None:
        ol = self.query_one(OptionList)
        if ol.highlighted is None or not self.pairs:
            return
        d = self.pairs[ol.highlighted]
        what = f"{grade} {self.scale.grade(grade).label} for {d.topic}/{d.doc}"
        try:
            adjudicate(self.store, self.lead, d.topic, d.doc, grade)  # committed before reload
        except UNREACHABLE:
            self._status(f"Database unreachable: final {what} is NOT saved. Press the grade "
                         "again when the database is back.", error=True)
            return
        self._status(f"saved: final {what}")
        self.reload()
        # On to the next pair still to settle (the list keeps its order).
        after = [i for i, p in enumerate(self.pairs) if p.adjudicated is None]
        nxt = next((i for i in after if i > (ol.highlighted or 0)), after[0] if after else None)
        if nxt is not None:
            ol.highlighted = nxt
