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

The writes are batched, inside the one transaction: new judgments and their
history rows (one per write, as for the judging screen's writes: the history is
append-only) go to the driver many rows at a time (``executemany`` on SQLite,
``COPY`` on PostgreSQL), revisions are one ``executemany`` (PostgreSQL: one
``UPDATE ... FROM`` a scratch table), and items are marked done one range of
ids at a time. A million judgments are read and imported in about 35 s on
SQLite on a 2-core machine (``bench/import_bench.py``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import insert, select
from sqlalchemy.exc import IntegrityError
from sqlmodel import Session, col

from relkit.corpora.types import Document, Topic
from relkit.judging.judgment_files import JudgmentLine
from relkit.judging.store.assign import Store
from relkit.judging.store.database import bulk_insert, integrity_error, now
from relkit.judging.store.models import StoreError
from relkit.judging.store.tables import (
    KINDS,
    AssessorRow,
    DocumentRow,
    JudgmentRow,
    TopicRow,
)

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
            expected = ", ".join(map(str, sorted(allowed)))
            raise StoreError(f"{r.source}:{r.line}: grade {r.grade} is not on the "
                             f"{scale_name!r} scale (expected one of {expected}); "
                             "nothing was imported")
        key = (r.assessor, r.topic, r.doc)
        first = seen.setdefault(key, r)
        if first is not r:
            raise StoreError(f"{r.source}:{r.line}: {r.assessor!r} judged topic {r.topic!r} "
                             f"document {r.doc!r} already at {first.source}:{first.line}; "
                             "nothing was imported")


def import_judgments(store: Store, lines: Iterable[JudgmentLine], *,
                     add_missing: bool = False, kind: str = "human",
                     progress: Progress | None = None) -> ImportSummary:
    """Import judgments all or nothing; returns what was written.

    Unknown topics or documents are an error naming the file and line, unless
    ``add_missing`` (then they are added without text: outside data for
    agreement only). A pair given twice for one assessor is an error; an
    existing judgment is revised, its old value kept in the history. Each
    imported judgment marks the assessor's matching assignment item done (see
    the module docstring for a judgment with none). ``kind`` ("human" or
    "automatic") is the kind of every assessor in the input: new ones are created
    so, and an existing assessor of the other kind is refused (one kind per name,
    or a human's judgments would silently count as a machine's, or the reverse).
    ``progress(done, total)`` is called after each batch of judgments written.
    """
    if kind not in KINDS:
        raise StoreError(f"unknown assessor kind {kind!r}; expected one of {', '.join(KINDS)}")
    rows = list(lines)
    if not rows:
        raise StoreError("no judgments to import")
    scale = store.scale()
    check_lines(rows, scale.values, scale.name)
    try:
        with store.write() as s, s.begin():
            return _write(store, s, rows, add_missing, kind, progress)
    except IntegrityError as exc:
        raise integrity_error(exc, "import") from None
    except Exception as exc:
        # A person's login on a team database (docs/team.md: the owner imports): refused
        # by a grant, or by row-level security, which PostgreSQL's COPY does not take.
        # The transaction is rolled back: nothing was imported.
        why = _refused(exc)
        if why is None:
            raise
        raise StoreError(f"import: the database refused it ({why}): this login may not "
                         "import judgments, the database's owner does (docs/team.md); "
                         "nothing was imported") from None


def _refused(exc: BaseException) -> str | None:
    """The database's one-line reason if ``exc`` is its refusal of this login's write."""
    orig = getattr(exc, "orig", None) or exc   # COPY's errors come from psycopg itself
    state = getattr(orig, "sqlstate", None)
    first = str(orig).strip().splitlines()[0] if str(orig).strip() else ""
    if state == "42501" or (state == "0A000" and "row-level security" in first):
        return first
    return None


def _write(store: Store, s: Session, rows: list[JudgmentLine], add_missing: bool,
           kind: str, progress: Progress | None) -> ImportSummary:
    c = store.collection_row(s)
    _check_kinds(s, rows, kind)
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
    people = store.ensure_assessors(s, sorted({r.assessor for r in rows}), kind=kind)
    aids = sorted({people[r.assessor] for r in rows})
    keys = [(people[r.assessor], topics[r.topic], docs[r.doc]) for r in rows]
    db = _Raw(conn)
    existing = db.existing(aids)
    items = db.items(aids)
    stamp = db.stamp(now())
    total = len(rows)
    # Progress: the judgment rows are the first half of the work, the history the second.
    tick = (lambda done: progress(done // 2, total)) if progress is not None else None
    fresh: list[int] = []
    again: list[int] = []
    for i, k in enumerate(keys):
        (again if k in existing else fresh).append(i)
    top = db.query("SELECT MAX(id) FROM judgment")[0][0] or 0
    db.insert("judgment", ("collection_id", "assessor_id", "topic_id", "document_id", "grade",
                           "status", "note", "flagged", "dwell_ms", "version", "source",
                           "created_at", "updated_at"),
              [(c.id, *keys[i], rows[i].grade, "judged", "", False, 0, 1, "import", stamp,
                stamp) for i in fresh], tick)
    db.revise([(existing[keys[i]][0], rows[i].grade) for i in again], stamp,
              (lambda done: tick(len(fresh) + done)) if tick is not None else None)
    # The new rows' ids: every row this transaction inserted has an id above the largest
    # before it (ids only grow), and a key names one row (a unique constraint).
    ids = {(a, t, d): (jid, 0) for jid, a, t, d in db.query(
        "SELECT id, assessor_id, topic_id, document_id FROM judgment WHERE id > {p}", (top,))}
    ids.update(existing)  # a revision's version is the old one + 1, a new row's 0 + 1
    db.insert("judgment_history", ("judgment_id", "version", "assessor_id", "topic_id",
                                   "document_id", "grade", "status", "note", "flagged",
                                   "dwell_ms", "source", "recorded_at"),
              [(jid, version + 1, *k, r.grade, "judged", "", False, 0, "import", stamp)
               for k, r in zip(keys, rows, strict=True) for jid, version in (ids[k],)],
              (lambda done: tick(total + done)) if tick is not None else None)
    todo, unassigned = [], 0
    for k in keys:
        item = items.get(k)
        if item is None:
            unassigned += 1
        elif not item[1]:
            todo.append(item[0])
    db.mark_done(todo)
    if progress is not None:
        progress(total, total)
    return ImportSummary(total, len(fresh), len(again), len(todo), unassigned)


def _check_kinds(s: Session, rows: Sequence[JudgmentLine], kind: str) -> None:
    """Refuse judgments for an existing assessor of the other kind (file:line)."""
    names = {r.assessor for r in rows}
    kinds = dict(s.execute(select(col(AssessorRow.name), col(AssessorRow.kind))
                           .where(col(AssessorRow.name).in_(sorted(names)))).all())
    bad = next((r for r in rows if kinds.get(r.assessor, kind) != kind), None)
    if bad is not None:
        have = kinds[bad.assessor]
        article = "an" if have == "automatic" else "a"
        raise StoreError(f"{bad.source}:{bad.line}: {bad.assessor!r} is {article} {have} "
                         f"assessor in this database, not {kind} (--kind {kind}); "
                         "nothing was imported")


class _Raw:
    """Many rows per call, straight to the driver, inside the caller's transaction.

    SQLAlchemy's per-row parameter and result processing is most of the time of a
    million-row import; these rows are plain ints and strings (and one time stamp,
    converted once by :meth:`stamp`), so they go to the driver as they are:
    ``executemany`` on SQLite, ``COPY`` (psycopg 3) on PostgreSQL. ``{p}`` in the SQL
    marks a parameter (the driver's placeholder).
    """

    def __init__(self, conn: Any) -> None:
        self.conn = conn
        self.pg = conn.dialect.name == "postgresql"
        self.p = "%s" if self.pg else "?"

    def stamp(self, when: Any) -> Any:
        """``when`` as the driver is given it for a DateTime column (once, not per row)."""
        typ = JudgmentRow.metadata.tables["judgment"].c.created_at.type
        proc = typ.dialect_impl(self.conn.dialect).bind_processor(self.conn.dialect)
        return proc(when) if proc is not None else when

    def query(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        return list(self.conn.exec_driver_sql(sql.format(p=self.p), params).fetchall())

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
        """An executemany of ``sql``, in batches."""
        sql = sql.format(p=self.p)
        for lo in range(0, len(rows), BATCH):
            chunk = rows[lo:lo + BATCH]
            self.conn.exec_driver_sql(sql, chunk)
            if progress is not None:
                progress(lo + len(chunk))

    def revise(self, grades: list[tuple[int, int]], stamp: Any,
               progress: Callable[[int], None] | None) -> None:
        """Give judgments (id, grade) a new grade and version, as imported at ``stamp``."""
        if not grades:
            return
        if not self.pg:
            self.run("UPDATE judgment SET grade = {p}, status = 'judged', version = version "
                     "+ 1, source = 'import', updated_at = {p} WHERE id = {p}",
                     [(g, stamp, jid) for jid, g in grades], progress)
            return
        # PostgreSQL runs an executemany as one statement per row (a million round trips);
        # COPY the new grades into a scratch table and update from it in one statement.
        self.conn.exec_driver_sql("CREATE TEMPORARY TABLE relkit_revised (id BIGINT PRIMARY "
                                  "KEY, grade INTEGER NOT NULL) ON COMMIT DROP")
        self.insert("relkit_revised", ("id", "grade"), grades, progress)
        self.conn.exec_driver_sql(
            "UPDATE judgment AS j SET grade = r.grade, status = 'judged', version = "
            "j.version + 1, source = 'import', updated_at = %s FROM relkit_revised AS r "
            "WHERE j.id = r.id", (stamp,))
        self.conn.exec_driver_sql("DROP TABLE relkit_revised")

    def mark_done(self, item_ids: list[int]) -> None:
        """Mark these assignment items done: one update per run of consecutive ids.

        An assignment's items are inserted together, so their ids mostly run on: a
        whole assignment judged is usually one range, not thousands of updates.
        """
        spans: list[list[int]] = []
        for i in sorted(item_ids):
            if spans and spans[-1][1] == i - 1:
                spans[-1][1] = i
            else:
                spans.append([i, i])
        done = "TRUE" if self.pg else "1"
        self.run(f"UPDATE assignment_item SET done = {done} WHERE id BETWEEN {{p}} AND {{p}}",
                 [(lo, hi) for lo, hi in spans], None)

    def _in(self, sql: str, ids: list[int]) -> list[Any]:
        """``sql`` with ``IN ({ids})`` filled, for every chunk of ``ids``."""
        out = []
        for k in range(0, len(ids), IN_CHUNK):
            part = ids[k:k + IN_CHUNK]
            out += self.query(sql.replace("{ids}", ", ".join([self.p] * len(part))),
                              tuple(part))
        return out

    def existing(self, aids: list[int]) -> dict[Key, tuple[int, int]]:
        """The current judgments of these assessors: (judgment id, version) by key."""
        return {(a, t, d): (jid, version) for a, t, d, jid, version in self._in(
            "SELECT assessor_id, topic_id, document_id, id, version FROM judgment "
            "WHERE assessor_id IN ({ids})", aids)}

    def items(self, aids: list[int]) -> dict[Key, tuple[int, bool]]:
        """These assessors' assignment items: (item id, done) by key."""
        return {(a, t, d): (iid, bool(done)) for a, t, d, iid, done in self._in(
            "SELECT a.assessor_id, a.topic_id, i.document_id, i.id, i.done "
            "FROM assignment_item i JOIN assignment a ON a.id = i.assignment_id "
            "WHERE a.assessor_id IN ({ids})", aids)}
