"""Schema versions: an older database opens with a newer relkit, data intact."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from relkit.judging.store.assign import Store
from relkit.judging.store.connection import DatabaseError, make_engine
from relkit.judging.store.migrate import current, head, upgrade
from store_helpers import make_project, old_database


def test_database_at_first_revision_upgrades_with_its_data(db_url: str) -> None:
    # Data written the way relkit 0001 would have (raw SQL: the ORM is at head).
    old_database(db_url, "0001")
    engine = make_engine(db_url)
    assert current(engine) == "0001"
    engine.dispose()
    store = Store.open(db_url)  # upgrades to head
    assert current(store.engine) == head() != "0001"
    assert store.scale().values == (0, 1)
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT key FROM topic")).scalar() == "007"


def test_upgrade_is_idempotent(db_url: str) -> None:
    store = make_project(db_url)
    upgrade(store.engine)
    upgrade(store.engine)
    assert current(store.engine) == head()
    assert store.assessor("ann").topics()


def test_newer_or_foreign_databases_are_refused(db_url: str) -> None:
    store = make_project(db_url)
    with store.writer.begin() as conn:
        conn.execute(text("UPDATE alembic_version SET version_num = '9999'"))
    with pytest.raises(DatabaseError, match="made by a newer relkit"):
        upgrade(store.engine)


def test_foreign_sqlite_database_refused(tmp_path: object) -> None:
    from pathlib import Path

    path = Path(str(tmp_path)) / "other.db"
    engine = make_engine(path)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE stuff (x INTEGER)"))
    with pytest.raises(DatabaseError, match="not a relkit judging database"):
        upgrade(engine)


def test_sqlite_pragmas(tmp_path: object) -> None:
    from pathlib import Path

    engine = make_engine(Path(str(tmp_path)) / "p.db")
    with engine.connect() as conn:
        assert conn.execute(text("PRAGMA journal_mode")).scalar() == "wal"
        assert conn.execute(text("PRAGMA foreign_keys")).scalar() == 1
        assert conn.execute(text("PRAGMA synchronous")).scalar() == 2  # FULL


def test_missing_directory_is_a_clear_error(tmp_path: object) -> None:
    with pytest.raises(DatabaseError, match="does not exist"):
        make_engine(f"{tmp_path}/nope/x.db")
