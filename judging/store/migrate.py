"""Schema versions: create or upgrade a judging database with Alembic.

Reading never upgrades: a read command opens the database read-only and refuses
one at an older revision (``run `relkit db upgrade```). Upgrading is explicit
(``relkit db upgrade``) or done by the first write command, which says so; either
way it goes through :func:`upgrade_safely`: on SQLite a consistent copy of the
database is taken first (sqlite3's online backup API, inside the upgrade's own
write transaction, so the copy is exactly the state being upgraded) and kept
until the upgrade has committed; the migration itself is one transaction (on
PostgreSQL and on SQLite, whose DDL is transactional). A database newer than
this relkit is refused rather than guessed at.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from alembic.config import Config

from sqlalchemy import Connection, Engine, inspect, text

from relkit.judging.store.connection import DatabaseError, describe, sqlite_path, writer
from relkit.judging.store.revisions import MIGRATIONS, graph, head, known


def _config() -> Config:
    # Alembic is imported only to migrate: opening a database at the current revision
    # (every `relkit judge`, `status`...) reads the revision without it (~0.1 s of start-up).
    from alembic.config import Config

    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


# The revisions are read from the scripts' text (no Alembic): revisions.py, shared with
# the light reader that draws `relkit judge`'s first screen before SQLAlchemy is imported.
_graph = graph


def current(engine: Engine) -> str | None:
    """The database's schema revision (``None`` for an empty database)."""
    with engine.connect() as conn:
        if not inspect(conn).has_table("alembic_version"):
            return None
        row = conn.execute(text("SELECT version_num FROM alembic_version")).first()
        return None if row is None else str(row[0])


def check(engine: Engine) -> str | None:
    """The database's revision (``None``: empty), or an error for one relkit cannot use.

    Refused: a revision this relkit does not know (made by a newer relkit) and a
    database with tables but no relkit schema version (another program's).
    """
    where = describe(engine.url)
    rev = current(engine)
    if rev is not None and rev not in known():
        raise DatabaseError(f"{where} is at schema revision {rev}, which this relkit "
                            "does not know; it was made by a newer relkit: upgrade relkit")
    if rev is None:
        with engine.connect() as probe:
            tables = set(inspect(probe).get_table_names())
        if tables - {"alembic_version"}:
            raise DatabaseError(f"{where} has tables but no relkit schema version: "
                                "it is not a relkit judging database")
    return rev


def upgrade(engine: Engine, revision: str = "head", *,
            backup: Callable[[Any], None] | None = None) -> None:
    """Bring the database to ``revision`` (creating it when empty), in one transaction.

    ``backup``, if given, is called with the DB-API connection once the write lock
    is held and before the first migration runs.
    """
    from alembic import command

    check(engine)
    cfg = _config()
    with writer(engine).begin() as conn:
        if backup is not None:
            backup(conn.connection.dbapi_connection)
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)


def backup_path(path: str, rev: str | None) -> Path:
    """Where the copy of a SQLite database taken before an upgrade goes."""
    return Path(f"{path}.before-{rev or 'empty'}-to-{head()}.bak")


def integrity_rows(conn: Connection) -> list[str]:
    """SQLite's ``PRAGMA integrity_check`` on ``conn``: ``["ok"]``, or what it found.

    A file too damaged for the check to finish ("malformed") gives that error's first
    line as the one finding, not an error: for ``relkit db check`` it is a FAIL, for
    ``relkit db upgrade`` a damaged file (:func:`refuse_damaged`), not a database that
    "cannot be opened". Any other database error is raised.
    """
    from sqlalchemy.exc import DBAPIError

    try:
        return [str(r[0]) for r in conn.execute(text("PRAGMA integrity_check")).all()]
    except DBAPIError as exc:
        if "malformed" not in str(exc.orig):
            raise
        return [_first_line(exc)]


