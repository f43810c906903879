"""The topic screen: the assessor's topics with progress and counts per grade.

One line per topic at any width (the title takes what the columns leave), and typing
a topic's key jumps to it: Cranfield has 225 topics. The head line says how to open
one, a topic's line and the summary count what is set aside (``s:`` skipped, ``l:``
for later), ``?`` explains it all, and the cursor starts on the first topic with
something left to judge (a resumed session does not start on yesterday's topic).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from rich.cells import cell_len
from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import OptionList, Static
from textual.widgets.option_list import Option

from relkit.judging.tui.leaks import Footer
from relkit.judging.tui.safe import cut, safe

if TYPE_CHECKING:
    # The store is not imported to draw this screen: `relkit judge` draws it first, from
    # relkit.judging.store.light's topics, while the store is imported (tui/start.py).
    from relkit.judging.store.assessor import AssessorView
    from relkit.judging.store.outputs import TopicOut
    from relkit.judging.tui.start import FirstView

BAR = 12
JUMP_RESET = 1.5  # seconds: a pause this long starts a new topic key


def bar(done: int, total: int, width: int = BAR) -> str:
    """A progress bar that is full only when all is done (it rounds down: 32 of 33 is
    not drawn as finished)."""
    filled = width * done // total if total else 0
    return "█" * filled + "░" * (width - filled)


class TopicsScreen(Screen[None]):
    # Enter: a priority binding, else the list's own (not shown in the footer) takes it.
    BINDINGS = [Binding("q", "quit_app", "Quit"),
                Binding("enter", "open", "Judge", show=True, priority=True),
                Binding("question_mark", "help", "Help")]

    def __init__(self, view: AssessorView | FirstView, open_first: str | None = None) -> None:
        """``open_first``: a topic's key, opened as soon as the list is read (`--topic`)."""
        super().__init__()
        self.view = view
        self._open_first = open_first
        self.topics: list[TopicOut] = []
        self.typed = ""
        self._typed_at = 0.0
        # What the list shows: (key width, title width, keys) and each line's topic.
        self._layout: tuple[int, int, list[str]] | None = None
        self._drawn: dict[str, TopicOut] = {}
        # The list on_mount read is current when the screen is first shown (its first
        # resume comes right after the mount): read again on each later resume only. At
        # start it is the list read before the app started (tui/start.py).
        self._fresh = False

    def compose(self) -> ComposeResult:
        # "assessor NAME" as the lead's screen says "lead NAME": whose screen it is
        yield Static(safe(f"relkit · assessor {self.view.name} · Enter opens a topic · "
                          "type its number to jump · ? help"), id="head")
        yield OptionList(id="topic-list")
        yield Static("", id="summary")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_topics()
        self._fresh = True
        key, self._open_first = self._open_first, None
        if key is not None and any(t.key == key for t in self.topics):
            self.open_topic(key)

    def on_screen_resume(self) -> None:
        fresh, self._fresh = self._fresh, False
        if not fresh:
            self.refresh_topics()
            self.move_past_finished()

    def on_screen_suspend(self) -> None:
        self._fresh = False  # (a topic opened at start: its list is read on the way back)

    def move_past_finished(self) -> None:
        """Back from a topic now finished: highlight the next one with work left."""
        ol = self.query_one(OptionList)
        i = ol.highlighted
        if i is None or i >= len(self.topics) or self.topics[i].open:
            return
        n = len(self.topics)
        nxt = next((j % n for j in range(i + 1, i + n) if self.topics[j % n].open), None)
        if nxt is not None:
            ol.highlighted = nxt

    def on_resize(self) -> None:
        self.call_after_refresh(self.draw)

    def refresh_topics(self) -> None:
        try:
            topics = self.view.topics()
        except Exception as exc:
            from relkit.judging.tui.outbox import unreachable

            if not isinstance(exc, unreachable()):
                raise
            self.query_one("#summary", Static).update(
                "Database unreachable: the topic list is not up to date; it refreshes when "
                "you come back to it")
            return
        self.topics = topics
        self.draw()
        done = sum(t.done for t in self.topics)
        total = sum(t.total for t in self.topics)
        skipped = sum(t.skipped for t in self.topics)
        later = sum(t.later for t in self.topics)
        aside = (f" · {skipped} skipped" if skipped else "") + (
            f" · {later} for later" if later else "")
        self.query_one("#summary", Static).update(
            f"{len(self.topics)} topics · {done} / {total} documents judged{aside}")

    def draw(self) -> None:
        """One line per topic, the title cut to what the other columns leave."""
        scale = self.view.scale()
        ol = self.query_one(OptionList)
        highlighted = ol.highlighted
        keyw = max((cell_len(t.key) for t in self.topics), default=1)
        # Skipped and for-later counts: a column only if some topic has them.
        asides = [(f"s:{t.skipped}" if t.skipped else "") + (" " if t.skipped and t.later
                                                              else "")
                  + (f"l:{t.later}" if t.later else "") for t in self.topics]
        asidew = max((len(a) for a in asides), default=0)
        lines = []
        for t, aside in zip(self.topics, asides, strict=True):
            counts = " ".join(f"{g}:{t.grade_counts.get(g, 0)}" for g in scale.values)
            right = f" {bar(t.done, t.total)} {t.done:>4}/{t.total:<4} {counts}"
            if asidew:
                right += f" {aside:<{asidew}}"
            lines.append((t, right))
        # Textual reports 0 before the first layout: then a width that fits 80 columns.
        width = ol.scrollable_content_region.width - 2 or 74  # 2: the scrollbar
        fixed = keyw + 1 + max((cell_len(r) for _, r in lines), default=0)
        titlew = max(10, width - fixed)
        layout = (keyw, titlew, [t.key for t in self.topics])

        def prompt(t: TopicOut, right: str) -> Text:
            line = Text()
            line.append(f"{t.key:>{keyw}} ", style="bold")
            line.append_text(cut(t.title, titlew))
            line.append(right)
            return line

        if layout == self._layout:
            # Back from a topic: only the lines whose counts changed are made again
            # (Cranfield has 225; remaking them all took longer than a frame).
            for i, (t, right) in enumerate(lines):
                if self._drawn.get(t.key) != t:
                    ol.replace_option_prompt_at_index(i, prompt(t, right))
        else:
            ol.clear_options()
            ol.add_options([Option(prompt(t, right), id=t.key) for t, right in lines])
        self._layout = layout
        self._drawn = {t.key: t for t in self.topics}
        if self.topics:
            first_open = next((i for i, t in enumerate(self.topics) if t.open), 0)
            ol.highlighted = highlighted if highlighted is not None else first_open
        ol.focus()

    def on_key(self, event: events.Key) -> None:
        # Type-to-jump: letters and digits not bound to an action build a topic key.
        char = event.character
        bound = {b.key for b in self.BINDINGS if isinstance(b, Binding)}
        if not char or not char.isalnum() or char in bound:
            return
        now = time.monotonic()
        typed = "" if now - self._typed_at > JUMP_RESET else self.typed
        self._typed_at = now
        event.stop()
        # A key that no topic's key continues with starts a new one, so the buffer never
        # outgrows the longest topic key: each key costs the same however many came
        # before (a held key or a burst of thousands grew it without end, and each key
        # then cost its length: quadratic, seconds of CPU).
        if not any(t.key.startswith(typed + char) for t in self.topics):
            typed = ""
        self.typed = typed + char
        self.jump(self.typed)

    def jump(self, typed: str) -> None:
        """Highlight the topic whose key is ``typed`` (else the first that starts so)."""
        keys = [t.key for t in self.topics]
        i = next((i for i, k in enumerate(keys) if k == typed),
                 next((i for i, k in enumerate(keys) if k.startswith(typed)), None))
        summary = self.query_one("#summary", Static)
        if i is None:
            summary.update(safe(f"no topic {typed!r} here · Enter opens the highlighted one"))
            return
        self.query_one(OptionList).highlighted = i
        summary.update(safe(f"topic {keys[i]} · Enter opens it"))

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        self.open_topic(event.option.id or "")

    def action_open(self) -> None:
        ol = self.query_one(OptionList)
        if ol.highlighted is not None:
            self.open_topic(self.topics[ol.highlighted].key)

    def open_topic(self, key: str) -> None:
        topic = next(t for t in self.topics if t.key == key)
        self.app.open_topic(topic)  # type: ignore[attr-defined]

    def action_help(self) -> None:
        from relkit.judging.tui.modals import TopicsHelpScreen

        self.app.push_screen(TopicsHelpScreen(self.view.scale(),
                                              list(self.app.actions_.values())))  # type: ignore[attr-defined]

    def action_quit_app(self) -> None:
        self.app.exit()
