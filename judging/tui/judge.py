"""The judging screen: one keystroke grades, saves and advances.

How a grade is saved (the commit in a thread, the next document drawn ahead, the
outbox while the database is away) is :mod:`relkit.judging.tui.saving`; finding
words in the document is :mod:`relkit.judging.tui.find`. Everything the next
document needs on screen is made while the assessor reads the current one (its
highlighted text and its wrapped lines), so a grade key only swaps lines.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal
from textual.widgets import Static

from relkit.judging.store.errors import StoreError
from relkit.judging.store.outputs import ItemOut, TopicOut
from relkit.judging.tui.docview import READING_WIDTH, DocView, Wrapped
from relkit.judging.tui.dwell import MIN_VIEW, DwellTimer
from relkit.judging.tui.find import FindBar, Finding
from relkit.judging.tui.keymap import Action, grade_key
from relkit.judging.tui.leaks import Footer
from relkit.judging.tui.legend import Legend
from relkit.judging.tui.moving import Moving
from relkit.judging.tui.outbox import Outbox, unreachable
from relkit.judging.tui.quiet import set_text
from relkit.judging.tui.safe import query_terms, safe
from relkit.judging.tui.short import JUDGE_TINY_BELOW, too_small, waits
from relkit.judging.tui.topicpane import TopicPane, bar_text
from relkit.judging.tui.topics import bar

if TYPE_CHECKING:
    # Not imported with the screen: `relkit judge` may draw the first document before
    # the store is open (tui/lightview.py).
    from relkit.judging.store.assessor import AssessorView


def judge_screen(view: AssessorView, topic: TopicOut, actions: dict[str, Action],
                 idle_after: float, clock: Callable[[], float] = time.monotonic,
                 min_view: float = MIN_VIEW, outbox: Outbox | None = None,
                 reading_width: int = READING_WIDTH, draw_ahead: bool = False) -> JudgeScreen:
    """A judging screen whose key bindings come from the scale and the keymap."""
    scale = view.scale()
    bindings = [Binding(grade_key(g.value), f"grade({g.value})", f"{g.value} {g.label}",
                        show=False) for g in scale.grades]
    bindings += [Binding(a.key, a.name, a.short or a.description,
                         show=a.name in ("flag", "note", "skip", "revise",
                                         "definitions", "help", "topics"))
                 for a in actions.values()]
    # While the find bar is open these take n, N and Esc (check_action turns off the
    # note and topic-list actions bound to them meanwhile); closed, they do nothing.
    bindings += [Binding("n", "find_next", show=False), Binding("N", "find_prev", show=False),
                 Binding("escape", "find_close", show=False),
                 Binding("enter", "find_done", show=False, priority=True)]
    cls = type("BoundJudgeScreen", (JudgeScreen,), {"BINDINGS": bindings})
    return cls(view, topic, actions, idle_after, clock,  # type: ignore[no-any-return]
               min_view, outbox, reading_width, draw_ahead)


FIND_KEYS = ("n", "N", "escape")  # the find bar's own keys while it is open


class JudgeScreen(Moving, Finding):
    """Judge one topic's documents in the assignment's presentation order."""

    def __init__(self, view: AssessorView, topic: TopicOut, actions: dict[str, Action],
                 idle_after: float = 60.0, clock: Callable[[], float] = time.monotonic,
                 min_view: float = MIN_VIEW, outbox: Outbox | None = None,
                 reading_width: int = READING_WIDTH, draw_ahead: bool = False) -> None:
        super().__init__()
        self.reading_width = reading_width
        self.draw_ahead = draw_ahead  # see relkit.judging.tui.saving
        self.view = view
        self.topic = topic
        self.actions_ = actions
        self.clock = clock
        self.timer = DwellTimer(idle_after, clock)
        self.min_view = min_view
        self.outbox = outbox if outbox is not None else Outbox()
        self.terms = query_terms(topic.title)
        self.item: ItemOut | None = None
        self.flagged = False
        self.note = ""
        self.complete = False
        self.ack = ""  # the last save, as the database acknowledged it
        self._ack_next = ""  # ... for the state line drawn next
        self.last_saved: int | None = None  # its position, for undo
        self._waiting = ""  # what the last key refused while a save is pending
        # When the current document was first drawn (None: not drawn yet).
        self.drawn_at: float | None = None
        # Documents read on this screen (a grade key on them passed min_view): shown
        # again (undo, a failed save, the revise list), their keys count once drawn.
        self._read: set[str] = set()
        self._known = False  # the current document is one of them
        self._shown = 0
        # The next unjudged document, highlighted and wrapped while the assessor reads
        # this one.
        self.ready: Wrapped | None = None
        self.ready_item: ItemOut | None = None  # ... and its item, as read before the save
        # The document whose grade is being saved while the next one is already shown,
        # with its lines (to come back to if the save fails).
        self._saving: tuple[ItemOut, Wrapped | None] | None = None
        self._progress: tuple[int, int] | None = None  # (done, total) as last read
        self._matches = []
        self._current = 0

    # -- layout ----------------------------------------------------------------------
    def compose(self) -> ComposeResult:
        t = self.topic
        with Horizontal(id="topbar"):
            yield Static(bar_text(t), id="topic-title")
            yield Static("", id="position")
            yield Static("", id="progress")
        marker = Static("", id="topic-more")
        yield TopicPane(t, self.terms, marker, id="topic")
        yield marker
        yield DocView(reading_width=self.reading_width, id="doc")
        yield Static(too_small(JUDGE_TINY_BELOW), id="too-small")
        yield FindBar(id="find")
        yield Static("", id="banner")
        yield Static("", id="state")
        yield Legend(self.view.scale(), id="scale")
        yield Footer()

    def on_mount(self) -> None:
        self._guard("loading this topic", self.show_next_unjudged)
        self.query_one(DocView).focus()
        # After the first document is drawn: the first modal opened then parses no CSS.
        self.call_after_refresh(self._prepare_modals)

    def _prepare_modals(self) -> None:
        from relkit.judging.tui.modals import register_styles

        register_styles(self.app)

    def on_resize(self) -> None:
        # The bar's width decides whether the title is cut there (then the pane shows it).
        self.call_after_refresh(self._fit_topic)

    def _fit_topic(self) -> None:
        self.query_one(TopicPane).fit(self.query_one("#topic-title").size.width)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if waits(self, action):  # too small to read the document (short.py)
            return False
        if action in ("find_next", "find_prev", "find_close"):
            return self.finding()
        if action in self.actions_ and self.actions_[action].key in FIND_KEYS:
            return not self.finding()
        if action == "find_done":
            return self.typing_query()
        return True

    # -- navigation ------------------------------------------------------------------
    def show(self, position: int, item: ItemOut | None = None,
             progress: tuple[int, int] | None = None) -> None:
        before = self.item
        self.item = item = item or self.view.item(self.topic.key, position)
        self.flagged = item.flagged
        self.note = item.note
        self.complete = False
        self.ack, self._ack_next = self._ack_next, ""
        self._banner("")  # a new document: earlier notes and read errors are over
        if self.finding():
            self.action_find_close()  # matches belong to the document they were found in
        ready = self.ready if self.ready is not None and self.ready.key == item.doc else None
        doc = self.query_one(DocView)
        if ready is not None:  # highlighted already: do not do it again on the key's path
            doc.show(item.doc, ready.title, ready.body, ready)
        else:
            doc.show(item.doc, safe(item.title, self.terms), safe(item.text, self.terms))
        doc.border_title = safe(item.doc)
        self._refresh_state(progress)
        self.timer.start()
        # The same document again (a flag or a note saved): it stays on screen, its time
        # with it. Another: the grade keys wait for the first refresh that draws it, and
        # then for min_view unless it was read here before (it is not typed ahead at).
        if before is None or before.doc != item.doc or self.drawn_at is None:
            self.drawn_at = None
            self._known = item.doc in self._read
        self._shown += 1  # which show() this is (the item is replaced when a save confirms it)
        shown, current = self._shown, self.item
        doc.when_drawn(lambda: self._drawn(shown))
        # Wrap the document a grade key would bring up next once this one is on screen.
        self.ready = self.ready_item = None
        doc.when_drawn(lambda: self._prepare_next(current))
        doc.when_drawn(self._reading)

    def on_screen_suspend(self) -> None:
        # A modal opened over the document (help, note, revise...): once it is drawn the
        # assessor reads it. And when it closes, the document is read again; the closed
        # modal is garbage with reference cycles, freed by the pass.
        self.app.call_after_refresh(self._reading)

    def on_screen_resume(self) -> None:
        self.app.call_after_refresh(self._reading)

    def _reading(self) -> None:
        # The document is on screen and the assessor reads it: the moment for the cycle
        # collector's full pass (JudgeApp.heap, judging/tui/heap.py; None in most tests).
        heap = getattr(self.app, "heap", None)
        if heap is not None:
            heap.reading()

    def _drawn(self, shown: int) -> None:
        if self._shown == shown and self.drawn_at is None:
            self.drawn_at = self.clock() - (self.min_view if self._known else 0.0)

    def _prepare_next(self, current: ItemOut, again: bool = True) -> None:
        if self.item is not current or self.pending is not None:
            return  # the assessor has moved on already, or a save is using the store
        try:
            nxt = self.view.next_item(self.topic.key, current.position)
            if nxt is not None and nxt.doc == current.doc:
                # An adaptive pool: the pick after this one, as far as the strategy can
                # tell (cal: the rest of its batch, or the batch planned ahead), is wrapped
                # now; show() takes it if it comes. A plan still training: ask once more.
                ahead = self.view.upcoming(self.topic.key)
                if ahead is not None:
                    self.ready = self.query_one(DocView).prepare(
                        ahead[0], safe(ahead[1], self.terms), safe(ahead[2], self.terms))
                elif again:
                    self.set_timer(0.25, lambda: self._prepare_next(current, again=False))
                return
        except unreachable():  # (SQLAlchemy is imported only if something is raised)
            return  # only a head start: the grade key reads it again
        if nxt is not None and nxt.doc != current.doc:
            self.ready_item = nxt
            self.ready = self.query_one(DocView).prepare(
                nxt.doc, safe(nxt.title, self.terms), safe(nxt.text, self.terms))

    def show_next_unjudged(self, after: int = 0) -> None:
        self._go_next(self.view.next_item(self.topic.key, after))

    def _go_next(self, nxt: ItemOut | None, progress: tuple[int, int] | None = None) -> None:
        if nxt is not None:
            self.show(nxt.position, nxt, progress)
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
        self.ack, self._ack_next = self._ack_next or self.ack, ""
        self._refresh_state(progress)

    def _refresh_state(self, progress: tuple[int, int] | None = None) -> None:
        item = self.item
        if item is None:
            return
        if progress is None:  # while a save is pending the store is not read: as last read
            progress = (self._progress if self.pending is not None and self._progress
                        else self.view.progress(self.topic.key))
        self._progress = progress
        done, _ = progress
        set_text(self.query_one("#position", Static), f" {item.position} / {item.total} ")
        set_text(self.query_one("#progress", Static), f"{bar(done, item.total)} {done} judged ")
        parts = [self.ack] if self.ack else []
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
            skipped = self.view.skipped(self.topic.key)
            aside = f", {skipped} skipped (r to revisit)" if skipped else ""
            parts.append(f"Topic complete: {done} of {item.total} judged{aside}. "
                         "Esc for the topic list")
        set_text(self.query_one("#state", Static), safe("  ·  ".join(parts)))

    def on_key(self) -> None:
        self.timer.touch()

    def on_mouse_scroll_down(self) -> None:
        self.timer.touch()

    # -- actions ---------------------------------------------------------------------
    async def action_grade(self, value: int) -> None:
        if self._seen(grade_key(value)):
            await self._save({"grade": value, "status": "judged"}, advance=True)

    def action_skip(self) -> None:
        # Set aside for good (the revise list reaches it), with an optional reason: the note.
        from relkit.judging.tui.modals import SkipScreen

        if self.pending is not None:
            self._unsaved("The skip waits until it is saved.")
        elif self.item is not None and self._seen(self.actions_["skip"].key):
            self.app.push_screen(SkipScreen(self.item.doc, self.note), self._skip)

    async def _skip(self, reason: str | None) -> None:
        if reason is not None:
            await self._save({"grade": None, "status": "skipped", "note": reason},
                             advance=True)

    async def action_later(self) -> None:
        if self._seen(self.actions_["later"].key):
            await self._save({"grade": None, "status": "later"}, advance=True)

    async def _resave_if_recorded(self) -> None:
        # A flag or note on an already judged document is saved at once (its history
        # keeps the change); on an unjudged one it goes with the grade.
        if self.item is not None and self.item.status is not None:
            await self._save({"grade": self.item.grade, "status": self.item.status},
                             advance=False)
        else:
            self._guard("showing the state", self._refresh_state)

    async def action_flag(self) -> None:
        if self.pending is not None:
            self._unsaved("The flag waits until it is saved.")
            return
        self.flagged = not self.flagged
        await self._resave_if_recorded()

    def action_note(self) -> None:
        from relkit.judging.tui.modals import NoteScreen

        if self.pending is not None:
            self._unsaved("The note waits until it is saved.")
            return

        async def done(text: str | None) -> None:
            if text is not None and self.pending is None:
                self.note = text
                await self._resave_if_recorded()

        self.app.push_screen(NoteScreen(self.note), done)

    def action_topic(self) -> None:
        pane = self.query_one(TopicPane)
        pane.toggle()
        # The legend makes room so that some of the document stays on screen at 80x24.
        self.query_one("#scale").display = not pane.expanded
        if not pane.expanded:
            self.query_one(DocView).focus()

    def action_definitions(self) -> None:
        # The other form of the scale: the definitions on a screen under 40 rows (one
        # line of keys there), the one line from 40 rows up (short.py).
        self.query_one(Legend).toggle_class("flip")

    def action_help(self) -> None:
        from relkit.judging.tui.modals import HelpScreen

        self.app.push_screen(HelpScreen(self.view.scale(), list(self.actions_.values())))

    def action_topics(self) -> None:
        if self.pending is not None:
            self._unsaved("The topic list waits until it is saved.")
            return
        self.dismiss(None)
