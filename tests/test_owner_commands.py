"""Commands only the database's owner runs refuse a person, in one line, writing nothing.

On PostgreSQL after ``relkit team init`` the database refuses a person's login these
writes (tests/test_team_rls.py); on SQLite, which has no users, ``$RELKIT_USER`` names
the person and the commands refuse the same (docs/team.md): before this, ann could
issue herself bob's token, revoke carol's, import grades as bob, assign people and
pool into the database.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from relkit.judging.store.adjudication import register_leads
from relkit.judging.store.assign import Store
from store_helpers import make_project

SAMPLE = Path(__file__).resolve().parents[1] / "corpora" / "sample"


@pytest.fixture
def team_db(tmp_path: Path) -> str:
    path = str(tmp_path / "team.db")
    store = make_project(path)
    register_leads(store, ["carol"])
    store.close()
    return path


def snapshot(db: str) -> tuple[object, ...]:
    """What the owner-only commands change: people, assignments, tokens, pools, judgments."""
    import sqlite3

    with sqlite3.connect(db) as c:
        return tuple(tuple(c.execute(f"SELECT * FROM {t} ORDER BY 1").fetchall())  # noqa: S608
                     for t in ("assessor", "assignment", "access_token", "pool",
                               "judgment", "judgment_history", "collection"))


def commands(tmp_path: Path, db: str) -> list[list[str]]:
    qrels = tmp_path / "bob.qrels"
    qrels.write_text("1 0 d00 2\n")
    run = tmp_path / "run.txt"
    run.write_text("1 Q0 d01 1 9.0 sys\n1 Q0 d02 2 8.0 sys\n")
    return [
        ["token", "issue", "bob", "--db", db],
        ["token", "revoke", "carol", "--db", db],
        ["import", "judgments", str(qrels), "--assessor", "bob", "--db", db],
        ["assign", "dave", "--db", db],
        ["pool", str(run), "--depth", "2", "--into", db],
        ["init", "--topics", str(SAMPLE / "topics.trec"), "--docs", str(SAMPLE / "docs.jsonl"),
         "--db", db],
    ]


@pytest.mark.parametrize("person", ["ann", "carol"])
def test_owner_commands_refuse_a_person_on_sqlite(tmp_path: Path, team_db: str, person: str,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELKIT_USER", person)
    before = snapshot(team_db)
    for cmd in commands(tmp_path, team_db):
        code, out, err = run_cli(cmd)
        assert code == 1, (cmd, code, out, err)
        assert len(err.strip().splitlines()) == 1, (cmd, err)
        assert f"{person} ($RELKIT_USER)" in err and "owner" in err, (cmd, err)
        assert out == "", (cmd, out)
    assert snapshot(team_db) == before


def test_the_owner_still_runs_them(tmp_path: Path, team_db: str,
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("RELKIT_USER", raising=False)
    code, out, err = run_cli(["token", "issue", "bob", "--db", team_db])
    assert code == 0 and out.strip(), err
    code, _, err = run_cli(["assign", "dave", "--db", team_db])
    assert code == 0, err
    store = Store.open(team_db, create=False)
    try:
        assert "dave" in store.assessors()
    finally:
        store.close()


def test_a_refusal_does_not_upgrade_an_older_database(tmp_path: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening for writing upgrades an older schema (with a backup): a person's owner
    command is refused before that, in one line."""
    from store_helpers import old_database

    db = str(tmp_path / "old.db")
    old_database(db, "0005")
    before = Path(db).read_bytes()
    monkeypatch.setenv("RELKIT_USER", "ann")
    for cmd in (["token", "issue", "bob", "--db", db], ["assign", "dave", "--db", db]):
        code, out, err = run_cli(cmd)
        assert code == 1 and len(err.splitlines()) == 1, (cmd, err)
        assert "ann ($RELKIT_USER)" in err and "upgrading" not in err, err
    assert Path(db).read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["old.db"]
