"""Preference judgments (issue 38): one assessor's answers on pairs of a topic's documents.

A pair is two documents of the assessor's assignment to a topic, shown side by side;
the answer says which side is better (``left``/``right``), ``equal``, or ``neither``
relevant. :meth:`PreferenceView.record` is the one write: the current answer is upserted
(one row per assessor, topic and unordered pair) and every write appends a row to
``preference_history`` in the same transaction, which has committed when it returns (so
the screen moves on only with the answer on disk). :meth:`PreferenceView.undo` writes a
new version with no answer (the pair is asked again); history keeps both.

As :mod:`.assessor`, nothing here reads ``pool_entry`` (runs, ranks) or another
assessor's rows.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from sqlalchemy import insert, select, update
from sqlalchemy.exc import IntegrityError
from sqlalchemy.orm import aliased
from sqlmodel import Session, col

from relkit.judging.store.assessor import AssessorView
from relkit.judging.store.database import Database, integrity_error, now
from relkit.judging.store.models import StoreError
from relkit.judging.store.tables import (
    ANSWERS,
    AssessorRow,
    AssignmentItemRow,
    AssignmentRow,
    DocumentRow,
    PreferenceEventRow,
    PreferenceRow,
    TopicRow,
    stored,
)
from relkit.pooling.pool import natural as _natural


@dataclass(frozen=True)
class PreferenceOut:
    """A current answer (``answer`` None: undone, to be asked again)."""

    topic: str
    left: str
    right: str
    assessor: str
    answer: str | None
    note: str
    flagged: bool
    version: int
    source: str
    updated_at: datetime


class PreferenceView:
    """One assessor's preferences. Build with ``PreferenceView(store, name)``."""

    def __init__(self, store: Database, name: str) -> None:
        self.view = AssessorView(store, name)  # who, the collection, the assignments
        self.store = store
        self.name = name
        # Read once per topic (an assignment's topic, seed and documents do not change
        # while judging), so a save is three statements.
        self._topics: dict[str, tuple[int, int, int | None]] = {}
        self._given: dict[str, dict[str, int]] = {}  # topic -> its documents' ids, by key

    def _topic_ids(self, s: Session, topic: str) -> tuple[int, int, int | None]:
        """(topic id, assignment id, assignment seed) of an assigned topic."""
        if topic not in self._topics:
            a = self.view._topic(s, topic)
            seed = s.execute(select(col(AssignmentRow.seed))
                             .where(col(AssignmentRow.id) == a.assignment_id)).scalar()
            self._topics[topic] = (a.topic_id, a.assignment_id, seed)
        return self._topics[topic]

    def _document_ids(self, s: Session, topic: str, assignment: int) -> dict[str, int]:
        if topic not in self._given:
            self._given[topic] = dict(s.execute(
                select(col(DocumentRow.key), col(DocumentRow.id))
                .join(AssignmentItemRow, col(AssignmentItemRow.document_id) == col(DocumentRow.id))
                .where(col(AssignmentItemRow.assignment_id) == assignment)).all())
        return self._given[topic]

    def seed(self, topic: str) -> int:
        """The assignment's seed (0 without one): the order and sides of the pairs."""
        with self.store.read() as s:
            return int(self._topic_ids(s, topic)[2] or 0)

    def documents(self, topic: str) -> list[str]:
        """The topic's documents given to this assessor (its pairs' pool), in their order."""
        with self.store.read() as s:
            _, assignment, _ = self._topic_ids(s, topic)
            return list(s.execute(
                select(col(DocumentRow.key))
                .join(AssignmentItemRow, col(AssignmentItemRow.document_id) == col(DocumentRow.id))
                .where(col(AssignmentItemRow.assignment_id) == assignment)
                .order_by(col(AssignmentItemRow.position))).scalars())

    def document(self, key: str) -> tuple[str | None, str]:
        """(title, text) of one document."""
        with self.store.read() as s:
            row = s.execute(select(col(DocumentRow.title), col(DocumentRow.text)).where(
                col(DocumentRow.collection_id) == self.view.collection_id,
                col(DocumentRow.key) == key)).first()
        if row is None:
            raise StoreError(f"document {key!r} is not in the collection")
        return row[0], row[1] or ""

    def answers(self, topic: str | None = None) -> list[PreferenceOut]:
        """This assessor's current preferences (undone ones included, ``answer`` None)."""
        return _answers(self.store, assessor_id=self.view.assessor_id, topic=topic,
                        undone=True)

    def progress(self, topic: str) -> tuple[int, int]:
        """(pairs answered, pairs in the topic's pool: n(n-1)/2)."""
        n = len(self.documents(topic))
        answered = sum(1 for p in self.answers(topic) if p.answer is not None)
        return answered, n * (n - 1) // 2

    # -- writing -------------------------------------------------------------------
    def record(self, topic: str, left: str, right: str, answer: str | None, *,
               note: str = "", flagged: bool = False, source: str = "tui",
               retry: bool = False) -> PreferenceOut:
        """Save one answer; returns after the commit.

        ``answer`` None undoes the pair's answer (a new version, history kept).
        ``retry``: an earlier try of the same save failed without an answer; if it went
        through (the current row holds exactly this save), nothing is written again.
        """
        if answer is not None and answer not in ANSWERS:
            raise StoreError(f"answer {answer!r} is not one of {', '.join(ANSWERS)}")
        if left == right:
            raise StoreError(f"a pair needs two different documents; got {left!r} twice "
                             f"(topic {topic!r})")
        stamp = now()
        try:
            with self.store.write() as s, s.begin():
                tid, assignment, _ = self._topic_ids(s, topic)
                given_ids = self._document_ids(s, topic, assignment)
                if left in given_ids and right in given_ids:
                    ids = {left: given_ids[left], right: given_ids[right]}
                else:
                    ids = self._refuse(s, topic, assignment, left, right)
                lid, rid = ids[left], ids[right]
                low, high = min(lid, rid), max(lid, rid)
                row = s.execute(select(PreferenceRow).where(
                    col(PreferenceRow.assessor_id) == self.view.assessor_id,
                    col(PreferenceRow.topic_id) == tid, col(PreferenceRow.low_id) == low,
                    col(PreferenceRow.high_id) == high)).scalars().first()
                if retry and row is not None and (
                        row.left_id, row.right_id, row.answer, row.note, row.flagged,
                        row.source) == (lid, rid, answer, note, flagged, source):
                    return PreferenceOut(topic, left, right, self.name, answer, note, flagged,
                                         row.version, source, row.updated_at)
                values: dict[str, Any] = dict(left_id=lid, right_id=rid, answer=answer,
                                              note=note, flagged=flagged, source=source,
                                              updated_at=stamp)
                if row is None:
                    version = 1
                    pid = s.execute(insert(PreferenceRow).values(
                        collection_id=self.view.collection_id,
                        assessor_id=self.view.assessor_id, topic_id=tid, low_id=low,
                        high_id=high, version=1, created_at=stamp, **values)
                        .returning(col(PreferenceRow.id))).scalar_one()
                else:
                    version = row.version + 1
                    pid = stored(row.id)
                    s.execute(update(PreferenceRow).where(col(PreferenceRow.id) == pid)
                              .values(version=version, **values))
                s.execute(insert(PreferenceEventRow).values(
                    preference_id=pid, version=version, assessor_id=self.view.assessor_id,
                    topic_id=tid, left_id=lid, right_id=rid, answer=answer, note=note,
                    flagged=flagged, source=source, recorded_at=stamp))
        except IntegrityError as exc:
            raise integrity_error(exc, f"preference of {topic!r}/{left!r}/{right!r}") from None
        return PreferenceOut(topic, left, right, self.name, answer, note, flagged, version,
                             source, stamp)

    def _refuse(self, s: Session, topic: str, assignment: int, left: str,
                right: str) -> dict[str, int]:
        """Why a pair outside the topic's documents is refused (one line), or, for
        documents given since the ids were read, their ids."""
        ids = dict(s.execute(select(col(DocumentRow.key), col(DocumentRow.id)).where(
            col(DocumentRow.collection_id) == self.view.collection_id,
            col(DocumentRow.key).in_([left, right]))).all())
        for key in (left, right):
            if key not in ids:
                raise StoreError(f"document {key!r} is not in the collection")
        given = set(s.execute(select(col(AssignmentItemRow.document_id)).where(
            col(AssignmentItemRow.assignment_id) == assignment,
            col(AssignmentItemRow.document_id).in_(ids.values()))).scalars())
        for key in (left, right):
            if ids[key] not in given:
                raise StoreError(f"document {key!r} of topic {topic!r} is not "
                                 f"assigned to {self.name!r}")
        self._given.pop(topic, None)  # given since: read again next time
        return ids

    def undo(self, topic: str, left: str, right: str) -> PreferenceOut:
        """Take the pair's answer back (asked again); the history keeps it."""
        return self.record(topic, left, right, None)

    def history(self, topic: str) -> list[PreferenceOut]:
        """Every write of this assessor's preferences of one topic, oldest first."""
        lt, rt = aliased(DocumentRow), aliased(DocumentRow)
        with self.store.read() as s:
            tid = self._topic_ids(s, topic)[0]
            rows = s.execute(
                select(PreferenceEventRow, col(lt.key), col(rt.key))
                .join(lt, col(lt.id) == col(PreferenceEventRow.left_id))
                .join(rt, col(rt.id) == col(PreferenceEventRow.right_id))
                .where(col(PreferenceEventRow.assessor_id) == self.view.assessor_id,
                       col(PreferenceEventRow.topic_id) == tid)
                .order_by(col(PreferenceEventRow.id))).all()
        return [PreferenceOut(topic, left, right, self.name, e.answer, e.note, e.flagged,
                              e.version, e.source, e.recorded_at) for e, left, right in rows]