def refuse_damaged(engine: Engine) -> None:
    """Raise :class:`DatabaseError` (one line) if SQLite's ``integrity_check`` finds damage.

    An upgrade rewrites tables (and its backup copies pages): on damaged pages it would
    carry the damage into the new schema, or stop halfway through with an error about
    something else. Read only (PostgreSQL has no such check: nothing to do there).
    """
    if sqlite_path(engine) is None:
        return
    with engine.connect() as conn:
        rows = integrity_rows(conn)
    if rows != ["ok"]:
        more = f" (and {len(rows) - 1} more)" if len(rows) > 1 else ""
        raise DatabaseError(f"{describe(engine.url)} is damaged (integrity_check: {rows[0]}"
                            f"{more}); nothing was upgraded: restore it from a copy "
                            "(`relkit db check` lists what failed)")


def upgrade_safely(engine: Engine, *, keep_backup: bool = False,
                   notify: Callable[[str], None] | None = None,
                   checked: bool = False) -> Path | None:
    """Upgrade to head; on SQLite with a backup kept until the upgrade has committed.

    A damaged SQLite file is refused before anything is written (:func:`refuse_damaged`;
    ``checked``: the caller ran it already). Returns the backup's path if it is kept
    (``keep_backup``), else ``None``. If the upgrade fails the database is as it was
    (one transaction) and the backup stays where the error says.
    """
    rev = check(engine)
    if rev == head():
        return None
    if rev is not None and not checked:
        refuse_damaged(engine)
    if rev is not None:
        owner = _owner_unless_me(engine)
        if owner is not None:  # an assessor's or a lead's login (relkit team init)
            raise DatabaseError(f"{describe(engine.url)} is at schema revision {rev}, older "
                                f"than this relkit's {head()}, and only its owner ({owner}) "
                                "can upgrade it: ask them to run `relkit db upgrade`")
    path = sqlite_path(engine)
    if path is None or rev is None:  # PostgreSQL: the one transaction is the safety net;
        # an empty database has nothing to lose.
        upgrade(engine)
        return None
    bak = backup_path(path, rev)
    part = bak.with_name(bak.name + ".part")

    def take(_raw: Any) -> None:
        # Called with the write lock held, so no one can commit until the upgrade does:
        # a second, read-only connection copies exactly the state being upgraded (the
        # writing connection itself cannot be a backup's source: SQLITE_LOCKED).
        from urllib.parse import quote

        part.unlink(missing_ok=True)
        src = sqlite3.connect(f"file:{quote(path)}?mode=ro", uri=True, timeout=60)
        dst = sqlite3.connect(part)
        try:
            src.backup(dst)
            dst.execute("PRAGMA journal_mode = DELETE")  # one self-contained file
        finally:
            dst.close()
            src.close()
        with open(part, "rb") as fp:
            os.fsync(fp.fileno())
        os.replace(part, bak)
        if notify is not None:
            notify(f"relkit: backed up {path} to {bak}")

    taken = False

    def take_once(raw: Any) -> None:
        nonlocal taken
        take(raw)
        taken = True

    try:
        upgrade(engine, backup=take_once)
    except Exception as exc:
        part.unlink(missing_ok=True)
        if taken:
            raise DatabaseError(f"upgrading {path} failed ({_first_line(exc)}); the database "
                                f"is unchanged and its copy from before is at {bak}") from exc
        if isinstance(exc, OSError | sqlite3.Error):
            raise DatabaseError(f"cannot back up {path} to {bak} before upgrading it "
                                f"({_first_line(exc)}); nothing was changed") from exc
        raise
    if keep_backup:
        return bak
    bak.unlink()
    return None


def _owner_unless_me(engine: Engine) -> str | None:
    """None if this connection may upgrade the schema; else the tables' owner's name.

    Only the owner of the tables (or a superuser) migrates on PostgreSQL; an assessor's
    login (``relkit team init``) opening an older database gets a line saying so
    instead of a permission error halfway through.
    """
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        row = conn.execute(text(
            "SELECT tableowner, pg_has_role(current_user, tableowner, 'MEMBER') "
            "OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
            "FROM pg_tables WHERE tablename = 'alembic_version' "
            "AND schemaname = current_schema()")).first()
    if row is None or row[1]:
        return None
    return str(row[0])


def _first_line(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip()
    return text.splitlines()[0] if text else type(exc).__name__
