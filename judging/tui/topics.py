"""The topic screen: the assessor's topics with progress and counts per grade."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import Footer, OptionList, Static
from textual.widgets.option_list import Option

from relkit.judging.assessor import AssessorView
from relkit.judging.models import TopicOut
from relkit.judging.tui.outbox import UNREACHABLE
from relkit.judging.tui.safe import cut, safe


def _bar(done: int, total: int, width: int = 12) -> str:
    filled = round(width * done / total) if total else 0
    return "█" * filled + "░" * (width - filled)


class TopicsScreen(Screen[None]):
    BINDINGS = [Binding("q", "quit_app", "Quit"), Binding("enter", "open", "Judge", show=True)]

    def __init__(self, view: AssessorView) -> None:
        super().__init__()
        self.view = view
        self.topics: list[TopicOut] = []

    def compose(self) -> ComposeResult:
        yield Static(safe(f"relkit · assessor {self.view.name} · choose a topic"), id="head")
        yield OptionList(id="topic-list")
        yield Static("", id="summary")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_topics()

    def on_screen_resume(self) -> None:
        self.refresh_topics()

    def refresh_topics(self) -> None:
        try:
            self.topics = self.view.topics()
        except UNREACHABLE:
            self.query_one("#summary", Static).update(
                "Database unreachable: the topic list is not up to date; it refreshes when "
                "you come back to it")
            return
        scale = self.view.scale()
        ol = self.query_one(OptionList)
        highlighted = ol.highlighted
        ol.clear_options()
        for t in self.topics:
            counts = " ".join(f"{g}:{t.grade_counts.get(g, 0)}" for g in scale.values)
            line = Text()
            line.append(f"{t.key:>6} ", style="bold")
            line.append_text(cut(t.title, 34))
            line.append(f" {_bar(t.done, t.total)} {t.done:>4}/{t.total:<4} {counts}")
            ol.add_option(Option(line, id=t.key))
        if self.topics:
            first_open = next((i for i, t in enumerate(self.topics) if t.done < t.total), 0)
            ol.highlighted = highlighted if highlighted is not None else first_open
        done = sum(t.done for t in self.topics)
        total = sum(t.total for t in self.topics)
        self.query_one("#summary", Static).update(
            f"{len(self.topics)} topics · {done} / {total} documents judged")
        ol.focus()

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.open_topic(event.option.id or "")

    def action_open(self) -> None:
        ol = self.query_one(OptionList)
        if ol.highlighted is not None:
            self.open_topic(self.topics[ol.highlighted].key)

    def open_topic(self, key: str) -> None:
        topic = next(t for t in self.topics if t.key == key)
        self.app.open_topic(topic)  # type: ignore[attr-defined]

    def action_quit_app(self) -> None:
        self.app.exit()
