"""``relkit judge``'s first screen before the store is imported.

Importing the store (SQLAlchemy, SQLModel, the table classes) costs most of a second,
and the topic list does not need it. On a SQLite database that the store would open
as it is, :func:`first_screen` reads what the topic screen shows with
:class:`relkit.judging.store.light.LightReader` (``sqlite3``, read-only) and makes the
same checks the command makes on the assessor; the app draws that, and a
:class:`StoreLoader` opens the store in a thread once the first frame is out, while
the assessor reads the list. A topic opened before the store is ready shows its first
document at once, read the same way (:mod:`relkit.judging.tui.lightview`; a save then
waits for the store); one the light reader cannot read (an adaptive pool's, the pairs
mode's) waits for the store with a note on screen.

Whatever the light reader cannot settle (PostgreSQL, an older schema, a missing table,
an unknown or automatic assessor, ``--lead``...) makes :func:`first_screen` return
``None``: the command then takes the store's path, unchanged, which says what is wrong.
"""

from __future__ import annotations

import os
import sqlite3
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relkit.corpora.types import RelevanceScale
from relkit.judging.store.light import LightReader
from relkit.judging.store.outputs import TopicOut
from relkit.metrics.core.errors import RelkitError

if TYPE_CHECKING:
    from relkit.judging.store.assessor import AssessorView
    from relkit.judging.store.assign import Store

# relkit.judging.store.access.identity.ENV_USER (that module imports SQLAlchemy); a test
# checks they are the same.
ENV_USER = "RELKIT_USER"


@dataclass(frozen=True)
class FirstScreen:
    """What the topic screen shows first: whose it is, the scale, the topics."""

    assessor: str
    scale: RelevanceScale
    topics: list[TopicOut]
    db: str  # the SQLite file, to read the topics again while the store is loading


def first_screen(db: str | None, assessor: str | None) -> FirstScreen | None:
    """The first screen of ``relkit judge --db DB [--assessor A]`` without the store, or
    ``None`` when the command must take the store's path (see the module doc)."""
    reader = LightReader.open(db)
    if reader is None:
        return None
    try:
        name = _assessor(reader, assessor)
        if name is None:
            return None
        aid = reader.assessor_id(name)
        if aid is None:
            return None
        return FirstScreen(name, reader.scale(), reader.topics(aid), reader.path)
    except (sqlite3.Error, RelkitError):  # e.g. a scale the store would refuse too
        return None
    finally:
        reader.close()


def _assessor(reader: LightReader, assessor: str | None) -> str | None:
    """Who judges: the command's checks (tui/cli.py's ``judge``) where they pass; ``None``
    wherever the command would refuse or open another screen (the store's path says so)."""
    me = os.environ.get(ENV_USER) or None  # `who` on SQLite
    role = None
    if me is not None:
        person = reader.person(me)
        if person is None or person[1] != "human":
            return None
        role = person[0]
        if role == "lead" and assessor is None:
            return None  # a lead's login opens the lead's screen
        if role == "assessor" and assessor is None:
            assessor = me
        if assessor is not None and assessor != me:
            return None
    if assessor is None:
        people = reader.assessors(role="assessor", kind="human")
        return people[0] if len(people) == 1 else None
    if (assessor not in reader.assessors() or assessor in reader.assessors(kind="automatic")
            or assessor in reader.assessors(role="lead")):
        return None
    return assessor


class StoreLoader:
    """The store and the assessor's view, opened by ``open_store`` in a thread."""

    def __init__(self, first: FirstScreen,
                 open_store: Callable[[], tuple[Store, AssessorView]]) -> None:
        self.first = first
        self._open = open_store
        self._thread: threading.Thread | None = None
        self._lock = threading.Lock()
        self._done = threading.Event()
        self._result: tuple[Store, AssessorView] | None = None
        self.error: BaseException | None = None

    def start(self) -> None:
        """Start opening the store (once)."""
        with self._lock:
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="relkit-store",
                                                daemon=True)
                self._thread.start()

    def _run(self) -> None:
        try:
            self._result = self._open()
        except BaseException as exc:  # given to whoever waits (the CLI says it)
            self.error = exc
        finally:
            self._done.set()

    @property
    def ready(self) -> bool:
        return self._done.is_set()

    def wait(self, timeout: float) -> bool:
        """Whether the store has been opened (or failed to) within ``timeout`` seconds."""
        return self._done.wait(timeout)

    def get(self) -> tuple[Store, AssessorView]:
        """The store and the view; waits for them (starting the thread if need be)."""
        self.start()
        self._done.wait()
        if self._result is None:
            assert self.error is not None
            raise self.error
        return self._result


class FirstView:
    """The assessor's view as the topic screen reads it: the light reader's topics first,
    the store's once it is open."""

    def __init__(self, loader: StoreLoader) -> None:
        self.loader = loader
        self.name = loader.first.assessor
        self._first: list[TopicOut] | None = loader.first.topics

    def scale(self) -> RelevanceScale:
        return self.loader.first.scale

    def topics(self) -> list[TopicOut]:
        first, self._first = self._first, None
        if first is not None:
            return first  # read before the app started
        if self.loader.ready and self.loader.error is None:
            return self.loader.get()[1].topics()
        again = first_screen(self.loader.first.db, self.name)  # back from a help screen
        return again.topics if again is not None else self.loader.get()[1].topics()
