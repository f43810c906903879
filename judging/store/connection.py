"""Engine factory: where the judging database is and how connections behave.

Never a module-level engine: the CLI, the TUI and the tests each build theirs
with :func:`make_engine`. SQLite (the default, a file in the working
directory) is set up so that a judgment is durable once ``commit`` returns:

- ``journal_mode=WAL``: readers never block the writer, and a killed writer
  leaves the last committed state (the WAL is replayed on the next open).
- ``synchronous=FULL``: the WAL is fsynced at every commit, so a committed
  judgment survives an OS crash or power cut too, not only a killed process
  (NORMAL would be enough for the latter; a judgment is worth the fsync).
- ``foreign_keys=ON`` (SQLite's default is off, per connection).
- ``busy_timeout``: concurrent assessors wait for the write lock instead of
  failing; write transactions start with ``BEGIN IMMEDIATE`` so two writers
  never deadlock upgrading a read lock (SQLite would fail one with SQLITE_BUSY
  at once, whatever the timeout).

PostgreSQL (``postgresql://...``, driver psycopg 3) needs nothing special: the
store's writes are single upserts, atomic under READ COMMITTED.

``make_engine(db, readonly=True)`` is what the read commands (``status``,
``export``, ``agree``...) use: SQLite opens the file with ``mode=ro`` (and
``query_only``), sets no journal mode and never creates the file; PostgreSQL
sessions start with ``default_transaction_read_only``. Nothing a reader does can
write (SQLite may still create the empty ``-wal``/``-shm`` companions of a WAL
database, which it needs to read one; the database file itself is untouched).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from sqlalchemy import Engine, create_engine, event
from sqlalchemy.engine import URL, make_url
from sqlalchemy.exc import ArgumentError, NoSuchModuleError

from relkit.metrics.core.errors import RelkitError

DEFAULT_DB = "relkit.db"
ENV_VAR = "RELKIT_DB"
WRITE = "relkit_write"
WAL = "relkit_wal"  # connection-record info: the connection is in WAL mode
SUPPORTED = ("a SQLite file path (or sqlite:///PATH) or a postgresql://USER@HOST/DB URL")


class DatabaseError(RelkitError):
    """The database cannot be opened or is not a relkit database."""


def resolve_url(db: str | os.PathLike[str] | None = None) -> str | URL:
    """A SQLAlchemy URL from ``--db``, ``$RELKIT_DB`` or the default file.

    A plain path means a SQLite file (any characters, ``?`` and ``#`` too);
    ``postgresql://`` URLs use psycopg 3.
    """
    raw = os.fspath(db) if db is not None else os.environ.get(ENV_VAR) or DEFAULT_DB
    if "://" not in raw:
        return URL.create("sqlite", database=str(Path(raw).expanduser().resolve()))
    if raw.startswith(("postgresql://", "postgres://")):
        return "postgresql+psycopg://" + raw.split("://", 1)[1]
    return raw


def describe(url: str | URL) -> str:
    """The database as a person names it: the SQLite file's path, or the URL sans password."""
    parsed = make_url(url) if isinstance(url, str) else url
    if parsed.get_backend_name() == "sqlite":
        return parsed.database or ":memory:"
    return parsed.render_as_string(hide_password=True).replace("+psycopg://", "://", 1)


def sqlite_path(engine: Engine) -> str | None:
    """The file of a SQLite engine (``None``: in memory, or not SQLite)."""
    if engine.url.get_backend_name() != "sqlite":
        return None
    path = describe(engine.url)
    return None if path in ("", ":memory:") else path


def _sqlite_setup(engine: Engine, readonly: bool = False) -> None:
    @event.listens_for(engine, "connect")
    def _connect(dbapi_conn: Any, _record: Any) -> None:
        # Take transaction control from the driver so BEGIN is ours (see module doc).
        dbapi_conn.isolation_level = None
        cur = dbapi_conn.cursor()
        cur.execute("PRAGMA busy_timeout = 60000")
        if readonly:
            cur.execute("PRAGMA query_only = ON")
        else:
            mode = cur.execute("PRAGMA journal_mode = WAL").fetchone()
            # WAL may not take (a file system without shared memory): then a commit at
            # synchronous=NORMAL could corrupt the file on a power cut, so the one
            # commit that skips the fsync (adaptive.py's item) asks for this first.
            _record.info[WAL] = bool(mode) and str(mode[0]).lower() == "wal"
            cur.execute("PRAGMA synchronous = FULL")
        cur.execute("PRAGMA foreign_keys = ON")
        cur.close()

    @event.listens_for(engine, "begin")
    def _begin(conn: Any) -> None:
        write = conn.get_execution_options().get(WRITE, False)
        conn.exec_driver_sql("BEGIN IMMEDIATE" if write else "BEGIN")


def make_engine(db: str | os.PathLike[str] | None = None, *, echo: bool = False,
                readonly: bool = False) -> Engine:
    """Build an engine for ``db`` (a path, a URL, or ``None`` for the default).

    The returned engine reads; ``engine.execution_options(relkit_write=True)``
    gives the one that writes (``BEGIN IMMEDIATE`` on SQLite). With ``readonly``
    no connection can write at all (see the module doc).
    """
    url = resolve_url(db)
    try:
        parsed = url if isinstance(url, URL) else make_url(url)
    except Exception as exc:  # sqlalchemy.exc.ArgumentError: say which value was wrong
        raise DatabaseError(f"--db {db!s}: not a database path or URL ({exc}); "
                            f"relkit takes {SUPPORTED}") from None
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise DatabaseError(f"--db {describe(parsed)}: relkit does not support "
                            f"{backend!r} databases; it takes {SUPPORTED}")
    if backend == "sqlite":
        database = parsed.database or ""
        if database and database != ":memory:":
            parent = Path(database).parent
            if not parent.is_dir():
                raise DatabaseError(f"--db {db}: directory {parent} does not exist")
        try:
            if readonly and database and database != ":memory:":
                # The URI form: mode=ro never creates nor writes the file.
                import sqlite3
                from urllib.parse import quote

                uri = f"file:{quote(database)}?mode=ro"
                engine = create_engine("sqlite://", echo=echo, creator=lambda: sqlite3.connect(
                    uri, uri=True, timeout=60, check_same_thread=False))
                engine.url = URL.create("sqlite", database=database)
            else:
                engine = create_engine(url, echo=echo, connect_args={"timeout": 60})
        except (NoSuchModuleError, ArgumentError) as exc:
            raise DatabaseError(f"--db {describe(parsed)}: {exc}; relkit takes "
                                f"{SUPPORTED}") from None
        _sqlite_setup(engine, readonly)
        return engine
    args = {"options": "-c default_transaction_read_only=on"} if readonly else {}
    try:
        return create_engine(url, echo=echo, pool_pre_ping=True, connect_args=args)
    except ModuleNotFoundError as exc:
        raise DatabaseError(f"--db {describe(parsed)}: the "
                            f"driver is not installed ({exc.name}); "
                            "pip install 'relkit[postgres]'") from None
    except (NoSuchModuleError, ArgumentError) as exc:
        raise DatabaseError(f"--db {describe(parsed)}: {exc}; relkit takes "
                            f"{SUPPORTED}") from None


def writer(engine: Engine) -> Engine:
    """The same engine, but its transactions take the write lock up front."""
    return engine.execution_options(**{WRITE: True})
