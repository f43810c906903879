"""How the judging screen saves a judgment: never lost, never ahead of the database.

The key handler waits for the save: it returns only after
:meth:`AssessorView.record` has committed, and the state line then shows what the
database holds ("saved: 2 Highly relevant, D134"). The commit, and the reads of what
comes next, run in a thread, so the event loop keeps drawing meanwhile; keys typed
in the meantime are handled after it. The next document is read and wrapped while the
assessor reads this one, so once the commit returns it is drawn at once. With
``Settings.draw_ahead`` (off by default: the screen moves on only after the commit) it
is drawn *ahead* while the commit runs, with "saving: ..." on the state line. Nothing moves on
before the commit: the grade keys and every key that reads the store wait for it,
the topic list and quitting too; the document drawn ahead is confirmed against what
is read after the commit (else the right one is shown), and a save that fails brings
the graded document back, from memory. On an adaptive pool the next pick depends on
the grade: read ahead, the strategy's pick is still the current document, so nothing
is drawn ahead there and the screen moves after the commit.

If the database cannot be reached, the grade stays pending in the app's
:class:`~relkit.judging.tui.outbox.Outbox`, a banner says so, and the save is
retried every second until it goes through. Meanwhile nothing that reads the store
runs (it would fail the same way, and moving on would leave the grade behind): those
keys say that they wait for the save.

A grade applies only to a document that has been drawn and on screen for
``min_view`` seconds: keys typed ahead while the previous save was committing are
dropped with a note, never applied to a document nobody saw. A document already read
on this screen (a grade key on it passed) counts as soon as it is drawn again: back
with undo, after a failed save, or opened from the revise list (picked by name); and
one shown again after its flag or note is saved keeps its time on screen.

Two screens of one person (two browser tabs, two terminals) may show one document.
Each save carries the version of the judgment its screen showed (read with the item);
over a newer one it is still saved, as the newest version (the key's judgment commits
before the screen moves on, as always), and the state line names the judgment it
replaced: ``saved: 3 ..., D105 — it had been judged 1 ... in another session of yours
(another tab or terminal) meanwhile; both are in its history``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from textual.screen import Screen
from textual.widgets import Static

from relkit.judging.store.errors import StoreError, StoreNotOpen
from relkit.judging.store.outputs import ItemOut, JudgmentOut
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.outbox import acknowledgement, describe_record, unreachable, what
from relkit.judging.tui.quiet import set_text
from relkit.judging.tui.safe import safe

if TYPE_CHECKING:
    from relkit.judging.store.assessor import AssessorView
    from relkit.judging.store.outputs import TopicOut
    from relkit.judging.tui.docview import Wrapped
    from relkit.judging.tui.dwell import DwellTimer
    from relkit.judging.tui.outbox import Outbox

# What the commit thread read after the save: the item to show and (done, total).
Follow = tuple[ItemOut | None, tuple[int, int]]


class Saving(Screen[None]):
    """The judging screen's saving (a base of :class:`~relkit.judging.tui.judge.JudgeScreen`,
    which has the state below and draws documents)."""

    view: AssessorView
    topic: TopicOut
    item: ItemOut | None
    outbox: Outbox
    timer: DwellTimer
    clock: Callable[[], float]
    min_view: float
    draw_ahead: bool
    note: str
    flagged: bool
    ack: str
    _ack_next: str
    last_saved: int | None
    _waiting: str
    drawn_at: float | None
    _read: set[str]
    ready: Wrapped | None
    ready_item: ItemOut | None
    _saving: tuple[ItemOut, Wrapped | None] | None
    _progress: tuple[int, int] | None

    @property
    def pending(self) -> dict[str, Any] | None:
        """The judgment sent and not yet committed, if any."""
        return self.outbox.record

    if TYPE_CHECKING:  # drawn by the judging screen
        def show(self, position: int, item: ItemOut | None = None,
                 progress: tuple[int, int] | None = None) -> None: ...
        def _go_next(self, nxt: ItemOut | None,
                     progress: tuple[int, int] | None = None) -> None: ...
        def _refresh_state(self, progress: tuple[int, int] | None = None) -> None: ...
        def _prepare_next(self, current: ItemOut) -> None: ...

    def _seen(self, key: str) -> bool:
        """Whether the current document has been on screen long enough for ``key`` to judge it."""
        shown = 0.0 if self.drawn_at is None else self.clock() - self.drawn_at
        if shown >= self.min_view:
            if self.item is not None:
                self._read.add(self.item.doc)
            return True
        doc = self.item.doc if self.item else "the document"
        self._banner(f"Key {key} ignored: {doc} was on screen for {shown * 1000:.0f} ms only "
                     f"(typed ahead?). Read it, then press the key again.", note=True)
        return False

    async def _save(self, fields: dict[str, Any], advance: bool) -> None:
        if self.item is None:
            return
        if self.pending is not None:
            self._unsaved("The next judgment waits until it is saved.")
            return
        # expected_version: the judgment this screen showed (read with the item, no extra
        # query); a save over a newer one (another tab of the same person) is said.
        record = dict(topic=self.topic.key, doc=self.item.doc, note=self.note,
                      flagged=self.flagged, dwell_ms=self.timer.elapsed_ms(),
                      expected_version=self.item.version) | fields
        self.outbox.put(record)
        self._saving = (self.item, self.query_one(DocView).wrapped)
        if getattr(self.view, "opening", False):
            # `relkit judge` drew this document before the store was open (lightview.py):
            # the commit waits for it; the screen says so, and moves on after the commit.
            grade = what(fields.get("grade"), fields.get("status"), self.view.scale())
            self._banner(f"saving… {grade}, {self.item.doc} (opening the judging database)",
                         note=True)
        if advance and self.draw_ahead and self._show_ahead(record):
            # The commit starts once the next document is drawn: its Python half would
            # otherwise share the interpreter with the drawing. Until then, as during the
            # commit, the record is in the outbox and every key that moves on waits.
            drawn = asyncio.Event()
            self.query_one(DocView).when_drawn(drawn.set)
            with contextlib.suppress(TimeoutError):  # never held up by a refresh that
                await asyncio.wait_for(drawn.wait(), 0.1)  # does not come
        await self._attempt(advance)

    def _show_ahead(self, record: dict[str, Any]) -> bool:
        """Draw the next document while the grade commits (the commit is an fsync: it can
        take longer than a frame). Nothing moves on before the commit: the grade keys, and
        every key that reads the store, wait for it; the state line says "saving", then
        "saved" with what the database returned, and a failed save brings the graded
        document back. Only a next document read and wrapped beforehand is drawn ahead."""
        nxt, ready = self.ready_item, self.ready
        if nxt is None or ready is None or self.item is None or nxt.doc == self.item.doc:
            return False
        grade = what(record.get("grade"), record.get("status"), self.view.scale())
        self._ack_next = f"saving: {grade}, {record['doc']} …"
        self.show(nxt.position, nxt, self._progress)
        return True

    def _come_back(self) -> None:
        """The save failed: back to the document it was for, from memory."""
        if self._saving is None:
            return
        item, wrapped = self._saving
        if self.item is not item and wrapped is not None:
            self.ack = self._ack_next = ""
            self.ready, self.ready_item = wrapped, item
            self.show(item.position, item, self._progress)

    def _commit(self, record: dict[str, Any], position: int, advance: bool,
                retry: bool = False) -> tuple[JudgmentOut, Follow | None]:
        """In a thread: save ``record`` (``retry``: tried before without an answer; an
        earlier try that went through is not written again), then read what the screen
        shows next (``None``: saved, but that read failed)."""
        saved = self.view.record(source="tui", retry=retry, **record)
        try:
            key = self.topic.key
            nxt = (self.view.next_item(key, after=position) if advance
                   else self.view.item(key, position))
            return saved, (nxt, self.view.progress(key))
        except unreachable():
            return saved, None

    async def _attempt(self, advance: bool) -> None:
        record = self.outbox.record
        if record is None:
            return
        if self._saving is not None:
            position = self._saving[0].position
        else:
            position = self.item.position if self.item else 0
        retried = self.outbox.attempts > 0  # tried before, while the database was away
        try:
            saved, follow = await asyncio.to_thread(self._commit, record, position, advance,
                                                    retried)
        except StoreError as exc:
            if not isinstance(exc, StoreNotOpen):  # refused: else it stays for the command
                self.outbox.clear()                # to print in full (cli.unsaved_at_open)
            self._come_back()
            self._saving = None
            self._waiting = ""
            self._banner(f"Not saved: {exc}")
            return
        except unreachable():
            self.outbox.attempts += 1
            self._come_back()
            self._unsaved()
            self.set_timer(1.0, lambda: self._attempt(advance))
            return
        self.outbox.clear()
        ahead = self._saving is not None and self.item is not self._saving[0]
        self._saving = None
        self._waiting = ""
        self._banner("")
        # From here on the screen shows what the database holds (the returned row),
        # not what the screen held before the save.
        self._ack_next = acknowledgement(saved, self.view.scale(), retried)
        if self.item is not None and self.item.doc == saved.doc:
            self.item = replace(self.item, grade=saved.grade, status=saved.status,
                                note=saved.note, flagged=saved.flagged, version=saved.version)
        self.last_saved = position
        if follow is not None:
            nxt, progress = follow
            if ahead and nxt is not None and self.item is not None and nxt.doc == self.item.doc:
                # Drawn ahead and confirmed: the state line from what was read after the
                # commit, and the document after it wrapped now that the store is free.
                self.item, self.ack, self._ack_next = nxt, self._ack_next, ""
                self.flagged, self.note = nxt.flagged, nxt.note
                self._refresh_state(progress)
                self._prepare_next(nxt)
            elif advance:
                self._go_next(nxt, progress)
            else:
                self.show(position, nxt, progress)
        else:  # loading what comes next failed: the state line still says it was saved
            self._banner("Database unreachable: loading the next document is not possible "
                         "now. Every judgment acknowledged as saved is saved; try again in a "
                         "moment.")
            self.ack, self._ack_next = self._ack_next, ""
            self._guard("showing the saved state", self._refresh_state)

    def _guard(self, doing: str, fn: Callable[[], None]) -> None:
        try:
            fn()
        except unreachable():
            self._banner(f"Database unreachable: {doing} is not possible now; try again in a "
                         "moment.")

    def _unsaved(self, then: str = "") -> None:
        """The banner for a pending save, with what the last key is waiting for."""
        record = self.outbox.record
        if record is None:
            return
        # The retry redraws the banner every second: it keeps the last key's note.
        self._waiting = then = then or self._waiting
        self._banner(f"Database unreachable: {describe_record(record, self.view.scale())} "
                     f"is NOT saved yet; retrying every second (attempt "
                     f"{self.outbox.attempts})." + (f"\n{then[:1].upper()}{then[1:]}"
                                                    if then else ""))

    def _banner(self, text: str, note: bool = False) -> None:
        banner = self.query_one("#banner", Static)
        set_text(banner, safe(text))
        banner.set_class(bool(text) and not note, "error")
        banner.set_class(bool(text) and note, "note")
