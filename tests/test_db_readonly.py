"""Reading never writes; upgrading is explicit and never risks a judgment (issue 23, A).

Read commands (status, export, disagreements, agree --db, db check) open the database
read-only and never migrate it: the file's bytes are the same afterwards, an empty file
stays empty, and a database made by an older relkit stays at its revision. Upgrading
(``relkit db upgrade`` or the first write command, which says so) takes a SQLite backup
first and keeps it until the upgrade has committed.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from sqlalchemy import text

from helpers import run_cli
from relkit.judging.store.connection import make_engine
from relkit.judging.store.migrate import current, head
from store_helpers import make_project, old_database

READS = [["status"], ["status", "--format", "json"], ["export", "qrels"],
         ["export", "jsonl"], ["disagreements"], ["agree", "--replicates", "0"],
         ["db", "check"]]


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def revision_of(url: str) -> str | None:
    engine = make_engine(url, readonly=True)
    try:
        return current(engine)
    finally:
        engine.dispose()


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_read_commands_leave_the_file_byte_for_byte(tmp_path: Path, args: list[str]) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db), overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d04", grade=2)
    store.assessor("bob").record(topic="1", doc="d04", grade=0)
    store.close()
    before = digest(db)
    code, _, err = run_cli([*args, "--db", str(db)])
    assert code == 0, err
    assert digest(db) == before


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_empty_file_is_no_database_and_stays_empty(tmp_path: Path, args: list[str]) -> None:
    db = tmp_path / "z.db"
    db.touch()
    code, _, err = run_cli([*args, "--db", str(db)])
    assert code == 1
    assert err.count("\n") == 1 and f"no judging database at {db}" in err
    assert db.stat().st_size == 0


def test_missing_file_is_not_created(tmp_path: Path) -> None:
    db = tmp_path / "none.db"
    for args in READS:
        code, _, err = run_cli([*args, "--db", str(db)])
        assert code == 1 and f"no judging database at {db}" in err, args
    assert not db.exists()


@pytest.mark.parametrize("args", READS, ids=lambda a: " ".join(a))
def test_old_database_stays_old_after_reading(db_url: str, args: list[str]) -> None:
    old_database(db_url)
    path = Path(db_url) if "://" not in db_url else None
    before = digest(path) if path else None
    code, _, err = run_cli([*args, "--db", db_url])
    assert revision_of(db_url) == "0001"
    if path:
        assert digest(path) == before
    if args == ["db", "check"]:
        assert code == 1 and "FAIL  schema revision: 0001" in run_cli(
            [*args, "--db", db_url])[1]
        return
    assert code == 1 and err.count("\n") == 1, err
    assert "schema revision 0001" in err and "relkit db upgrade" in err


def test_first_write_command_upgrades_and_says_so(db_url: str) -> None:
    old_database(db_url)
    code, _, err = run_cli(["assign", "ann", "--db", db_url])
    assert f"upgrading {db_url if '://' not in db_url else ''}" in err
    assert "from schema revision 0001 to" in err
    assert code == 1 and "no pool imported yet" in err  # the command itself then ran
    assert revision_of(db_url) == head()


def test_db_upgrade_keeps_the_data_and_drops_the_backup_after_commit(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    old_database(str(db))
    code, _, err = run_cli(["db", "upgrade", "--db", str(db)])
    assert code == 0, err
    assert "upgrading" in err and "backed up" in err
    assert revision_of(str(db)) == head()
    assert not list(tmp_path.glob("old.db.*bak*"))  # committed: the backup is gone
    code, out, err = run_cli(["db", "check", "--db", str(db)])
    assert code == 0, err
    assert "FAIL" not in out and "ok    integrity_check: ok" in out
    code, _, err = run_cli(["db", "upgrade", "--db", str(db)])
    assert code == 0 and "already at schema revision" in err


def test_db_upgrade_keep_backup(tmp_path: Path) -> None:
    db = tmp_path / "old.db"
    old_database(str(db))
    code, _, err = run_cli(["db", "upgrade", "--keep-backup", "--db", str(db)])
    assert code == 0, err
    (bak,) = tmp_path.glob("old.db.*.bak")
    assert revision_of(str(bak)) == "0001"
    assert revision_of(str(db)) == head()


def test_failed_upgrade_keeps_the_backup_and_the_database(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:

    db = tmp_path / "old.db"
    old_database(str(db))
    seen: list[Path] = []

    def boom(cfg: object, revision: str) -> None:
        seen.extend(tmp_path.glob("old.db.*.bak"))  # the backup exists before any change
        conn = cfg.attributes["connection"]  # type: ignore[attr-defined]
        conn.execute(text("UPDATE topic SET key = 'changed'"))  # a half-done migration
        raise RuntimeError("disk on fire")

    import alembic.command  # imported by relkit.judging.store.migrate only to migrate

    monkeypatch.setattr(alembic.command, "upgrade", boom)
    code, _, err = run_cli(["db", "upgrade", "--db", str(db)])
    assert code == 1 and err.count("\n") == 3, err  # upgrading, backed up, the error
    assert seen and "disk on fire" in err and str(seen[0]) in err
    assert seen[0].exists()
    for url in (str(db), str(seen[0])):
        assert revision_of(url) == "0001"
        engine = make_engine(url, readonly=True)
        with engine.connect() as conn:
            assert conn.execute(text("SELECT key FROM topic")).scalar() == "007"
        engine.dispose()


def test_db_check_reports_a_broken_invariant(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db), overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d04", grade=2)
    with store.writer.begin() as conn:
        conn.execute(text("DROP TRIGGER judgment_history_no_update"))
    store.close()
    code, out, err = run_cli(["db", "check", "--db", str(db)])
    assert code == 1 and err.count("\n") == 1 and "1 of" in err
    assert "FAIL  append-only history" in out
    assert "ok    judgment history" in out


def test_not_sqlite_and_foreign_files_are_one_line(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"hello, this is not a database at all" * 20)
    other = tmp_path / "other.db"
    import sqlite3

    con = sqlite3.connect(other)
    con.execute("CREATE TABLE stuff (x INTEGER)")
    con.commit()
    con.close()
    for path, msg in ((junk, f"{junk} is not a SQLite database"),
                      (other, f"{other} has tables but no relkit schema version")):
        before = digest(path)
        for args in [*READS, ["pool", "--into", str(path), str(junk)],
                     ["db", "upgrade"], ["assign", "ann"]]:
            full = args if "--into" in args else [*args, "--db", str(path)]
            code, _, err = run_cli(full)
            assert code == 1 and err.count("\n") == 1 and "Traceback" not in err, (args, err)
            if "--into" not in args:
                assert msg in err, (args, err)
        assert digest(path) == before


def test_unsupported_urls_say_what_is_supported() -> None:
    for url in ("mysql+nodriver://u@h/d", "postgresql+nodriver://u@h/d", "oracle://h/d"):
        code, _, err = run_cli(["status", "--db", url])
        assert code == 1 and err.count("\n") == 1, err
        assert "postgresql://" in err and "SQLite" in err


def test_unreachable_postgresql_is_one_line() -> None:
    code, _, err = run_cli(["status", "--db", "postgresql://nobody@127.0.0.1:1/none"])
    assert code == 1 and err.count("\n") == 1, err
    assert "postgresql://nobody@127.0.0.1:1/none" in err


def test_db_check_passes_on_a_fresh_project(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d04", grade=2)
    store.close()
    code, out, err = run_cli(["db", "check", "--db", db_url])
    assert code == 0, (out, err)
    assert "FAIL" not in out and "ok    append-only history" in out
    assert revision_of(db_url) == head()


def test_postgresql_reads_are_read_only_transactions(db_url: str) -> None:
    if "://" not in db_url:
        pytest.skip("PostgreSQL only")
    from sqlalchemy.exc import DBAPIError

    make_project(db_url).close()
    engine = make_engine(db_url, readonly=True)
    with engine.connect() as conn, pytest.raises(DBAPIError, match="read-only"):
        conn.execute(text("DELETE FROM judgment_history"))
    engine.dispose()


def test_upgrade_without_a_backup_does_not_start(tmp_path: Path) -> None:
    from relkit.judging.store.migrate import backup_path

    db = tmp_path / "old.db"
    old_database(str(db))
    backup_path(str(db), "0001").mkdir()  # the backup cannot be written there
    before = digest(db)
    code, _, err = run_cli(["db", "upgrade", "--db", str(db)])
    assert code == 1 and "Traceback" not in err
    assert "cannot back up" in err.splitlines()[-1] and "nothing was changed" in err
    assert revision_of(str(db)) == "0001" and digest(db) == before


def test_judge_is_a_write_command_that_says_it_upgrades(tmp_path: Path) -> None:
    db = str(tmp_path / "old.db")
    old_database(db)
    code, _, err = run_cli(["judge", "--db", db])   # no --assessor: refused after opening
    assert "from schema revision 0001 to" in err, err
    assert code != 0
    assert revision_of(db) == head()
