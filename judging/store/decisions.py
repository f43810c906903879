"""A lead's final grades: written with their history, read back with it.

``adjudication`` holds each pair's current decision; ``adjudication_history`` (migration
0007, append-only like ``judgment_history``) gets one row per change: who, when, the
grade replaced, the new grade and the reason. The current decision is the pair's latest
history row. Giving a pair the decision it holds already changes nothing and records
nothing.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.exc import IntegrityError
from sqlmodel import col

from relkit.judging.store.database import integrity_error, now
from relkit.judging.store.models import ChangedMeanwhile, StoreError
from relkit.judging.store.tables import (
    AdjudicationEventRow,
    AdjudicationRow,
    AssessorRow,
    DocumentRow,
    TopicRow,
    stored,
)

if TYPE_CHECKING:
    from sqlmodel import Session

    from relkit.judging.store.assign import Store


@dataclass(frozen=True)
class DecisionOut:
    """One change of a pair's final grade, as its history row recorded it."""

    lead: str
    old_grade: int | None   # None: the pair's first decision (or one found by 0007)
    grade: int
    note: str               # the reason given with this change
    recorded_at: datetime


@dataclass(frozen=True)
class Adjudicated:
    """What :func:`adjudicate` did: true when it wrote a change.

    ``old_grade``/``old_note``: the decision the pair held before the call (``None``/
    ``""``: undecided); ``grade``/``note``: the one it holds now.
    """

    changed: bool
    old_grade: int | None
    old_note: str
    grade: int
    note: str

    def __bool__(self) -> bool:
        return self.changed


class ReasonRequired(StoreError):
    """A decided pair's grade would change without a reason for the change (nothing was
    written); ``old_grade`` is the grade it keeps."""

    def __init__(self, message: str, old_grade: int) -> None:
        super().__init__(message)
        self.old_grade = old_grade


def adjudicate(store: Store, lead: str, topic: str, doc: str, grade: int,
               note: str | None = None,
               shown: tuple[int | None, str] | None = None) -> Adjudicated:
    """Record the lead's final grade and reason for a pair, with its history row.

    Returns an :class:`Adjudicated`, false when the pair holds this grade and reason
    already: nothing is written (a retry after a commit whose answer was lost, the same
    key in two tabs). Otherwise the decision replaces the current one and a history row
    records the change (the old grade, the new, the reason, the lead and the time).

    ``lead`` is registered as a lead if unknown; an assessor's name is refused.
    ``note`` is the lead's reason; ``None`` keeps the pair's current one (``""`` on an
    undecided pair). A decided pair's grade changes only with a reason for the change
    (``note`` neither ``None`` nor blank), as the lead's screen asks for one: without,
    nothing is written and :class:`ReasonRequired` says so. ``shown``: the (final
    grade, reason) the caller showed (``(None, "")``: undecided); if the pair's differs
    (another session decided it meanwhile) nothing is written and
    :class:`ChangedMeanwhile` says what it holds, so a screen never replaces a decision
    its lead did not see.
    """
    scale = store.scale()
    if grade not in scale:
        raise StoreError(f"grade {grade} is not on the {scale.name!r} scale "
                         f"(expected one of {', '.join(map(str, scale.values))})")
    try:
        with store.write() as s, s.begin():
            c = store.collection_row(s)
            store.ensure_assessors(s, [lead], role="lead")
            tid = store.topic_ids(s, c.id).get(topic)
            did = s.execute(select(col(DocumentRow.id))
                            .where(col(DocumentRow.collection_id) == c.id,
                                   col(DocumentRow.key) == doc)).scalar()
            if tid is None or did is None:
                raise StoreError(f"adjudicate: unknown topic {topic!r} or document {doc!r}")
            lid, role, kind = s.execute(select(col(AssessorRow.id), col(AssessorRow.role),
                                               col(AssessorRow.kind))
                                        .where(col(AssessorRow.name) == lead)).one()
            if kind == "automatic":
                raise StoreError(f"adjudicate: {lead} is an automatic assessor, not a lead")
            if role != "lead":
                # An assessor does not settle pairs they may have judged themselves.
                raise StoreError(f"adjudicate: {lead} is an assessor, not a lead")
            # Locked (PostgreSQL) until the commit: the check below holds for the write.
            # (A pair with no final grade has no row to lock: a second session's insert
            # then fails on the unique index, and is answered below.)
            row = s.execute(select(AdjudicationRow).where(
                col(AdjudicationRow.topic_id) == tid, col(AdjudicationRow.document_id) == did)
                .with_for_update()).scalar()
            now_held = (None, "") if row is None else (row.grade, row.note)
            given = note
            if note is None:
                note = now_held[1]      # the grade alone, re-confirmed: its reason kept
            if (grade, note) == now_held:
                # the same decision: no change, no history row
                return Adjudicated(False, *now_held, grade, note)
            if shown is not None and shown != now_held:
                raise _meanwhile(s, row, topic, doc)
            if row is not None and grade != row.grade and not (given or "").strip():
                raise ReasonRequired(
                    f"adjudicate: {topic}/{doc} has the final grade {row.grade}: changing "
                    f"it from {row.grade} to {grade} needs the reason for the change; "
                    "nothing was changed", row.grade)
            done = Adjudicated(True, now_held[0], now_held[1], grade, note)
            at = now()
            if row is None:
                s.add(AdjudicationRow(collection_id=stored(c.id), topic_id=tid, document_id=did,
                                      grade=grade, lead_id=lid, note=note, updated_at=at))
            else:
                row.grade, row.lead_id, row.note, row.updated_at = grade, lid, note, at
            # The history row carries the decision's own time stamp: the team guard
            # (access/decision_guard.py) and `relkit db check` match the two by it.
            s.add(AdjudicationEventRow(collection_id=stored(c.id), topic_id=tid, document_id=did,
                                       lead_id=lid, old_grade=now_held[0], grade=grade,
                                       note=note, recorded_at=at))
    except IntegrityError as exc:
        if shown is not None:  # another session inserted the pair's first final grade
            with store.read() as s:
                row = s.execute(select(AdjudicationRow).join(
                    TopicRow, col(TopicRow.id) == col(AdjudicationRow.topic_id)).join(
                    DocumentRow, col(DocumentRow.id) == col(AdjudicationRow.document_id)).where(
                    col(TopicRow.key) == topic, col(DocumentRow.key) == doc)).scalar()
                if row is not None and (row.grade, row.note) != (grade, note):
                    raise _meanwhile(s, row, topic, doc) from None
                if row is not None:  # it holds what this call wrote: the same decision
                    return Adjudicated(False, row.grade, row.note, grade, row.note)
        raise integrity_error(exc, f"adjudication of {topic!r}/{doc!r}") from None
    return done


