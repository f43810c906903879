"""Schema versions: create or upgrade a judging database with Alembic.

Every open goes through :func:`upgrade`, so a database made by an older relkit
opens with a newer one (its data migrated in place, in one transaction on
PostgreSQL; SQLite's DDL is transactional too). A database newer than this
relkit is refused rather than guessed at.
"""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import Engine, inspect

from relkit.judging.engine import DatabaseError, writer

MIGRATIONS = Path(__file__).with_name("migrations")


def _config() -> Config:
    cfg = Config()
    cfg.set_main_option("script_location", str(MIGRATIONS))
    return cfg


def head() -> str:
    """The newest schema revision this relkit knows."""
    rev = ScriptDirectory.from_config(_config()).get_current_head()
    assert rev is not None
    return rev


def current(engine: Engine) -> str | None:
    """The database's schema revision (``None`` for an empty database)."""
    with engine.connect() as conn:
        return MigrationContext.configure(conn).get_current_revision()


def upgrade(engine: Engine, revision: str = "head") -> None:
    """Bring the database to ``revision`` (creating it when empty)."""
    script = ScriptDirectory.from_config(_config())
    rev = current(engine)
    if rev is not None and rev not in {s.revision for s in script.walk_revisions()}:
        raise DatabaseError(f"the database is at schema revision {rev}, which this relkit "
                            "does not know; it was made by a newer relkit: upgrade relkit")
    with engine.connect() as probe:
        tables = set(inspect(probe).get_table_names())
    if rev is None and tables - {"alembic_version"}:
        raise DatabaseError("the database has tables but no relkit schema version: "
                            "it is not a relkit judging database")
    cfg = _config()
    with writer(engine).begin() as conn:
        cfg.attributes["connection"] = conn
        command.upgrade(cfg, revision)
