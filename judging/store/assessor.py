"""What one assessor sees and does: their topics, their items, their judgments.

Everything here is filtered by the assessor: no query in this module reads
``pool_entry`` (runs, ranks, priorities), ``gold`` or another assessor's
judgments, so nothing the TUI shows can leak them. (On an adaptive pool, a
:class:`relkit.judging.store.adaptive.Picker` reads the runs' ranks to choose the next
document; only the chosen document's position comes back here.)

:meth:`AssessorView.record` is the one write an assessor makes. It returns only
after the transaction has committed, so the caller (the TUI) moves on only with
the judgment on disk. The current judgment is upserted (one row per assessor,
topic and document) and every write appends a row to the history.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, func, select
from sqlmodel import Session, col

from relkit.judging.store.database import Database
from relkit.judging.store.models import (
    Assigned,
    ItemOut,
    JudgmentOut,
    StoreError,
    TopicOut,
)
from relkit.judging.store.recording import Recording, _out
from relkit.judging.store.tables import (
    AssessorRow,
    AssignmentItemRow,
    AssignmentRow,
    DocumentRow,
    JudgmentEventRow,
    JudgmentRow,
    TopicRow,
    stored,
)
from relkit.pooling.pool import natural as _natural

if TYPE_CHECKING:
    from relkit.corpora.types import RelevanceScale
    from relkit.judging.store.adaptive import Picker


class AssessorView(Recording):
    """One assessor's window on the store. Build with ``Store.assessor(name)``."""

    def __init__(self, store: Database, name: str) -> None:
        self.store = store
        self.name = name
        with store.read() as s:
            row = s.execute(select(col(AssessorRow.id))
                            .where(col(AssessorRow.name) == name)).first()
            if row is None:
                known = store.assessors(role="assessor")
                raise StoreError(f"no assessor named {name!r} in this database"
                                 + (f"; the assessors are {', '.join(known)}" if known else
                                    ": run `relkit assign` first"))
            self.assessor_id: int = row[0]
            c = store.collection_row(s)
            self.collection_id: int = stored(c.id)
        self._scale: RelevanceScale | None = None
        self._assigned: dict[str, Assigned] | None = None
        # Adaptive pools: the strategies' state, built on the first adaptive topic.
        self._picker: Picker | None = None
        self._lock = threading.Lock()

    # -- reading -------------------------------------------------------------------
    def scale(self) -> RelevanceScale:
        if self._scale is None:
            self._scale = self.store.scale()
        return self._scale

    def _assignments(self, s: Session) -> dict[str, Assigned]:
        if self._assigned is None:
            # Outer join: an adaptive assignment starts with no items (its quota counts).
            q = (select(col(TopicRow.key), col(TopicRow.id), col(AssignmentRow.id),
                        func.count(col(AssignmentItemRow.id)), col(AssignmentRow.pool_id),
                        col(AssignmentRow.quota), col(AssignmentRow.follows_id))
                 .join(AssignmentRow, col(AssignmentRow.topic_id) == col(TopicRow.id))
                 .outerjoin(AssignmentItemRow,
                            col(AssignmentItemRow.assignment_id) == col(AssignmentRow.id))
                 .where(col(AssignmentRow.assessor_id) == self.assessor_id)
                 .group_by(col(TopicRow.key), col(TopicRow.id), col(AssignmentRow.id),
                           col(AssignmentRow.pool_id),
                           col(AssignmentRow.quota), col(AssignmentRow.follows_id)))
            self._assigned = {k: Assigned(t, a, n if quota is None else quota, pool,
                                           quota is not None, follows)
                              for k, t, a, n, pool, quota, follows in s.execute(q)}
        return self._assigned

    def _topic(self, s: Session, topic: str) -> Assigned:
        try:
            return self._assignments(s)[topic]
        except KeyError:
            raise StoreError(f"topic {topic!r} is not assigned to {self.name!r}") from None

    def topics(self) -> list[TopicOut]:
        """The assessor's topics with their progress and own grade counts."""
        with self.store.read() as s:
            assigned = self._assignments(s)
            done = dict(s.execute(
                select(col(AssignmentItemRow.assignment_id), func.count())
                .join(AssignmentRow, col(AssignmentRow.id) == col(AssignmentItemRow.assignment_id))
                .where(col(AssignmentRow.assessor_id) == self.assessor_id,
                       col(AssignmentItemRow.done).is_(True))
                .group_by(col(AssignmentItemRow.assignment_id))).all())
            counts: dict[int, dict[int, int]] = {}
            aside: dict[tuple[int, str], int] = {}  # (topic, skipped|later): how many
            for tid, status, grade, n in s.execute(
                    select(col(JudgmentRow.topic_id), col(JudgmentRow.status),
                           col(JudgmentRow.grade),
                           func.count())
                    .where(col(JudgmentRow.assessor_id) == self.assessor_id)
                    .group_by(col(JudgmentRow.topic_id), col(JudgmentRow.status),
                              col(JudgmentRow.grade))):
                if status == "judged":
                    counts.setdefault(tid, {})[grade] = n
                else:
                    aside[tid, status] = aside.get((tid, status), 0) + n
            rows = {r.id: r for r in s.execute(
                select(TopicRow).where(col(TopicRow.id).in_(
                    [a.topic_id for a in assigned.values()]))).scalars()}
        out = []
        for key in sorted(assigned, key=_natural):
            a = assigned[key]
            t = rows[a.topic_id]
            out.append(TopicOut(key, t.title, t.description, t.narrative, a.total,
                                done.get(a.assignment_id, 0), counts.get(a.topic_id, {}),
                                aside.get((a.topic_id, "skipped"), 0),
                                aside.get((a.topic_id, "later"), 0)))
        return out

    def progress(self, topic: str) -> tuple[int, int]:
        """(judged, total) items of one topic: one indexed count."""
        with self.store.read() as s:
            a = self._topic(s, topic)
            done = s.execute(select(func.count()).select_from(AssignmentItemRow).where(
                col(AssignmentItemRow.assignment_id) == a.assignment_id,
                col(AssignmentItemRow.done).is_(True))).scalar_one()
            return int(done), a.total

    def _item_query(self, a: Assigned) -> Any:
        return (select(col(AssignmentItemRow.position), col(DocumentRow.key),
                       col(DocumentRow.title),
                       col(DocumentRow.text), col(JudgmentRow.grade), col(JudgmentRow.status),
                       col(JudgmentRow.note), col(JudgmentRow.flagged), col(JudgmentRow.version))
                .join(DocumentRow, col(DocumentRow.id) == col(AssignmentItemRow.document_id))
                .outerjoin(JudgmentRow, and_(col(JudgmentRow.assessor_id) == self.assessor_id,
                                             col(JudgmentRow.topic_id) == a.topic_id,
                                             col(JudgmentRow.document_id) == col(DocumentRow.id)))
                .where(col(AssignmentItemRow.assignment_id) == a.assignment_id))

    @staticmethod
    def _item(topic: str, total: int, row: Any) -> ItemOut:
        pos, key, title, text, grade, status, note, flagged, version = row
        return ItemOut(topic, key, pos, total, title, text or "", grade, status, note or "",
                       bool(flagged), version or 0)

    def item(self, topic: str, position: int) -> ItemOut:
        """The item at ``position`` (1-based) of the topic's presentation order."""
        with self.store.read() as s:
            a = self._topic(s, topic)
            row = s.execute(self._item_query(a)
                            .where(col(AssignmentItemRow.position) == position)).first()
            if row is None:
                raise StoreError(f"topic {topic!r} has no item {position} (1..{a.total})")
            return self._item(topic, a.total, row)

    def items(self, topic: str) -> list[ItemOut]:
        """Every item of the topic, in presentation order."""
        with self.store.read() as s:
            a = self._topic(s, topic)
            rows = s.execute(self._item_query(a).order_by(col(AssignmentItemRow.position))).all()
            return [self._item(topic, a.total, r) for r in rows]

    def judged(self, topic: str) -> list[ItemOut]:
        """The topic's items this assessor has judged, skipped or put off, in presentation
        order, *without their text* (``text`` is empty): the revise list's rows, read
        without carrying every document's text (thousands of documents on a big topic)."""
        with self.store.read() as s:
            a = self._topic(s, topic)
            q = (select(col(AssignmentItemRow.position), col(DocumentRow.key),
                        col(DocumentRow.title),
                        col(JudgmentRow.grade), col(JudgmentRow.status), col(JudgmentRow.note),
                        col(JudgmentRow.flagged), col(JudgmentRow.version))
                 .join(DocumentRow, col(DocumentRow.id) == col(AssignmentItemRow.document_id))
                 .join(JudgmentRow, and_(col(JudgmentRow.assessor_id) == self.assessor_id,
                                         col(JudgmentRow.topic_id) == a.topic_id,
                                         col(JudgmentRow.document_id) == col(DocumentRow.id)))
                 .where(col(AssignmentItemRow.assignment_id) == a.assignment_id)
                 .order_by(col(AssignmentItemRow.position)))
            return [self._item(topic, a.total, (pos, key, title, "", grade, status, note,
                                                flagged, version))
                    for pos, key, title, grade, status, note, flagged, version in s.execute(q)]

    def next_item(self, topic: str, after: int = 0) -> ItemOut | None:
        """The next item to judge after ``after``; ``None`` when there is none left.

        The queue: items never touched, from ``after`` on and wrapping round;
        then the items marked *judge later*, in the order they were put off (so
        "later" moves an item to the end of the topic, also across a restart);
        never the *skipped* ones: a skip sets an item aside for good (its reason
        is the judgment's note), and the revise list is the way back to it.
        On an adaptive pool the strategy's next pick comes first, whatever
        ``after`` is, until the topic's budget is picked (:mod:`relkit.judging.store.adaptive`);
        two calls with no judgment in between return the same item.
        """
        with self.store.read() as s:
            a = self._topic(s, topic)
        if a.adaptive:
            pos = self._adaptive().next_position(a, topic)
            if pos is not None:
                return self.item(topic, pos)
        with self.store.read() as s:
            # An item not done has no judgment (untouched) or a skipped/later one: the
            # index on (assignment, done, position) walks the not-done items in order
            # and the unique judgment index answers "untouched?" for each.
            mark = and_(col(JudgmentRow.assessor_id) == self.assessor_id,
                        col(JudgmentRow.topic_id) == a.topic_id,
                        col(JudgmentRow.document_id) == col(AssignmentItemRow.document_id))
            fresh = (select(col(AssignmentItemRow.position))
                     .outerjoin(JudgmentRow, mark)
                     .where(col(AssignmentItemRow.assignment_id) == a.assignment_id,
                            col(AssignmentItemRow.done).is_(False),
                            col(JudgmentRow.id).is_(None))
                     .order_by(col(AssignmentItemRow.position)).limit(1))
            pos = s.execute(fresh.where(col(AssignmentItemRow.position) > after)).scalar()
            if pos is None:
                pos = s.execute(fresh).scalar()
            if pos is None:
                pos = s.execute(
                    select(col(AssignmentItemRow.position)).join(JudgmentRow, mark)
                    .where(col(AssignmentItemRow.assignment_id) == a.assignment_id,
                           col(AssignmentItemRow.done).is_(False),
                           col(JudgmentRow.status) == "later")
                    .order_by(col(JudgmentRow.updated_at), col(JudgmentRow.id)).limit(1)).scalar()
            if pos is None:
                return None
            row = s.execute(self._item_query(a).where(col(AssignmentItemRow.position) == pos)).one()
            return self._item(topic, a.total, row)

    def _adaptive(self) -> Picker:
        """The adaptive topics' picker, made on the first (by one thread: the warming
        thread and the screen's may ask at once)."""
        with self._lock:
            if self._picker is None:
                # Imported here: a static pool's view never loads the strategies.
                from relkit.judging.store.adaptive import Picker

                self._picker = Picker(self.store, self.assessor_id, self.name,
                                      self.collection_id)
            return self._picker

    def warm(self, stop: Callable[[], bool] | None = None) -> list[str]:
        """Make each adaptive topic's next pick ahead of the key that opens it
        (:meth:`relkit.judging.store.picker.Picker.warm`: on a ``cal`` pool the
        scikit-learn import, the pool's features and the topic's batch, seconds that
        key would otherwise wait), topic by topic in the list's order, until ``stop()``
        is true (the judging app's: a topic has opened, so that the warming does not
        compete with its keys, or the app has ended). Writes nothing; the topics warmed. For a
        thread of the judging screen, while the assessor looks at the topic list."""
        with self.store.read() as s:
            assigned = self._assignments(s)
        out = []
        for key in sorted(assigned, key=_natural):
            a = assigned[key]
            if stop is not None and stop():
                break
            if a.adaptive and a.follows_id is None:
                self._adaptive().warm(a, key, stop)
                out.append(key)
        return out

    def upcoming(self, topic: str) -> tuple[str, str | None, str] | None:
        """On an adaptive pool, (id, title, text) of the document that follows the
        current pick whatever its grade, when the strategy knows it (``cal``: the rest
        of its batch), for the screen to prepare while this one is read; None on a
        static pool (``next_item`` there is the next item already) or when the next
        pick depends on the grade. A forecast: :meth:`next_item` decides."""
        with self.store.read() as s:
            a = self._topic(s, topic)
        if not a.adaptive or self._picker is None:
            return None
        return self._picker.upcoming(a, topic)

    def skipped(self, topic: str) -> int:
        """How many of the topic's items this assessor has skipped (set aside)."""
        with self.store.read() as s:
            a = self._topic(s, topic)
            return int(s.execute(
                select(func.count()).select_from(AssignmentItemRow)
                .join(JudgmentRow, and_(col(JudgmentRow.assessor_id) == self.assessor_id,
                                        col(JudgmentRow.topic_id) == a.topic_id,
                                        col(JudgmentRow.document_id)
                                        == col(AssignmentItemRow.document_id)))
                .where(col(AssignmentItemRow.assignment_id) == a.assignment_id,
                       col(JudgmentRow.status) == "skipped")).scalar_one())

    def judgments(self, topic: str | None = None) -> list[JudgmentOut]:
        """This assessor's current judgments (of one topic, or all)."""
        q = (select(JudgmentRow, col(TopicRow.key), col(DocumentRow.key))
             .join(TopicRow, col(TopicRow.id) == col(JudgmentRow.topic_id))
             .join(DocumentRow, col(DocumentRow.id) == col(JudgmentRow.document_id))
             .where(col(JudgmentRow.assessor_id) == self.assessor_id))
        if topic is not None:
            q = q.where(col(TopicRow.key) == topic)
        with self.store.read() as s:
            return [_out(j, t, d, self.name)
                    for j, t, d in s.execute(q.order_by(col(JudgmentRow.updated_at),
                                                        col(JudgmentRow.id)))]

    def history(self, topic: str, doc: str) -> list[JudgmentOut]:
        """Every write this assessor made to one judgment, oldest first."""
        q = (select(JudgmentEventRow)
             .join(TopicRow, col(TopicRow.id) == col(JudgmentEventRow.topic_id))
             .join(DocumentRow, col(DocumentRow.id) == col(JudgmentEventRow.document_id))
             .where(col(JudgmentEventRow.assessor_id) == self.assessor_id,
                    col(TopicRow.key) == topic,
                    col(DocumentRow.key) == doc)
             .order_by(col(JudgmentEventRow.id)))
        with self.store.read() as s:
            return [JudgmentOut(topic, doc, self.name, e.grade, e.status, e.note, e.flagged,
                                e.dwell_ms, e.version, e.source, e.recorded_at, e.recorded_at)
                    for e in s.execute(q).scalars()]
