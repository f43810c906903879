"""The next document of an adaptive pool's assignment: the strategy's pick, replayed
from the judgment history (the rules are in :mod:`relkit.judging.store.adaptive`'s
module doc; split from it, which re-exports :class:`Picker` and :func:`candidates`).

Speed: each assessor's view keeps one :class:`Picker`, which keeps one
:class:`_Driver` per topic (the strategy's state and the last history id it has
seen); a next-item call reads only history rows newer than that (one indexed range
query, usually empty), so the full replay happens once per topic and session.
``bench/store_bench.py`` times both.

Threads: the judging screen calls a picker from its own thread, its saving thread and
the one that warms the topics up (:meth:`Picker.warm`); a lock makes their calls take
turns, as the strategies' state is not made for two at once.
"""

from __future__ import annotations

import functools
import json
import random
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Concatenate, ParamSpec, TypeVar

from sqlalchemy import and_, func, insert
from sqlalchemy import select as _select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from relkit.judging.store.adaptivedef import Definition
from relkit.judging.store.connection import WAL
from relkit.judging.store.database import Database
from relkit.judging.store.models import Assigned, StoreError
from relkit.judging.store.tables import (
    AssignmentItemRow,
    AssignmentRow,
    DocumentRow,
    JudgmentEventRow,
    PoolEntryRow,
    PoolRow,
)
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.candidates import Candidates

# SQLModel declares columns as their Python types (str, int | None), which no
# overload of sqlalchemy's select() accepts in a chained query; untyped here.
select: Any = _select


@dataclass
class _Driver:
    """One topic's strategy state in one view, and how far into the history it is."""

    pool: AdaptivePool
    docs: frozenset[str]
    last_id: int = 0
    seen: set[str] = field(default_factory=set)


P = ParamSpec("P")
R = TypeVar("R")


def _one_at_a_time(fn: Callable[Concatenate[Picker, P], R]
                   ) -> Callable[Concatenate[Picker, P], R]:
    """The method runs under the picker's lock (see the module doc)."""
    @functools.wraps(fn)
    def run(self: Picker, *args: P.args, **kwargs: P.kwargs) -> R:
        with self._lock:
            return fn(self, *args, **kwargs)
    return run


def candidates(s: Session, pool_id: int, topic_id: int, topic: str) -> Candidates:
    """The runs' ranked lists of one topic, rebuilt from the pool's provenance."""
    lists: dict[str, list[tuple[int, str]]] = {}
    for doc, prov in s.execute(
            select(DocumentRow.key, PoolEntryRow.provenance_json)
            .join(DocumentRow, DocumentRow.id == PoolEntryRow.document_id)
            .where(PoolEntryRow.pool_id == pool_id, PoolEntryRow.topic_id == topic_id)):
        for run, rank in json.loads(prov):
            lists.setdefault(run, []).append((rank, doc))
    ranked = {r: [d for _, d in sorted(v)] for r, v in sorted(lists.items())}
    return Candidates({topic: ranked}, {topic: {}})


