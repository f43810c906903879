"""The judging screen's first document before the store is open.

``relkit judge`` draws the topic list from ``sqlite3`` while the store (SQLAlchemy,
SQLModel) is imported in a thread (:mod:`relkit.judging.tui.start`). A topic opened
before the store is ready used to wait for it; :class:`LightView` lets the judging
screen open at once instead. It reads what the screen draws for the first document
(the item with its text and the assessor's judgment, the topic's progress and skipped
count) with :class:`relkit.judging.store.light.LightReader`, read-only and in one
snapshot, and answers the screen's reads of other items the same way while the store
is opening. Everything else, saving first of all, goes to the store's own
:class:`~relkit.judging.store.assessor.AssessorView`, waiting for it: a grade key
pressed meanwhile is saved through the store once it is open (the screen says
"saving…" until then), and the screen moves on only after that commit, as always. Once
the store is open every read is the store's.

Only a static pool's topic opens this way: an adaptive pool's next pick is its
strategy's (the store's), so :meth:`LightView.open` returns ``None`` there, as it does
for anything the light reader cannot read; the app then waits for the store as before.
"""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING, Any

from relkit.corpora.types import RelevanceScale
from relkit.judging.store.errors import StoreError, StoreNotOpen
from relkit.judging.store.light import Assignment, LightReader
from relkit.judging.store.outputs import ItemOut

if TYPE_CHECKING:
    from relkit.judging.store.assessor import AssessorView
    from relkit.judging.tui.start import StoreLoader

# The reads the first document's screen makes, answered from the opening snapshot.
Key = tuple[str, int]


class LightView:
    """The assessor's view as the judging screen uses it, for one topic. Build with
    :meth:`open`."""

    def __init__(self, loader: StoreLoader, reader: LightReader, assessor_id: int,
                 topic: str, assignment: Assignment, first: dict[Key, Any]) -> None:
        self.loader = loader
        self.name = loader.first.assessor
        self._reader: LightReader | None = reader
        self._aid = assessor_id
        self._topic = topic
        self._a = assignment
        self._first = first  # read in one snapshot when the topic opened; each used once

    @classmethod
    def open(cls, loader: StoreLoader, topic: str) -> LightView | None:
        """The view, with the first document read; ``None`` where the store must answer
        (see the module doc)."""
        reader = LightReader.open(loader.first.db)
        if reader is None:
            return None
        try:
            aid = reader.assessor_id(loader.first.assessor)
            with reader.snapshot():
                a = None if aid is None else reader.assignment(aid, topic)
                if aid is None or a is None or a.adaptive:
                    reader.close()
                    return None
                # What the judging screen reads to draw the first document: the next
                # item (the first if none is left: the topic is complete), the progress
                # bar and, on a complete topic, the skipped count.
                nxt = reader.next_item(aid, topic, a, 0)
                first: dict[Key, Any] = {("next_item", 0): nxt,
                                         ("progress", 0): reader.progress(a),
                                         ("skipped", 0): reader.skipped(aid, a)}
                if nxt is None and a.total:
                    first["item", 1] = reader.item(aid, topic, a, 1)
        except (sqlite3.Error, StoreError):
            reader.close()
            return None
        return cls(loader, reader, aid, topic, a, first)

    @property
    def opening(self) -> bool:
        """Whether the store is still opening (a save waits for it)."""
        return not self.loader.ready

    def _light(self, topic: str) -> LightReader | None:
        """The reader while the store is opening (for this view's topic), else ``None``."""
        if self.loader.ready or topic != self._topic:
            if self._reader is not None and self.loader.ready:
                self._reader.close()
                self._reader = None
            return None
        return self._reader

    def _store(self) -> AssessorView:
        """The store's view (waiting for it). If it could not be opened, a save says so
        (the app then ends and the command says why)."""
        try:
            return self.loader.get()[1]
        except Exception as exc:
            raise StoreNotOpen("the judging database could not be opened: "
                             f"{str(exc).splitlines()[0] if str(exc) else exc!r}") from exc

    def _once(self, key: Key) -> tuple[bool, Any]:
        if key in self._first:
            return True, self._first.pop(key)
        return False, None

    def scale(self) -> RelevanceScale:
        return self.loader.first.scale

    def next_item(self, topic: str, after: int = 0) -> ItemOut | None:
        reader = self._light(topic)
        if reader is None:
            return self._store().next_item(topic, after)
        found, value = self._once(("next_item", after))
        return value if found else reader.next_item(self._aid, topic, self._a, after)

    def item(self, topic: str, position: int) -> ItemOut:
        reader = self._light(topic)
        if reader is None:
            return self._store().item(topic, position)
        found, value = self._once(("item", position))
        return value if found else reader.item(self._aid, topic, self._a, position)

    def progress(self, topic: str) -> tuple[int, int]:
        reader = self._light(topic)
        if reader is None:
            return self._store().progress(topic)
        found, value = self._once(("progress", 0))
        return value if found else reader.progress(self._a)

    def skipped(self, topic: str) -> int:
        reader = self._light(topic)
        if reader is None:
            return self._store().skipped(topic)
        found, value = self._once(("skipped", 0))
        return value if found else reader.skipped(self._aid, self._a)

    def upcoming(self, topic: str) -> tuple[str, str | None, str] | None:
        # A static pool's (the only kind opened here): no forecast, as the store's.
        return None if self._light(topic) is not None else self._store().upcoming(topic)

    def __getattr__(self, name: str) -> Any:
        # Everything else (record, judged, history...): the store's, once it is open.
        if name.startswith("_"):
            raise AttributeError(name)
        return getattr(self._store(), name)
