"""The lead's adjudication screen: disagreements side by side, a digit records the final grade.

Unlike the assessor's screens this one shows every assessor's grade and note
for a pair (that is its purpose); it is opened with ``relkit judge --lead``.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from relkit.judging.reports import Disagreement, adjudicate, disagreements, document_text
from relkit.judging.store import Store
from relkit.judging.tui.safe import safe


class LeadApp(App[None]):
    CSS = """
    #pairs { height: 40%; }
    #detail { height: 1fr; padding: 0 1; border-top: solid $primary 40%; }
    #head { height: 1; text-style: bold; }
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
        yield Static(safe(f"relkit · lead {self.lead} · adjudicate disagreements "
                          "(digit = final grade)"), id="head")
        yield OptionList(id="pairs")
        with VerticalScroll(id="detail"):
            yield Static("", id="detail-text")
        yield Footer()

    def on_mount(self) -> None:
        self.reload()

    def reload(self) -> None:
        self.pairs = disagreements(self.store)
        ol = self.query_one(OptionList)
        keep = ol.highlighted
        ol.clear_options()
        for d in self.pairs:
            grades = " ".join(f"{a}={g}" for a, g in sorted(d.grades.items()))
            final = "-" if d.adjudicated is None else str(d.adjudicated)
            ol.add_option(Option(safe(f"{d.topic:>6} {d.doc:<16} {grades}   final: {final}")))
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
        row = document_text(self.store, d.doc)
        out = Text()
        for a, g in sorted(d.grades.items()):
            out.append(f"{a}: {g} {self.scale.grade(g).label}", style="bold")
            note = d.notes.get(a)
            out.append_text(safe(f"  note: {note}" if note else ""))
            out.append("\n")
        out.append("\n")
        if row is not None:
            out.append_text(safe(row[0]))
            out.append("\n")
            out.append_text(safe(row[1]))
        self.query_one("#detail-text", Static).update(out)

    def action_decide(self, grade: int) -> None:
        ol = self.query_one(OptionList)
        if ol.highlighted is None or not self.pairs:
            return
        d = self.pairs[ol.highlighted]
        adjudicate(self.store, self.lead, d.topic, d.doc, grade)  # committed before reload
        self.reload()
