"""A judging database: its sessions, collection, pools and assessors.

:class:`Database` is what every part of the store builds on: opening (and
upgrading) the schema, read and write sessions, the collection with its scale,
topics and documents, pools, and the assessors' names. Assignments and the
assessor's view are layered on it (:class:`relkit.judging.store.assign.Store`,
:mod:`relkit.judging.store.assessor`, :mod:`relkit.judging.store.adaptive`), and this module
imports none of them, so they share it without importing each other.

Every method is one short unit of work (one transaction), so a failure leaves
the database as it was. Bulk inputs (topics, documents, pools) are validated
completely before the first row is written, and written in a single transaction:
all or nothing.
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Self

from sqlalchemy import Engine, select
from sqlalchemy.exc import DBAPIError, IntegrityError
from sqlmodel import Session, col

from relkit.corpora.types import Document, Grade, RelevanceScale, Topic
from relkit.judging.store.bulk import bulk_insert as bulk_insert
from relkit.judging.store.closers import _CLOSERS as _CLOSERS
from relkit.judging.store.closers import _Closer
from relkit.judging.store.closers import close_all as close_all
from relkit.judging.store.connection import describe, make_engine, sqlite_path, writer
from relkit.judging.store.migrate import check, head, upgrade_safely
from relkit.judging.store.models import PoolEntryIn, PoolSummary, StoreError, validated
from relkit.judging.store.tables import (
    AssessorRow,
    CollectionRow,
    DocumentRow,
    PoolEntryRow,
    PoolRow,
    ScaleGradeRow,
    TopicRow,
    stored,
)

DocLookup = Callable[[str], Document | None]


def now() -> datetime:
    """The time stamp of a write (UTC)."""
    return datetime.now(UTC)


class Database:
    """A judging database. Build one with :meth:`open` (read-only, or creating/upgrading)."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.writer = writer(engine)
        self._closer = _Closer(engine)
        weakref.finalize(self, self._closer)

    @classmethod
    def open(cls, db: str | os.PathLike[str] | None = None, *, create: bool = True,
             readonly: bool = False, notify: Callable[[str], None] | None = None) -> Self:
        """Open the database at ``db`` (path or URL).

        ``readonly``: the read commands' way. Nothing is written, created or
        migrated; a missing or empty database, or one at an older schema revision,
        is an error (the latter says to run ``relkit db upgrade``).

        Otherwise the database is created when empty and upgraded when older
        (:func:`relkit.judging.store.migrate.upgrade_safely`: on SQLite a backup is kept
        until the upgrade has committed); ``notify`` is told of an upgrade before it
        starts. With ``create=False`` a missing or empty database is an error instead
        of a new one (every command but ``init``).
        """
        # Look first through a read-only engine: a file that is not relkit's (another
        # program's SQLite database) must not even get its journal mode changed.
        engine = make_engine(db, readonly=True)
        where = describe(engine.url)
        path = sqlite_path(engine)
        missing = (f"no judging database at {where}: run `relkit init` there first, or "
                   "point --db / $RELKIT_DB at one")
        exists = not path or (os.path.exists(path) and os.path.getsize(path) > 0)
        if not exists and (readonly or not create):
            engine.dispose()
            raise StoreError(missing)
        try:
            rev = check(engine) if exists else None
            if rev is None and (readonly or not create):
                raise StoreError(missing)
            if rev is not None and rev != head() and readonly:
                raise StoreError(f"{where} is at schema revision {rev}, older than this "
                                 f"relkit's {head()}: run `relkit db upgrade --db {where}` "
                                 "first (it keeps a backup until the upgrade commits)")
            if not readonly:
                engine.dispose()
                engine = make_engine(db)
                if rev != head():
                    if rev is not None and notify is not None:
                        notify(f"relkit: upgrading {where} from schema revision {rev} to "
                               f"{head()}")
                    upgrade_safely(engine, notify=notify)
        except DBAPIError as exc:
            engine.dispose()
            raise open_error(exc, where) from None
        except BaseException:
            engine.dispose()
            raise
        return cls(engine)

    def close(self) -> None:
        self._closer()  # disposes the engine, once

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    # -- sessions -----------------------------------------------------------------
    def read(self) -> Session:
        return Session(self.engine)

    def write(self) -> Session:
        """A session whose transaction holds the write lock from its first statement."""
        return Session(self.writer)

    # -- collection -----------------------------------------------------------------
    def create_collection(self, name: str, scale: RelevanceScale, topics: Iterable[Topic],
                          documents: Iterable[Document] = (), *,
                          docs_source: str | None = None,
                          docs_format: str | None = None) -> None:
        """Create the collection with its scale, topics and (optionally) documents.

        ``docs_source``/``docs_format`` name the documents file; pools imported
        later copy their documents' text from it (see :meth:`docs_lookup`).
        """
        topic_list = list(topics)
        seen: set[str] = set()
        for t in topic_list:
            if t.id in seen:
                raise StoreError(f"collection {name!r}: topic {t.id!r} is given twice")
            seen.add(t.id)
        with self.write() as s, s.begin():
            if s.execute(select(CollectionRow).where(col(CollectionRow.name) == name)).first():
                raise StoreError(f"collection {name!r} already exists in this database")
            row = CollectionRow(name=name, scale_name=scale.name, threshold=scale.threshold,
                                created_at=now(), docs_source=docs_source,
                                docs_format=docs_format)
            s.add(row)
            s.flush()
            cid = stored(row.id)
            s.add_all(ScaleGradeRow(collection_id=cid, value=g.value, label=g.label,
                                    definition=g.definition) for g in scale.grades)
            s.flush()
            conn = s.connection()
            rows = [dict(collection_id=cid, key=t.id, title=t.title, description=t.description,
                         narrative=t.narrative) for t in topic_list]
            bulk_insert(conn, TopicRow, rows)
            self._insert_documents(s, cid, documents, {})

    def _insert_documents(self, s: Session, cid: int | None, documents: Iterable[Document],
                          existing: Mapping[str, int]) -> int:
        rows, seen = [], set(existing)
        for d in documents:
            if d.id in seen:
                continue
            seen.add(d.id)
            rows.append(dict(collection_id=cid, key=d.id, title=d.title, text=d.text,
                             fields_json=json.dumps(dict(d.fields), ensure_ascii=False)))
        conn = s.connection()
        bulk_insert(conn, DocumentRow, rows)
        return len(rows)

    def collection_row(self, s: Session, name: str | None = None) -> CollectionRow:
        """The collection called ``name`` (the only one, if None), inside session ``s``."""
        rows = list(s.execute(select(CollectionRow)).scalars()) if name is None else list(
            s.execute(select(CollectionRow).where(col(CollectionRow.name) == name)).scalars())
        if not rows:
            raise StoreError("no collection in this database: run `relkit init` first"
                             if name is None else f"no collection named {name!r}")
        if len(rows) > 1:
            names = sorted(r.name for r in rows)
            raise StoreError(f"this database holds several collections {names}: "
                             "name one with --collection")
        return rows[0]

    def collection_name(self, name: str | None = None) -> str:
        with self.read() as s:
            return self.collection_row(s, name).name

    def docs_source(self, collection: str | None = None) -> tuple[str | None, str | None]:
        """The documents file (and format) recorded at ``init``, if any."""
        with self.read() as s:
            c = self.collection_row(s, collection)
            return c.docs_source, c.docs_format

    def scale(self, collection: str | None = None) -> RelevanceScale:
        """The collection's relevance scale, as declared (unused grades included)."""
        with self.read() as s:
            c = self.collection_row(s, collection)
            grades = s.execute(select(ScaleGradeRow).where(col(ScaleGradeRow.collection_id) == c.id)
                            .order_by(col(ScaleGradeRow.value))).scalars()
            return RelevanceScale(c.scale_name, tuple(Grade(g.value, g.label, g.definition)
                                                      for g in grades), c.threshold)

    def topic_ids(self, s: Session, cid: int | None) -> dict[str, int]:
        return {k: i for k, i in s.execute(select(col(TopicRow.key), col(TopicRow.id))
                                          .where(col(TopicRow.collection_id) == cid))}

    def doc_ids(self, s: Session, cid: int | None) -> dict[str, int]:
        return {k: i for k, i in s.execute(select(col(DocumentRow.key), col(DocumentRow.id))
                                          .where(col(DocumentRow.collection_id) == cid))}

    # -- pools ------------------------------------------------------------------------
    def import_pool(self, entries: Iterable[PoolEntryIn | tuple[str, str]], *, name: str,
                    lookup: DocLookup | None = None, strategy: str = "",
                    params: Mapping[str, Any] | None = None, collection: str | None = None,
                    source: str = "<pool>", lines: Sequence[int] | None = None,
                    digest_salt: str = "",
                    locate: Callable[[int], str] | None = None) -> PoolSummary:
        """Import a pool, all or nothing.

        Documents not yet in the database are fetched with ``lookup`` (from the
        collection's document store) and copied in. An entry naming an unknown
        topic, or a document that neither the database nor ``lookup`` knows, is
        an error naming ``source`` and the entry's line (or ``locate(i)``, where the
        ``i``-th entry came from); so is a repeated entry
        and a second import of the same pool (same entries, any name).
        """
        def where(i: int) -> str:
            if locate is not None:  # e.g. the run file and rank the entry came from
                return locate(i)
            return f"{source}:{lines[i] if lines is not None else i + 1}"

        items: list[PoolEntryIn] = []
        for i, e in enumerate(entries):
            if isinstance(e, PoolEntryIn):
                items.append(e)
            else:
                items.append(validated(PoolEntryIn, where(i), topic=e[0], doc=e[1]))
        if not items:
            raise StoreError(f"{source}: the pool is empty")

        digest = hashlib.sha256(("\n".join(sorted(f"{e.topic}\t{e.doc}" for e in items))
                                 + digest_salt).encode()).hexdigest()
        with self.write() as s, s.begin():
            c = self.collection_row(s, collection)
            topics = self.topic_ids(s, c.id)
            docs = self.doc_ids(s, c.id)
            same = s.execute(select(col(PoolRow.name)).where(col(PoolRow.collection_id) == c.id,
                                                     col(PoolRow.digest) == digest)).first()
            if same:
                raise StoreError(f"{source}: the same pool (the same entries) is already "
                                 f"imported as {same[0]!r}; nothing was changed")
            if s.execute(select(col(PoolRow.id)).where(col(PoolRow.collection_id) == c.id,
                                                  col(PoolRow.name) == name)).first():
                raise StoreError(f"{source}: another pool is already named {name!r}; give "
                                 "this one its own name (--name); nothing was changed")
            new_docs: dict[str, Document] = {}
            seen: set[tuple[str, str]] = set()
            for i, e in enumerate(items):
                if e.topic not in topics:
                    raise StoreError(f"{where(i)}: unknown topic {e.topic!r} (the collection "
                                     f"has {len(topics)} topics); nothing was imported")
                if (e.topic, e.doc) in seen:
                    raise StoreError(f"{where(i)}: topic {e.topic!r} document {e.doc!r} is "
                                     "pooled twice; nothing was imported")
                seen.add((e.topic, e.doc))
                if e.doc not in docs and e.doc not in new_docs:
                    doc = lookup(e.doc) if lookup is not None else None
                    if doc is None:
                        raise StoreError(f"{where(i)}: unknown document {e.doc!r} (not in the "
                                         "database nor the collection); nothing was imported")
                    new_docs[e.doc] = doc
            pool = PoolRow(collection_id=stored(c.id), name=name, strategy=strategy,
                           params_json=json.dumps(dict(params or {}), sort_keys=True),
                           digest=digest, created_at=now())
            s.add(pool)
            s.flush()
            added = self._insert_documents(s, c.id, new_docs.values(), docs)
            docs = self.doc_ids(s, c.id) if added else docs
            rows = [dict(pool_id=pool.id, topic_id=topics[e.topic], document_id=docs[e.doc],
                         priority=e.priority, provenance_json=json.dumps(e.provenance))
                    for e in items]
            conn = s.connection()
            bulk_insert(conn, PoolEntryRow, rows)
        return PoolSummary(name, len(items), len({e.topic for e in items}), added)

    def pool_names(self) -> list[str]:
        with self.read() as s:
            return list(s.execute(select(col(PoolRow.name)).order_by(col(PoolRow.id))).scalars())

    # -- assessors and assignments -------------------------------------------------------
    def add_assessor(self, name: str, role: str = "assessor", kind: str = "human") -> None:
        with self.write() as s, s.begin():
            self.ensure_assessors(s, [name], role, kind)

    @staticmethod
    def ensure_assessors(s: Session, names: Iterable[str], role: str = "assessor",
                         kind: str = "human") -> dict[str, int]:
        """Create the assessors that do not exist yet, inside the caller's transaction.

        New ones get ``role`` and ``kind`` ("human" or "automatic"); existing ones are
        left as they are (callers that care check :meth:`kinds` first).
        """
        have = {n: i for n, i in s.execute(select(col(AssessorRow.name), col(AssessorRow.id)))}
        new = [n for n in dict.fromkeys(names) if n not in have]
        if new and kind == "human":
            _check_logins(s, new, role)
        for name in names:
            if name not in have:
                row = AssessorRow(name=name, role=role, kind=kind, created_at=now())
                s.add(row)
                s.flush()
                have[name] = row.id
        return have

    def assessors(self, role: str | None = None, kind: str | None = None) -> list[str]:
        """Everyone's names, or only those with ``role`` ("assessor", "lead") and
        ``kind`` ("human", "automatic"), sorted."""
        q = select(col(AssessorRow.name)).order_by(col(AssessorRow.name))
        if role is not None:
            q = q.where(col(AssessorRow.role) == role)
        if kind is not None:
            q = q.where(col(AssessorRow.kind) == kind)
        with self.read() as s:
            return list(s.execute(q).scalars())

    def kinds(self) -> dict[str, str]:
        """Each assessor's kind ("human" or "automatic"), by name."""
        with self.read() as s:
            return dict(s.execute(select(col(AssessorRow.name), col(AssessorRow.kind))).all())