def _answers(store: Database, *, assessor_id: int | None = None, topic: str | None = None,
             undone: bool = False) -> list[PreferenceOut]:
    lt, rt = aliased(DocumentRow), aliased(DocumentRow)
    q = (select(PreferenceRow, col(TopicRow.key), col(lt.key), col(rt.key),
                col(AssessorRow.name))
         .join(TopicRow, col(TopicRow.id) == col(PreferenceRow.topic_id))
         .join(lt, col(lt.id) == col(PreferenceRow.left_id))
         .join(rt, col(rt.id) == col(PreferenceRow.right_id))
         .join(AssessorRow, col(AssessorRow.id) == col(PreferenceRow.assessor_id)))
    if assessor_id is not None:
        q = q.where(col(PreferenceRow.assessor_id) == assessor_id)
    if topic is not None:
        q = q.where(col(TopicRow.key) == topic)
    if not undone:
        q = q.where(col(PreferenceRow.answer).is_not(None))
    with store.read() as s:
        rows = s.execute(q).all()
    out = [PreferenceOut(t, left, right, who, p.answer, p.note, p.flagged, p.version,
                         p.source, p.updated_at) for p, t, left, right, who in rows]
    out.sort(key=lambda p: (_natural(p.topic), p.assessor, _natural(p.left),
                            _natural(p.right)))
    return out


