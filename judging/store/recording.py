"""The one write an assessor makes: saving a judgment, with its history row.

:meth:`Recording.record` returns only after the transaction has committed, so the caller
(the judging screen) moves on only with the judgment on disk. The current judgment is
upserted (one row per assessor, topic and document, its statement built once per
dialect) and every write appends a row to the history. A base of
:class:`~relkit.judging.store.assessor.AssessorView`, which reads the assessor's topics
and items; apart from it so that the write path, on the screen's way from a grade key to
the next document, reads on its own.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import and_, bindparam, insert, select, update
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from relkit.judging.store.database import Database, integrity_error, now
from relkit.judging.store.models import JudgmentIn, JudgmentOut, StoreError, validated
from relkit.judging.store.tables import (
    AssignmentItemRow,
    DocumentRow,
    JudgmentEventRow,
    JudgmentRow,
)

if TYPE_CHECKING:
    from relkit.corpora.types import RelevanceScale
    from relkit.judging.store.models import Assigned


class Recording:
    """An assessor's saves (a base of :class:`~relkit.judging.store.assessor.AssessorView`,
    which has the assessor's ids and reads their assignments)."""

    store: Database
    name: str
    assessor_id: int
    collection_id: int

    if TYPE_CHECKING:  # read by the assessor's view
        def scale(self) -> RelevanceScale: ...
        def _topic(self, s: Session, topic: str) -> Assigned: ...

    def record(self, judgment: JudgmentIn | None = None, /, *, source: str = "api",
               expected_version: int | None = None, retry: bool = False,
               **fields: Any) -> JudgmentOut:
        """Save a judgment and return it once committed.

        Give a :class:`JudgmentIn` or its fields (``topic, doc, grade, status,
        note, flagged, dwell_ms``). Revising a judgment keeps the old one in the
        history; the current row's ``dwell_ms`` is the total over all writes.

        ``expected_version``: the version of the judgment the caller showed (its
        :attr:`ItemOut.version`; 0: none yet). If another write came in since (another
        session of the same person, two browser tabs), this one is still saved, as the
        newest version, and the returned judgment's ``meanwhile`` is the one it replaced,
        for the caller to say so; both stay in the history. The check is the upsert's
        own new version (the row's version + 1, in the same statement that writes it), so
        no write can slip in between the check and the save, and the usual path costs no
        extra query.

        ``retry``: an earlier try of this same save failed without an answer (the
        connection dropped around its commit). If that try went through (the judgment is
        at ``expected_version`` + 1 and holds exactly this save's grade, status, note, flag
        and source), it is returned as it is and nothing is written again: no second
        history row, no dwell added twice. One more query, on retries only.
        """
        j = judgment if judgment is not None else validated(JudgmentIn, "judgment", **fields)
        assert isinstance(j, JudgmentIn)
        if j.grade is not None and j.grade not in self.scale():
            raise StoreError(f"grade {j.grade} is not on the {self.scale().name!r} scale "
                             f"(expected one of {', '.join(map(str, self.scale().values))})")
        stamp = now()
        try:
            with self.store.write() as s, s.begin():
                # Four statements, the history row a Core insert (an ORM add would run
                # the unit of work): the commit is on the judging screen's path from a
                # grade key to the next document.
                a = self._topic(s, j.topic)
                found = s.execute(
                    select(col(DocumentRow.id), col(AssignmentItemRow.id))
                    .join(AssignmentItemRow, and_(
                        col(AssignmentItemRow.document_id) == col(DocumentRow.id),
                        col(AssignmentItemRow.assignment_id) == a.assignment_id))
                    .where(col(DocumentRow.collection_id) == self.collection_id,
                           col(DocumentRow.key) == j.doc)).first()
                if found is None:
                    raise StoreError(f"document {j.doc!r} of topic {j.topic!r} is not assigned "
                                     f"to {self.name!r}")
                did, item = found
                if retry and expected_version is not None:
                    done = s.execute(select(JudgmentRow).where(
                        col(JudgmentRow.assessor_id) == self.assessor_id,
                        col(JudgmentRow.topic_id) == a.topic_id,
                        col(JudgmentRow.document_id) == did)).scalar()
                    if (done is not None and done.version == expected_version + 1
                            and (done.grade, done.status, done.note, done.flagged, done.source)
                            == (j.grade, j.status, j.note, j.flagged, source)):
                        return _out(done, j.topic, j.doc, self.name)
                jid, version, created, total_dwell = self._upsert(s, a.topic_id, did, j, source,
                                                                  stamp)
                s.execute(_HISTORY, dict(
                    judgment_id=jid, version=version, assessor_id=self.assessor_id,
                    topic_id=a.topic_id, document_id=did, grade=j.grade, status=j.status,
                    note=j.note, flagged=j.flagged, dwell_ms=j.dwell_ms, source=source,
                    recorded_at=stamp))
                s.execute(update(AssignmentItemRow).where(col(AssignmentItemRow.id) == item)
                          .values(done=j.status == "judged"))
                meanwhile = (None if expected_version is None or version == expected_version + 1
                             else self._replaced(s, jid, version - 1, j.topic, j.doc))
        except IntegrityError as exc:
            raise integrity_error(exc, f"judgment of {j.topic!r}/{j.doc!r}") from None
        return JudgmentOut(j.topic, j.doc, self.name, j.grade, j.status, j.note, j.flagged,
                           int(total_dwell or 0), version, source, created, stamp, meanwhile)

    def _replaced(self, s: Session, jid: int, version: int, topic: str,
                  doc: str) -> JudgmentOut | None:
        """The history row of ``version`` of judgment ``jid`` (the write just replaced):
        read in the write's transaction, only when the caller had not seen it."""
        e = s.execute(select(JudgmentEventRow).where(col(JudgmentEventRow.judgment_id) == jid,
                                                     col(JudgmentEventRow.version) == version)
                      ).scalars().first()
        if e is None:  # a judgment written before the history kept every version
            return None
        return JudgmentOut(topic, doc, self.name, e.grade, e.status, e.note, e.flagged,
                           e.dwell_ms, e.version, e.source, e.recorded_at, e.recorded_at)

    def _upsert(self, s: Session, topic_id: int, doc_id: int, j: JudgmentIn, source: str,
                stamp: Any) -> tuple[int, int, Any, int]:
        params = dict(collection_id=self.collection_id, assessor_id=self.assessor_id,
                      topic_id=topic_id, document_id=doc_id, grade=j.grade, status=j.status,
                      note=j.note, flagged=j.flagged, dwell_ms=j.dwell_ms, version=1,
                      source=source, created_at=stamp, updated_at=stamp)
        jid, version, created, dwell = s.execute(_upsert_statement(s.get_bind().dialect.name),
                                                 params).one()
        return jid, version, created, dwell