def integrity_error(exc: IntegrityError, where: str) -> StoreError:
    """A database constraint refused a write: one line, the database unchanged."""
    return StoreError(f"{where}: refused by the database ({str(exc.orig).splitlines()[0]}); "
                      "nothing was changed")


def open_error(exc: DBAPIError, where: str) -> StoreError:
    """The database could not be opened or read: one line saying which and why."""
    reason = str(exc.orig).strip().splitlines()[0] if str(exc.orig).strip() else type(
        exc.orig).__name__
    if "file is not a database" in reason:
        return StoreError(f"{where} is not a SQLite database (file is not a database)")
    if "disk I/O error" in reason and os.path.isdir(where):
        # what SQLite says of a directory given as the database file
        return StoreError(f"{where} is a directory, not a database file")
    return StoreError(f"cannot open the database {where}: {reason}")


def _check_logins(s: Session, names: Sequence[str], role: str) -> None:
    """Refuse a new person whose name can never be their PostgreSQL login role.

    On a team database (``relkit team init`` ran) with its role prefix; on another
    PostgreSQL database, what no prefix can mend. Otherwise every later ``team init``
    would fail on the name, and no one new would get a login. SQLite has no logins.
    """
    from sqlalchemy import text

    from relkit.judging.store.logins import login_problem

    if s.get_bind().dialect.name != "postgresql":
        return
    prefix = None
    if s.execute(text("SELECT to_regprocedure('relkit_role_prefix()') IS NOT NULL")).scalar():
        prefix = str(s.execute(text("SELECT relkit_role_prefix()")).scalar_one())
    for name in names:
        why = login_problem(prefix, name)
        if why:
            raise StoreError(f"{role} {name!r} cannot have a database login ({why}); choose "
                             "another name; nothing was changed")