def current_answers(store: Database) -> list[PreferenceOut]:
    """Every assessor's current answers (undone pairs left out): what the export writes."""
    return _answers(store)


def topic_progress(store: Database) -> dict[tuple[str, str], tuple[int, int]]:
    """(assessor, topic) -> (pairs answered, pairs in the pool), for every assignment."""
    with store.read() as s:
        sizes = s.execute(
            select(col(AssessorRow.name), col(TopicRow.key), col(AssignmentRow.id))
            .join(AssignmentRow, col(AssignmentRow.assessor_id) == col(AssessorRow.id))
            .join(TopicRow, col(TopicRow.id) == col(AssignmentRow.topic_id))).all()
        counts: dict[int, int] = {}
        for (aid,) in s.execute(select(col(AssignmentItemRow.assignment_id))):
            counts[aid] = counts.get(aid, 0) + 1
    answered: dict[tuple[str, str], int] = {}
    for p in current_answers(store):
        answered[p.assessor, p.topic] = answered.get((p.assessor, p.topic), 0) + 1
    return {(who, t): (answered.get((who, t), 0), counts.get(aid, 0) * (counts.get(aid, 0) - 1)
                       // 2) for who, t, aid in sizes}


__all__ = ["PreferenceOut", "PreferenceView", "current_answers", "topic_progress"]


ANSWERS_HEADER = "topic_id\tleft\tright\tanswer\tassessor"


def write_answers(store: Database, fp: Any) -> int:
    """The current answers as an answers file (TSV, :data:`ANSWERS_HEADER`); how many.

    One line per assessor and pair, the documents on the sides they were shown on;
    undone pairs, notes, flags and history are not written (``relkit export jsonl``
    has them: :mod:`relkit.judging.store.preference_dump`).
    An id with a tab or a line break cannot be written in this format: refused, in one
    line, before anything is written.
    """
    rows = current_answers(store)
    for p in rows:
        for what, value in (("topic", p.topic), ("document", p.left), ("document", p.right),
                            ("assessor", p.assessor)):
            if any(c in value for c in "\t\r\n"):
                raise StoreError(f"{what} id {value!r} holds a tab or a line break: it cannot "
                                 "be written to a tab-separated answers file")
    fp.write(ANSWERS_HEADER + "\n")
    for p in rows:
        fp.write(f"{p.topic}\t{p.left}\t{p.right}\t{p.answer}\t{p.assessor}\n")
    return len(rows)
