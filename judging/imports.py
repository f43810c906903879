"""Importing outside judgments into the store, all or nothing, in bulk.

The files are read by :mod:`relkit.judging.judgment_files` (qrels per assessor, or
one long table). The whole input is read and checked before anything is written,
then written in one transaction: all or nothing.

An imported judgment counts as judging work done: it marks the importing
assessor's matching assignment item done (the item for the same topic and
document in that assessor's assignment), so ``relkit status`` counts it and the
judging screen does not offer the document again. A judgment with no matching
item (an assessor with no assignment, a pair outside the pool, or an adaptive
assignment whose strategy has not picked that document yet) is kept all the
same, for agreement and export; it marks nothing and is counted apart in the
:class:`ImportSummary`. (On an adaptive pool the strategy reads every judgment
of the assessor, imported ones too, so it does not pick an imported document.)

The writes are batched, inside the one transaction: new judgments are inserted
many rows per statement (``executemany`` on SQLite, ``COPY`` on PostgreSQL),
revisions are one ``executemany``, the history (one row per write, as for the
judging screen's writes: it is append-only) is a bulk insert, and items are
marked done by id. A million judgments take well under a minute on SQLite
(``bench/import_bench.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import func, insert, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session

from relkit.corpora.types import Document, Topic
from relkit.judging.database import bulk_insert, integrity_error, now
from relkit.judging.judgment_files import JudgmentLine
from relkit.judging.models import StoreError
from relkit.judging.schema import (
    AssignmentItemRow,
    AssignmentRow,
    DocumentRow,
    JudgmentRow,
    TopicRow,
)
from relkit.judging.store import Store

Progress = Callable[[int, int], None]
BATCH = 20_000   # rows per write batch: a progress step, and well inside SQLite's limits
IN_CHUNK = 5_000  # ids per IN (...) list (SQLite allows 32,766 bound parameters)

Key = tuple[int, int, int]  # (assessor id, topic id, document id)


@dataclass(frozen=True)
class ImportSummary:
    """What :func:`import_judgments` wrote.

    ``judgments`` lines were imported: ``new`` judgments and ``revised`` ones (the
    old value kept in the history). ``items_done`` assignment items were marked
    done by them (items already done are not counted again); ``unassigned``
    judgments match no assignment item and mark nothing.
    """

    judgments: int
    new: int
    revised: int
    items_done: int
    unassigned: int


def check_lines(rows: Sequence[JudgmentLine], values: Iterable[int], scale_name: str) -> None:
    """Refuse a grade off the scale or a pair given twice by one assessor (file:line)."""
    allowed = set(values)
    seen: dict[tuple[str, str, str], JudgmentLine] = {}
    for r in rows:
        if r.grade not in allowed:
            raise StoreError(f"{r.source}:{r.line}: grade {r.grade} is not on the "
                             f"{scale_name!r} scale (expected one of {sorted(allowed)}); "
                             "nothing was imported")
        key = (r.assessor, r.topic, r.doc)
        first = seen.setdefault(key, r)
        if first is not r:
            raise StoreError(f"{r.source}:{r.line}: {r.assessor!r} judged topic {r.topic!r} "
                             f"document {r.doc!r} already at {first.source}:{first.line}; "
                             "nothing was imported")


def import_judgments(store: Store, lines: Iterable[JudgmentLine], *,
                     add_missing: bool = False,
                     progress: Progress | None = None) -> ImportSummary:
    """Import judgments all or nothing; returns what was written.

    Unknown topics or documents are an error naming the file and line, unless
    ``add_missing`` (then they are added without text: outside data for
    agreement only). A pair given twice for one assessor is an error; an
    existing judgment is revised, its old value kept in the history. Each
    imported judgment marks the assessor's matching assignment item done (see
    the module docstring for a judgment with none). ``progress(done, total)`` is
    called after each batch of judgments written.
    """
    rows = list(lines)
    if not rows:
        raise StoreError("no judgments to import")
    scale = store.scale()
    check_lines(rows, scale.values, scale.name)
    try:
        with store.write() as s, s.begin():
            return _write(store, s, rows, add_missing, progress)
    except IntegrityError as exc:
        raise integrity_error(exc, "import") from None


def _write(store: Store, s: Session, rows: list[JudgmentLine], add_missing: bool,
           progress: Progress | None) -> ImportSummary:
    c = store.collection_row(s)
    topics = store.topic_ids(s, c.id)
    docs = store.doc_ids(s, c.id)
    new_topics = sorted({r.topic for r in rows} - set(topics))
    new_docs = sorted({r.doc for r in rows} - set(docs))
    if (new_topics or new_docs) and not add_missing:
        bad = next(r for r in rows if r.topic in new_topics or r.doc in new_docs)
        what = (f"topic {bad.topic!r}" if bad.topic in new_topics
                else f"document {bad.doc!r}")
        raise StoreError(f"{bad.source}:{bad.line}: unknown {what} (not in the "
                         "database; --add-missing adds it); nothing was imported")
    conn = s.connection()
    if new_topics:
        conn.execute(insert(TopicRow), [dict(collection_id=c.id, key=Topic(t).id)
                                        for t in new_topics])
        topics = store.topic_ids(s, c.id)
    if new_docs:
        bulk_insert(conn, DocumentRow, [dict(collection_id=c.id, key=Document(d).id,
                                             text="", fields_json="{}") for d in new_docs])
        docs = store.doc_ids(s, c.id)
    people = store.ensure_assessors(s, sorted({r.assessor for r in rows}))
    aids = sorted({people[r.assessor] for r in rows})
    keys = [(people[r.assessor], topics[r.topic], docs[r.doc]) for r in rows]
    existing = _existing(conn, aids)
    items = _items(conn, aids)
    w = _Writer(conn)
    stamp = w.stamp(now())
    total = len(rows)
    # Progress: the judgment rows are the first half of the work, the history the second.
    tick = (lambda done: progress(done // 2, total)) if progress is not None else None
    fresh = [i for i in range(total) if keys[i] not in existing]
    again = [i for i in range(total) if keys[i] in existing]
    top = conn.execute(select(func.max(JudgmentRow.id))).scalar() or 0
    w.insert("judgment", ("collection_id", "assessor_id", "topic_id", "document_id", "grade",
                          "status", "note", "flagged", "dwell_ms", "version", "source",
                          "created_at", "updated_at"),
             [(c.id, *keys[i], rows[i].grade, "judged", "", False, 0, 1, "import", stamp,
               stamp) for i in fresh], tick)
    w.run("UPDATE judgment SET grade = {p}, status = 'judged', version = version + 1, "
          "source = 'import', updated_at = {p} WHERE id = {p}",
          [(rows[i].grade, stamp, existing[keys[i]][0]) for i in again],
          (lambda done: tick(len(fresh) + done)) if tick is not None else None)
    # The new rows' ids: every judgment of this transaction has an id above the largest
    # before it (ids only grow), and each key is unique, so a key names its row.
    want = {keys[i] for i in fresh}
    ids = dict(existing)
    for jid, a, t, d in conn.execute(select(JudgmentRow.id, JudgmentRow.assessor_id,
                                            JudgmentRow.topic_id, JudgmentRow.document_id)
                                     .where(JudgmentRow.id > top)):  # type: ignore[operator]
        if (a, t, d) in want:
            ids[(a, t, d)] = (jid, 0)  # version 0 + 1 below: a new row's first version
    w.insert("judgment_history", ("judgment_id", "version", "assessor_id", "topic_id",
                                  "document_id", "grade", "status", "note", "flagged",
                                  "dwell_ms", "source", "recorded_at"),
             [(ids[keys[i]][0], ids[keys[i]][1] + 1, *keys[i], rows[i].grade, "judged", "",
               False, 0, "import", stamp) for i in range(total)],
             (lambda done: tick(total + done)) if tick is not None else None)
    todo, unassigned = [], 0
    for k in keys:
        item = items.get(k)
        if item is None:
            unassigned += 1
        elif not item[1]:
            todo.append(item[0])
    w.mark_done(todo)
    if progress is not None:
        progress(total, total)
    return ImportSummary(total, len(fresh), len(again), len(todo), unassigned)


class _Writer:
    """Many rows per call, straight to the driver, inside the caller's transaction.

    SQLAlchemy's per-row parameter processing is most of the time of a million-row
    insert; these rows are plain ints and strings (and one time stamp, converted once
    by :meth:`stamp`), so they go to the driver as they are: ``executemany`` on
    SQLite, ``COPY`` (psycopg 3) on PostgreSQL.
    """

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.pg = conn.dialect.name == "postgresql"

    def stamp(self, when: Any) -> Any:
        """``when`` as the driver is given it for a DateTime column (once, not per row)."""
        typ = JudgmentRow.__table__.c.created_at.type  # type: ignore[attr-defined]
        proc = typ.dialect_impl(self.conn.dialect).bind_processor(self.conn.dialect)
        return proc(when) if proc is not None else when

    def insert(self, table: str, cols: Sequence[str], rows: list[tuple[Any, ...]],
               progress: Callable[[int], None] | None) -> None:
        names = ", ".join(cols)
        for lo in range(0, len(rows), BATCH):
            chunk = rows[lo:lo + BATCH]
            if self.pg:
                raw = self.conn.connection.dbapi_connection
                with raw.cursor() as cur, cur.copy(
                        f"COPY {table} ({names}) FROM STDIN") as copy:
                    for r in chunk:
                        copy.write_row(r)
            else:
                self.conn.exec_driver_sql(
                    f"INSERT INTO {table} ({names}) VALUES ({', '.join('?' * len(cols))})",
                    chunk)
            if progress is not None:
                progress(lo + len(chunk))

    def run(self, sql: str, rows: list[tuple[Any, ...]],
            progress: Callable[[int], None] | None) -> None:
        """An executemany of ``sql`` (``{p}`` marks a parameter)."""
        sql = sql.format(p="%s" if self.pg else "?")
        for lo in range(0, len(rows), BATCH):
            chunk = rows[lo:lo + BATCH]
            self.conn.exec_driver_sql(sql, chunk)
            if progress is not None:
                progress(lo + len(chunk))

    def mark_done(self, item_ids: list[int]) -> None:
        if self.pg:  # one statement per batch: an array of ids
            for lo in range(0, len(item_ids), BATCH):
                self.conn.exec_driver_sql(
                    "UPDATE assignment_item SET done = TRUE WHERE id = ANY(%s)",
                    (item_ids[lo:lo + BATCH],))
        else:
            self.run("UPDATE assignment_item SET done = 1 WHERE id = {p}",
                     [(i,) for i in item_ids], None)


def _existing(conn: Any, aids: list[int]) -> dict[Key, tuple[int, int]]:
    """The current judgments of these assessors: (judgment id, version) by key."""
    out: dict[Key, tuple[int, int]] = {}
    j = JudgmentRow.__table__  # type: ignore[attr-defined]
    for k in range(0, len(aids), IN_CHUNK):
        q = (select(j.c.assessor_id, j.c.topic_id, j.c.document_id, j.c.id, j.c.version)
             .where(j.c.assessor_id.in_(aids[k:k + IN_CHUNK])))
        for a, t, d, jid, version in conn.execute(q):
            out[(a, t, d)] = (jid, version)
    return out


def _items(conn: Any, aids: list[int]) -> dict[Key, tuple[int, bool]]:
    """These assessors' assignment items: (item id, done) by key."""
    out: dict[Key, tuple[int, bool]] = {}
    for k in range(0, len(aids), IN_CHUNK):
        q = (select(AssignmentRow.assessor_id, AssignmentRow.topic_id,
                    AssignmentItemRow.document_id, AssignmentItemRow.id, AssignmentItemRow.done)
             .join(AssignmentRow, AssignmentRow.id == AssignmentItemRow.assignment_id)
             .where(AssignmentRow.assessor_id.in_(aids[k:k + IN_CHUNK])))  # type: ignore[attr-defined]
        for a, t, d, iid, done in conn.execute(q):
            out[(a, t, d)] = (iid, bool(done))
    return out
