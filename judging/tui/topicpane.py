"""The topic statement above the document: always readable in full, at any size.

The bar at the top holds ``Topic KEY: title`` on one line. A title too long for
it (a Cranfield query is a whole sentence, and has no statement besides) is cut
there with "…" and shown whole, wrapped, at the head of the pane below. The
pane (description and narrative) takes at most 30% of the screen (topicpane.tcss); what
does not fit is announced on a marker line under it ("▼ 4 more lines …"), and
one key (``t``) gives the pane most of the screen (the grade legend makes room)
and the arrow keys, so the end of a long narrative is always reachable.

The query terms highlighted in the document come from the title, so the title is
always visible in full: highlighted words are words the assessor can see.
"""

from __future__ import annotations

from rich.cells import cell_len
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from relkit.judging.store.outputs import TopicOut
from relkit.judging.tui.safe import safe
from relkit.judging.tui.tcss import default_css


def bar_text(topic: TopicOut) -> Text:
    return safe(f"Topic {topic.key}: {topic.title or ''}")


class TopicPane(VerticalScroll):
    """The topic's statement, scrollable, with a marker line that says what is cut."""

    DEFAULT_CSS = default_css("topicpane.tcss")

    def __init__(self, topic: TopicOut, terms: list[str], marker: Static,
                 *, id: str | None = None) -> None:  # noqa: A002 - Textual's name
        super().__init__(id=id)
        self.topic = topic
        self.terms = terms
        self.marker = marker
        self.title_cut = False
        self.expanded = False

    def compose(self) -> ComposeResult:
        yield Static(self._statement(), id="statement")

    def on_mount(self) -> None:
        self.display = bool(self.plain)
        self.watch(self, "scroll_y", lambda _: self.update_marker(), init=False)

    def _statement(self) -> Text:
        t = self.topic
        out = Text()
        if self.title_cut:
            # Cut in the bar: the whole title here, wrapped (a Cranfield topic is only
            # a title, often a whole sentence).
            out.append_text(safe(t.title, self.terms))
            out.stylize("bold")
        for part in (t.description, t.narrative):
            if part:
                if out:
                    out.append("\n")
                out.append_text(safe(part))
        return out

    @property
    def plain(self) -> str:
        return self._statement().plain

    def fit(self, bar_width: int) -> None:
        """Put the title here too if ``bar_width`` cells cannot hold it in the bar."""
        cut = cell_len(bar_text(self.topic).plain) > bar_width
        if cut != self.title_cut:
            self.title_cut = cut
            statement = self._statement()
            self.query_one("#statement", Static).update(statement)
            self.display = bool(statement.plain)  # nothing to say: no empty pane
        self.call_after_refresh(self.update_marker)

    def toggle(self) -> None:
        """Most of the screen for the topic, and the arrow keys; again: back as it was."""
        self.expanded = not self.expanded
        self.set_class(self.expanded, "expanded")
        self.can_focus = self.expanded
        if self.expanded:
            self.focus()
        else:
            self.scroll_home(animate=False)
        self.call_after_refresh(self.update_marker)

    def hidden_lines(self) -> int:
        """Lines of the statement below what the pane shows."""
        return max(0, round(self.max_scroll_y - self.scroll_y))

    def update_marker(self) -> None:
        more = self.hidden_lines()
        if more:
            s = "s" if more > 1 else ""
            text = (f"▼ {more} more line{s} of the topic · ↑↓ PgUp PgDn scroll it · "
                    "t back to the document" if self.expanded else
                    f"▼ {more} more line{s} of the topic · t shows it all")
        elif self.expanded:
            text = "t back to the document"
        else:
            text = ""
        self.marker.update(text)
        self.marker.display = bool(text)

    def on_resize(self) -> None:
        self.call_after_refresh(self.update_marker)
