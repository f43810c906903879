"""`relkit db upgrade` on a SQLite file with damaged pages: refused, the file untouched.

It used to say "already at schema revision" and exit 0 while `relkit db check` exited 1
(and an older damaged file was backed up and migrated). The damage here is real, in the
file's bytes, as a failing disk or a bad copy leaves it: one bit of an index page
flipped; the schema and ``alembic_version`` pages stay readable, so the revision is
read as before.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from helpers import run_cli
from store_helpers import make_project


def _damage(db: Path) -> None:
    """Flip one bit in an entry of the index ``ix_judgment_pair`` (its page's last byte):
    the page still reads, but the index no longer matches its table, which is what
    ``integrity_check`` reports ("row 1 missing from index ix_judgment_pair")."""
    con = sqlite3.connect(db)
    try:
        size = con.execute("PRAGMA page_size").fetchone()[0]
        root = con.execute("SELECT rootpage FROM sqlite_master WHERE type = 'index' "
                           "AND name = 'ix_judgment_pair'").fetchone()[0]
    finally:
        con.close()
    assert not Path(f"{db}-wal").exists() or Path(f"{db}-wal").stat().st_size == 0
    with open(db, "r+b") as fp:
        fp.seek(root * size - 1)
        byte = fp.read(1)[0]
        fp.seek(root * size - 1)
        fp.write(bytes([byte ^ 0x01]))


def _project(tmp_path: Path, revision: str | None = None) -> Path:
    db = tmp_path / "p.db"
    store = make_project(str(db), overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d04", grade=2)
    if revision is not None:
        from alembic import command

        from relkit.judging.store.connection import writer
        from relkit.judging.store.migrate import _config

        cfg = _config()
        with writer(store.engine).begin() as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, revision)
    store.close()
    _damage(db)
    return db


@pytest.mark.parametrize("revision", [None, "0006"], ids=["at-head", "older"])
def test_db_upgrade_refuses_a_damaged_file_and_leaves_it_as_it_was(
        tmp_path: Path, revision: str | None) -> None:
    db = _project(tmp_path, revision)
    code, out, _ = run_cli(["db", "check", "--db", str(db)])
    assert code == 1 and "FAIL  integrity_check" in out, out   # what db check says
    before = db.read_bytes()
    code, out, err = run_cli(["db", "upgrade", "--db", str(db)])
    assert code == 1, out + err
    assert len(err.splitlines()) == 1 and "damaged" in err and str(db) in err, err
    assert "already at" not in err + out
    assert db.read_bytes() == before
    assert not list(tmp_path.glob("*.bak*"))       # no backup taken: nothing was started


def test_a_write_command_does_not_upgrade_a_damaged_file(tmp_path: Path) -> None:
    from relkit.judging.store.assign import Store
    from relkit.judging.store.connection import DatabaseError

    db = _project(tmp_path, "0006")
    before = db.read_bytes()
    with pytest.raises(DatabaseError, match="damaged"):
        Store.open(str(db))     # a write open upgrades an older database: not this one
    assert db.read_bytes() == before
