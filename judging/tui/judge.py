"""The judging screen: one keystroke grades, saves and advances.

The save is synchronous in the key handler on purpose: the screen moves on
only after :meth:`AssessorView.record` has returned, i.e. after the commit
(a few milliseconds). If the database cannot be reached, the grade stays
pending, a banner says so, and the save is retried every second until it
goes through; nothing advances meanwhile.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from rich.text import Text
from sqlalchemy.exc import DBAPIError, OperationalError
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.screen import Screen
from textual.widgets import Footer, ProgressBar, Static

from relkit.judging.assessor import AssessorView
from relkit.judging.models import ItemOut, StoreError, TopicOut
from relkit.judging.tui.docview import DocView, Wrapped
from relkit.judging.tui.dwell import DwellTimer
from relkit.judging.tui.keymap import Action, grade_key
from relkit.judging.tui.safe import query_terms, safe


def judge_screen(view: AssessorView, topic: TopicOut, actions: dict[str, Action],
                 idle_after: float, clock: Callable[[], float] = time.monotonic) -> JudgeScreen:
    """A judging screen whose key bindings come from the scale and the keymap."""
    scale = view.scale()
    bindings = [Binding(grade_key(g.value), f"grade({g.value})", f"{g.value} {g.label}",
                        show=False) for g in scale.grades]
    bindings += [Binding(a.key, a.name, a.short or a.description,
                         show=a.name in ("flag", "note", "skip", "back", "revise", "help",
                                         "topics")) for a in actions.values()]
    cls = type("BoundJudgeScreen", (JudgeScreen,), {"BINDINGS": bindings})
    return cls(view, topic, actions, idle_after, clock)  # type: ignore[no-any-return]


class JudgeScreen(Screen[None]):
    """Judge one topic's documents in the assignment's presentation order."""

    def __init__(self, view: AssessorView, topic: TopicOut, actions: dict[str, Action],
                 idle_after: float = 60.0, clock: Callable[[], float] = time.monotonic) -> None:
        super().__init__()
        self.view = view
        self.topic = topic
        self.actions_ = actions
        self.timer = DwellTimer(idle_after, clock)
        self.terms = query_terms(topic.title)
        self.item: ItemOut | None = None
        self.flagged = False
        self.note = ""
        self.pending: dict[str, Any] | None = None
        self.complete = False
        # The next unjudged document, wrapped while the assessor reads this one.
        self.ready: Wrapped | None = None

    # -- layout ----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        t = self.topic
        with Horizontal(id="topbar"):
            yield Static(safe(f"Topic {t.key}: {t.title or ''}"), id="topic-title")
            yield Static("", id="position")
            yield ProgressBar(total=max(t.total, 1), show_eta=False, id="progress")
        statement = "\n".join(x for x in (t.description, t.narrative) if x)
        yield Static(safe(statement), id="statement")
        yield DocView(id="doc")
        yield Static("", id="banner")
        yield Static("", id="state")
        yield Static(self._legend(), id="scale")
        yield Footer()

    def _legend(self) -> Text:
        # One line per grade, its definition beside it: the assessor decides against
        # the words of the guidelines, not against a remembered number.
        legend = Text(no_wrap=True, overflow="ellipsis")
        for i, g in enumerate(self.view.scale().grades):
            if i:
                legend.append("\n")
            legend.append(f" {grade_key(g.value)} ", style="bold reverse")
            legend.append(f" {g.label}", style="bold")
            if g.definition:
                legend.append(f": {g.definition}")
        return legend

    def on_mount(self) -> None:
        self.show_next_unjudged()

    # -- navigation ------------------------------------------------------------------
    def show(self, position: int, item: ItemOut | None = None) -> None:
        self.item = item or self.view.item(self.topic.key, position)
        self.flagged = self.item.flagged
        self.note = self.item.note
        self.complete = False
        self.query_one(DocView).show(self.item.doc, safe(self.item.title, self.terms),
                                     safe(self.item.text, self.terms), self.ready)
        self._refresh_state()
        self.timer.start()
        # Wrap the document a grade key would bring up next once this one is on screen.
        self.ready = None
        self.call_after_refresh(self._prepare_next, self.item)

    def _prepare_next(self, current: ItemOut) -> None:
        if self.item is not current:
            return  # the assessor has moved on already
        try:
            nxt = self.view.next_item(self.topic.key, current.position)
        except (OperationalError, DBAPIError):
            return  # only a head start: the grade key reads it again
        if nxt is not None and nxt.doc != current.doc:
            self.ready = self.query_one(DocView).prepare(
                nxt.doc, safe(nxt.title, self.terms), safe(nxt.text, self.terms))

    def show_next_unjudged(self, after: int = 0) -> None:
        nxt = self.view.next_item(self.topic.key, after)
        if nxt is not None:
            self.show(nxt.position, nxt)
            return
        if self.item is None:
            try:
                self.show(1)
            except StoreError:
                # An overlap assessor on an adaptive pool before the primary has
                # been shown anything: no item exists yet.
                self._banner("Nothing to judge yet: the documents of this topic are "
                             "picked as its primary assessor judges. Esc for the topic list")
                return
        self.complete = True
        self._refresh_state()

    def _refresh_state(self) -> None:
        item = self.item
        if item is None:
            return
        done, _ = self.view.progress(self.topic.key)
        self.query_one("#position", Static).update(f" {item.position} / {item.total} ")
        self.query_one("#progress", ProgressBar).update(total=max(item.total, 1), progress=done)
        parts = []
        if item.grade is not None:
            parts.append(f"Your grade: {item.grade} {self.view.scale().grade(item.grade).label}")
        elif item.status in ("skipped", "later"):
            parts.append("Skipped" if item.status == "skipped" else "Marked: judge later")
        else:
            parts.append("Not judged yet")
        if self.flagged:
            parts.append("flagged")
        if self.note:
            parts.append(f"note: {self.note}")
        if self.complete:
            parts.append(f"Topic complete: {done} of {item.total} judged. Esc for the topic list")
        self.query_one("#state", Static).update(safe("  ·  ".join(parts)))

    def on_key(self) -> None:
        self.timer.touch()

    def on_mouse_scroll_down(self) -> None:
        self.timer.touch()

    # -- saving ----------------------------------------------------------------------
    def _save(self, fields: dict[str, Any], advance: bool) -> None:
        if self.item is None or self.pending is not None:
            return
        record = dict(topic=self.topic.key, doc=self.item.doc, note=self.note,
                      flagged=self.flagged, dwell_ms=self.timer.elapsed_ms()) | fields
        self.pending = record
        self._attempt(advance)

    def _attempt(self, advance: bool) -> None:
        record = self.pending
        assert record is not None
        try:
            self.view.record(source="tui", **record)
        except StoreError as exc:
            self.pending = None
            self._banner(f"Not saved: {exc}")
            return
        except (OperationalError, DBAPIError):
            self._banner("Database unreachable: your judgment is NOT saved yet. Retrying "
                         "every second; it will be saved before the next document.")
            self.set_timer(1.0, lambda: self._attempt(advance))
            return
        self.pending = None
        self._banner("")
        position = self.item.position if self.item else 0
        if advance:
            self.show_next_unjudged(after=position)
        else:
            self.show(position)

    def _banner(self, text: str) -> None:
        banner = self.query_one("#banner", Static)
        banner.update(safe(text))
        banner.set_class(bool(text), "error")

    # -- actions ---------------------------------------------------------------------
    def action_grade(self, value: int) -> None:
        self._save({"grade": value, "status": "judged"}, advance=True)

    def action_skip(self) -> None:
        self._save({"grade": None, "status": "skipped"}, advance=True)

    def action_later(self) -> None:
        self._save({"grade": None, "status": "later"}, advance=True)

    def _resave_if_recorded(self) -> None:
        # A flag or note on an already judged document is saved at once (its history
        # keeps the change); on an unjudged one it goes with the grade.
        if self.item is not None and self.item.status is not None:
            self._save({"grade": self.item.grade, "status": self.item.status}, advance=False)
        else:
            self._refresh_state()

    def action_flag(self) -> None:
        self.flagged = not self.flagged
        self._resave_if_recorded()

    def action_note(self) -> None:
        from relkit.judging.tui.modals import NoteScreen

        def done(text: str | None) -> None:
            if text is not None:
                self.note = text
                self._resave_if_recorded()

        self.app.push_screen(NoteScreen(self.note), done)

    def action_back(self) -> None:
        if self.item is not None and self.item.position > 1:
            self.show(self.item.position - 1)

    def action_forward(self) -> None:
        if self.item is not None and self.item.position < self.item.total:
            try:
                self.show(self.item.position + 1)
            except StoreError:
                # Adaptive pool: the next position is not picked yet; the strategy's
                # next pick is what comes after the last one shown.
                self.show_next_unjudged(after=self.item.position)

    def action_next_unjudged(self) -> None:
        self.show_next_unjudged(after=self.item.position if self.item else 0)

    def action_revise(self) -> None:
        from relkit.judging.tui.modals import ReviseScreen

        def done(position: int | None) -> None:
            if position is not None:
                self.show(position)

        judged = [i for i in self.view.items(self.topic.key) if i.status is not None]
        self.app.push_screen(ReviseScreen(judged, self.view.scale()), done)

    def action_help(self) -> None:
        from relkit.judging.tui.modals import HelpScreen

        self.app.push_screen(HelpScreen(self.view.scale(), list(self.actions_.values())))

    def action_topics(self) -> None:
        if self.pending is None:
            self.dismiss(None)