class Picker:
    """The documents the strategies pick for one assessor, topic by topic.

    An :class:`relkit.judging.store.assessor.AssessorView` makes one for its adaptive
    topics; it keeps each topic's strategy state (:class:`_Driver`) between calls.
    """

    def __init__(self, db: Database, assessor_id: int, assessor: str,
                 collection_id: int) -> None:
        self.db = db
        self.assessor_id = assessor_id
        self.assessor = assessor
        self.collection_id = collection_id
        self._drivers: dict[str, _Driver] = {}
        self._texts: dict[int, Any] = {}
        self._lock = threading.RLock()

    def _with_text(self, s: Session, prow: PoolRow, cands: Candidates) -> Candidates:
        """``cands`` with the pool's text (read once per pool and view: the cal
        strategy's features are fitted on it once)."""
        from relkit.judging.store.caltext import pool_texts

        assert prow.id is not None
        text = self._texts.get(prow.id)
        if text is None:
            text = self._texts[prow.id] = pool_texts(s, prow.id, prow.collection_id)
        return Candidates(cands.lists, cands.scores, cands.depth, text=text)

    def _driver(self, s: Session, a: Assigned, topic: str) -> _Driver:
        drv = self._drivers.get(topic)
        if drv is None:
            prow = s.get(PoolRow, a.pool_id)
            assert prow is not None
            d = Definition.of_pool(prow)
            if d is None:
                raise StoreError(f"pool {prow.name!r} is not adaptive")
            cands = candidates(s, a.pool_id, a.topic_id, topic)
            if d.strategy == "cal":   # it reads the text: the pool's, from the database
                cands = self._with_text(s, prow, cands)
            pool = AdaptivePool(d.strategy, cands, d.params, seed=d.seed, level=d.level,
                                max_grade=d.max_grade, stop=d.stop)
            drv = _Driver(pool, frozenset(cands.provenance(topic)))
            self._drivers[topic] = drv
        # Only judgments newer than the last one seen: usually none (an index probe).
        rows = s.execute(
            select(JudgmentEventRow.id, DocumentRow.key, JudgmentEventRow.status,
                   JudgmentEventRow.grade)
            .join(DocumentRow, DocumentRow.id == JudgmentEventRow.document_id)
            .where(JudgmentEventRow.assessor_id == self.assessor_id,
                   JudgmentEventRow.topic_id == a.topic_id,
                   col(JudgmentEventRow.id) > drv.last_id)
            .order_by(JudgmentEventRow.id)).all()
        for hid, doc, status, grade in rows:
            drv.last_id = hid
            if doc in drv.seen or doc not in drv.docs:
                continue  # a revision (first writes steer), or an imported non-candidate
            drv.seen.add(doc)
            drv.pool.next(topic)  # as when it was shown: keeps the generators in step
            if status == "judged":
                drv.pool.record(topic, doc, grade)
            else:
                drv.pool.skip(topic, doc)
        return drv

    @_one_at_a_time
    def stopped(self, a: Assigned, topic: str) -> tuple[str, int] | None:
        """The stopping rule's verdict on a primary assignment: (why, judgments) or None."""
        if a.follows_id is not None:
            return None  # overlap assessors follow the primary's sequence
        with self.db.read() as s:
            pool = self._driver(s, a, topic).pool
            why = pool.stopped(topic)
            return None if why is None else (why, pool.stopped_after(topic) or 0)

    @_one_at_a_time
    def standing(self, a: Assigned, topic: str) -> Any:
        """The topic's :class:`relkit.pooling.adaptive.Standing` after the primary's
        judgments so far (replayed; nothing written)."""
        with self.db.read() as s:
            return self._driver(s, a, topic).pool.standing(topic)

    @_one_at_a_time
    def upcoming(self, a: Assigned, topic: str) -> tuple[str, str | None, str] | None:
        """(id, title, text) of the document the strategy offers after its current pick
        whatever that one's grade, when known (:meth:`AdaptivePool.upcoming`): the judging
        screen prepares it while the assessor reads. Reads only; None for an overlap
        assessor or when the next pick depends on the grade."""
        if a.follows_id is not None:
            return None
        with self.db.read() as s:
            pool = self._driver(s, a, topic).pool
            doc = pool.upcoming(topic)
            if doc is None:
                return None
            row = s.execute(select(DocumentRow.title, DocumentRow.text).where(
                DocumentRow.collection_id == self.collection_id,
                DocumentRow.key == doc)).first()
        return None if row is None else (doc, row[0], row[1] or "")

    def _followed(self, s: Session, a: Assigned, n: int, topic: str) -> str | None:
        """The overlap assessor's (n+1)-th document: a sampled position of the primary's."""
        own = s.get(AssignmentRow, a.assignment_id)
        primary = s.get(AssignmentRow, a.follows_id)
        assert own is not None and primary is not None and primary.quota is not None
        rng = random.Random(f"follow:{own.seed}:{self.assessor}:{topic}")
        wanted = sorted(rng.sample(range(1, primary.quota + 1), min(a.total, primary.quota)))
        if n >= len(wanted):
            return None
        return s.execute(select(DocumentRow.key)
                         .join(AssignmentItemRow,
                               AssignmentItemRow.document_id == DocumentRow.id)
                         .where(AssignmentItemRow.assignment_id == primary.id,
                                AssignmentItemRow.position == wanted[n])).scalar()

    @_one_at_a_time
    def warm(self, a: Assigned, topic: str, stop: Callable[[], bool] | None = None) -> None:
        """Make the topic's next pick now, before a key asks for it: its strategy state
        built (cal: the pool's features fitted, the first time, and scikit-learn
        imported) and the pick made (cal: the batch trained, a topic's first batch too;
        the training of the batch after it started, as :meth:`next_position` does).
        Writes nothing: the pick is a pure function of the committed history, so the
        key that shows it (:meth:`next_position`) finds the same document made here or
        made then, only sooner. Nothing for an overlap assessor or a quota picked."""
        if a.follows_id is not None:
            return
        with self.db.read() as s:
            n = s.execute(select(func.count()).select_from(AssignmentItemRow).where(
                AssignmentItemRow.assignment_id == a.assignment_id)).scalar_one()
            if n >= a.total:
                return
            pool = self._driver(s, a, topic).pool
            # A topic opened meanwhile waits for this lock: do not train this one's batch
            # (the features built above are the pool's, which that topic needs too).
            if stop is not None and stop():
                return
            if pool.next(topic) is not None and not (stop is not None and stop()):
                pool.ahead(topic)

    @_one_at_a_time
    def next_position(self, a: Assigned, topic: str) -> int | None:
        """Position of the document the strategy offers next, its item created if new.

        None when the assignment has picked its quota, or (overlap assessor) the
        primary has not been shown the next sampled document yet. Idempotent: with
        no judgment in between, two calls give the same position.
        """
        for _ in range(2):  # a second try only if another session inserted concurrently
            with self.db.read() as s:
                n = s.execute(select(func.count()).select_from(AssignmentItemRow).where(
                    AssignmentItemRow.assignment_id == a.assignment_id)).scalar_one()
                if n >= a.total:
                    return None
                if a.follows_id is None:
                    pool = self._driver(s, a, topic).pool
                    doc = pool.next(topic)
                    pool.ahead(topic)  # cal: the next batch trains while this is read
                else:
                    doc = self._followed(s, a, n, topic)
                if doc is None:
                    return None
                # The document's id and, if it was picked before, its position: one query.
                did, pos = s.execute(
                    select(DocumentRow.id, AssignmentItemRow.position)
                    .outerjoin(AssignmentItemRow, and_(
                        col(AssignmentItemRow.document_id) == col(DocumentRow.id),
                        col(AssignmentItemRow.assignment_id) == a.assignment_id))
                    .where(DocumentRow.collection_id == self.collection_id,
                           DocumentRow.key == doc)).one()
                if pos is not None:
                    return int(pos)  # picked before and not judged yet
            try:
                self._add_item(a.assignment_id, n + 1, did)
                return n + 1
            except IntegrityError:
                continue
        raise StoreError(f"topic {topic!r}: could not add the next document (another "
                         "session keeps adding items to this assignment)")


    def _add_item(self, assignment_id: int, position: int, document_id: int) -> None:
        """Write a picked document's item, committed without waiting for the disk.

        The item is derived (the pick is a pure function of the committed history, so
        a lost one is picked again, at the same position), and its commit is on the
        judging screen's path from a grade key to the next document: SQLite commits it
        with ``synchronous=NORMAL`` (no fsync; the next judgment's ``FULL`` commit
        fsyncs the write-ahead log with this row in it, so an item a judgment refers to
        is on disk with the judgment), PostgreSQL with ``synchronous_commit = off``
        (the same: a later synchronous commit flushes the log up to itself). A process
        killed after this commit keeps the row either way; only an OS crash or a power
        cut can lose it, and then nothing is lost (it is picked again).
        """
        with self.db.writer.connect() as conn:
            lite = conn.dialect.name == "sqlite"
            # NORMAL is safe only in WAL mode (in rollback-journal mode a power cut could
            # corrupt the file): a connection that did not get WAL commits it fully.
            fast = lite and bool(conn.connection.info.get(WAL, False))
            raw: Any = conn.connection.dbapi_connection
            try:
                if fast:   # only outside a transaction: before the BEGIN, back after it
                    raw.execute("PRAGMA synchronous = NORMAL")
                with conn.begin():
                    if not lite:
                        conn.exec_driver_sql("SET LOCAL synchronous_commit = off")
                    conn.execute(_ADD_ITEM, dict(assignment_id=assignment_id,
                                                 position=position, document_id=document_id,
                                                 done=False))
            finally:
                if fast:
                    try:
                        raw.execute("PRAGMA synchronous = FULL")
                    except BaseException:
                        # Never back in the pool at NORMAL: a later judgment would
                        # commit on it without an fsync.
                        conn.invalidate()
                        raise


_ADD_ITEM = insert(AssignmentItemRow)  # values as parameters (Core: no unit of work)