_UPSERTS: dict[str, Any] = {}
_HISTORY = insert(JudgmentEventRow)  # values as parameters


def _upsert_statement(dialect: str) -> Any:
    """The judgment upsert with its values as parameters, built once per dialect (building
    it, ``excluded`` most of all, cost more than running it)."""
    if dialect not in _UPSERTS:
        ins_fn = postgresql.insert if dialect == "postgresql" else sqlite.insert
        t = JudgmentRow.metadata.tables["judgment"]
        ins = ins_fn(t).values({c: bindparam(c, type_=t.c[c].type) for c in (
            "collection_id", "assessor_id", "topic_id", "document_id", "grade", "status",
            "note", "flagged", "dwell_ms", "version", "source", "created_at", "updated_at")})
        _UPSERTS[dialect] = ins.on_conflict_do_update(
            index_elements=["assessor_id", "topic_id", "document_id"],
            set_=dict(grade=ins.excluded.grade, status=ins.excluded.status,
                      note=ins.excluded.note, flagged=ins.excluded.flagged,
                      dwell_ms=t.c.dwell_ms + ins.excluded.dwell_ms, version=t.c.version + 1,
                      source=ins.excluded.source, updated_at=ins.excluded.updated_at),
        ).returning(t.c.id, t.c.version, t.c.created_at, t.c.dwell_ms)
    return _UPSERTS[dialect]


def _out(j: JudgmentRow, topic: str, doc: str, assessor: str) -> JudgmentOut:
    return JudgmentOut(topic, doc, assessor, j.grade, j.status, j.note, j.flagged, j.dwell_ms,
                       j.version, j.source, j.created_at, j.updated_at)