def _meanwhile(s: Session, row: AdjudicationRow | None, topic: str,
               doc: str) -> ChangedMeanwhile:
    """What another session left on the pair, as the refusal says it."""
    if row is None:
        return ChangedMeanwhile(f"meanwhile the final grade of {topic}/{doc} was removed")
    who = s.execute(select(col(AssessorRow.name))
                    .where(col(AssessorRow.id) == row.lead_id)).scalar()
    return ChangedMeanwhile(
        f"meanwhile {who} gave {topic}/{doc} the final grade {row.grade}"
        + (f" (reason: {row.note})" if row.note else "") + " in another session")


def decision_history(store: Store, topic: str, doc: str) -> list[DecisionOut]:
    """Every change of the pair's final grade, oldest first (empty: never decided)."""
    with store.read() as s:
        c = store.collection_row(s)
        rows = s.execute(
            select(col(AssessorRow.name), col(AdjudicationEventRow.old_grade),
                   col(AdjudicationEventRow.grade), col(AdjudicationEventRow.note),
                   col(AdjudicationEventRow.recorded_at))
            .join(AssessorRow, col(AssessorRow.id) == col(AdjudicationEventRow.lead_id))
            .join(TopicRow, col(TopicRow.id) == col(AdjudicationEventRow.topic_id))
            .join(DocumentRow, col(DocumentRow.id) == col(AdjudicationEventRow.document_id))
            .where(col(AdjudicationEventRow.collection_id) == c.id, col(TopicRow.key) == topic,
                   col(DocumentRow.key) == doc)
            .order_by(col(AdjudicationEventRow.id))).all()
    return [DecisionOut(*r) for r in rows]


def history_by_pair(s: Session, names: dict[int, str]
                    ) -> dict[tuple[int, int], list[dict[str, object]]]:
    """Every pair's decision history by (topic id, document id), as the JSONL dump
    writes it (oldest first). ``names``: assessor id to name (the dump has them)."""
    out: dict[tuple[int, int], list[dict[str, object]]] = {}
    for ev in s.execute(select(AdjudicationEventRow).order_by(col(AdjudicationEventRow.id))
                        ).scalars():
        out.setdefault((ev.topic_id, ev.document_id), []).append(
            {"lead": names[ev.lead_id], "old_grade": ev.old_grade, "grade": ev.grade,
             "note": ev.note, "recorded_at": ev.recorded_at.isoformat()})
    return out
