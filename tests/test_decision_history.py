"""A lead's final grades keep their history (issue 32, "every change recorded").

A changed decision appends a row (who, when, the old and the new grade, the reason) to
``adjudication_history``, which no one may update, delete or (PostgreSQL) truncate; the
current decision is the latest row; the same decision again records nothing; `relkit
export jsonl` carries the history; an existing database upgrades with a row per
decision. Every test runs on SQLite and on the real PostgreSQL server.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import select, text
from sqlalchemy.exc import DBAPIError

from helpers import run_cli
from store_helpers import make_project, snapshot


def _jsonl(db: str, tmp_path: Path) -> dict[tuple[str, str], dict[str, object]]:
    out = tmp_path / "dump.jsonl"
    code, _, err = run_cli(["export", "jsonl", "--db", db, "-o", str(out)])
    assert code == 0, err
    recs = [json.loads(line) for line in out.read_text("utf-8").splitlines()]
    return {(r["topic"], r["doc"]): r for r in recs}


def test_a_changed_final_grade_keeps_the_old_one_in_history(db_url: str,
                                                            tmp_path: Path) -> None:
    store = make_project(db_url)
    store.close()
    for grade, note in ((2, "narrative says 2"), (3, "bob was right")):
        code, _, err = run_cli(["adjudicate", "1", "d00", str(grade), "--lead", "lee",
                                "--note", note, "--db", db_url])
        assert code == 0, err
    code, _, err = run_cli(["adjudicate", "1", "d00", "3", "--lead", "lee", "--note",
                            "bob was right", "--db", db_url])     # the same again
    assert code == 0 and "nothing changed" in err, err
    rec = _jsonl(db_url, tmp_path)[("1", "d00")]
    assert rec["adjudication"] == {"grade": 3, "lead": "lee", "note": "bob was right"}
    hist = rec["adjudication_history"]
    assert [(h["lead"], h["old_grade"], h["grade"], h["note"]) for h in hist] == [
        ("lee", None, 2, "narrative says 2"), ("lee", 2, 3, "bob was right")]
    assert hist[0]["recorded_at"] <= hist[1]["recorded_at"]
    # the current decision is the latest history row; an undecided pair has none
    assert (hist[-1]["grade"], hist[-1]["note"]) == (3, "bob was right")
    assert _jsonl(db_url, tmp_path)[("1", "d01")]["adjudication_history"] == []


def test_cli_adjudicate_keeps_the_reason_unless_a_new_one_is_given(db_url: str,
                                                                   tmp_path: Path) -> None:
    """`--note` left out keeps the pair's reason (re-confirming the grade changes
    nothing); a decided pair's grade changes only with the reason for the change."""
    make_project(db_url).close()

    def run(*args: str) -> tuple[int, str]:
        code, _, err = run_cli(["adjudicate", "1", "d00", *args, "--lead", "lee",
                                "--db", db_url])
        return code, err

    code, err = run("2", "--note", "narrative says 2")
    assert code == 0 and "grade 2" in err, err
    code, err = run("2")                                   # re-confirmed, no --note
    assert code == 0 and "nothing changed" in err, err
    rec = _jsonl(db_url, tmp_path)[("1", "d00")]
    assert rec["adjudication"] == {"grade": 2, "lead": "lee", "note": "narrative says 2"}
    assert len(rec["adjudication_history"]) == 1            # type: ignore[arg-type]
    before = _jsonl(db_url, tmp_path)
    for extra in ((), ("--note", ""), ("--note", "  ")):    # a change without its reason
        code, err = run("3", *extra)
        assert code == 2, err
        assert len(err.strip().splitlines()) == 1 and "--note" in err, err
        assert "from 2 to 3" in err and "Traceback" not in err, err
    assert _jsonl(db_url, tmp_path) == before
    code, err = run("3", "--note", "bob was right")
    assert code == 0 and "from 2 to 3" in err, err
    code, err = run("3", "--note", "bob was right, twice")  # only the reason: a change
    assert code == 0 and "reason" in err and "nothing changed" not in err, err
    hist = _jsonl(db_url, tmp_path)[("1", "d00")]["adjudication_history"]
    assert [(h["old_grade"], h["grade"], h["note"]) for h in hist] == [  # type: ignore[union-attr,index]
        (None, 2, "narrative says 2"), (2, 3, "bob was right"), (3, 3, "bob was right, twice")]
    # an undecided pair needs no reason
    code, _, err = run_cli(["adjudicate", "1", "d01", "1", "--lead", "lee", "--db", db_url])
    assert code == 0, err


def test_the_same_decision_again_is_no_change(db_url: str) -> None:
    from relkit.judging.store.decisions import ReasonRequired, adjudicate, decision_history

    store = make_project(db_url)
    assert adjudicate(store, "lee", "1", "d00", 2, "ok").changed is True
    before = snapshot(store)
    assert adjudicate(store, "lee", "1", "d00", 2, "ok").changed is False
    assert adjudicate(store, "lee", "1", "d00", 2, "ok", shown=(None, "")).changed is False
    got = adjudicate(store, "lee", "1", "d00", 2)          # no reason given: it keeps its own
    assert (got.changed, got.note) == (False, "ok")
    assert snapshot(store) == before
    with pytest.raises(ReasonRequired, match="from 2 to 3 needs the reason"):
        adjudicate(store, "lee", "1", "d00", 3)
    assert snapshot(store) == before
    got = adjudicate(store, "lee", "1", "d00", 2, "a better reason")       # a change
    assert (got.changed, got.old_grade, got.old_note) == (True, 2, "ok")
    assert [(h.old_grade, h.grade, h.note) for h in decision_history(store, "1", "d00")] \
        == [(None, 2, "ok"), (2, 2, "a better reason")]


def test_history_tables_refuse_update_delete_and_truncate_even_to_the_owner(
        db_url: str) -> None:
    from relkit.judging.store.reports import adjudicate  # (the older import path: still there)

    store = make_project(db_url, overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d04", grade=2)
    adjudicate(store, "lee", "1", "d04", 1, "why")
    pg = store.engine.dialect.name == "postgresql"
    for table in ("judgment_history", "adjudication_history"):
        statements = [f"UPDATE {table} SET grade = 0", f"DELETE FROM {table}",
                      f"DELETE FROM {table} WHERE id > 0"]
        if pg:  # SQLite has no TRUNCATE; DELETE without WHERE is its nearest
            statements += [f"TRUNCATE {table}", f"TRUNCATE {table} CASCADE"]
        for sql in statements:
            with pytest.raises(DBAPIError, match=f"{table} is append-only"), \
                    store.writer.begin() as conn:   # the owner's own connection
                conn.execute(text(sql))
    if pg:  # emptying what the history points to empties the history: refused too
        with pytest.raises(DBAPIError, match="is append-only"), store.writer.begin() as conn:
            conn.execute(text("TRUNCATE judgment, adjudication CASCADE"))
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM judgment_history")).scalar() == 1
        assert conn.execute(text("SELECT count(*) FROM adjudication_history")).scalar() == 1


def test_upgrade_from_0006_with_decisions(db_url: str) -> None:
    """A database at the previous revision, with decisions in it, upgrades: each
    decision becomes its pair's first history row; the schema equals the models."""
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlmodel import SQLModel

    from relkit.judging.store.assign import Store
    from relkit.judging.store.connection import writer
    from relkit.judging.store.decisions import adjudicate, decision_history
    from relkit.judging.store.migrate import _config, current, head
    from relkit.judging.store.tables import AdjudicationRow

    store = make_project(db_url)
    adjudicate(store, "lee", "1", "d00", 2, "first")
    adjudicate(store, "lee", "1", "d00", 3, "second")
    adjudicate(store, "lee", "007", "d09", 0, "")
    cfg = _config()
    with writer(store.engine).begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0006")
    assert current(store.engine) == "0006"
    with store.engine.connect() as conn:   # typed columns: the time stamps as datetimes
        held = conn.execute(select(AdjudicationRow.grade, AdjudicationRow.note,
                                   AdjudicationRow.updated_at).order_by(AdjudicationRow.id)
                            ).all()
    assert [(g, n) for g, n, _ in held] == [(3, "second"), (0, "")]
    store.engine.dispose()
    code, _, err = run_cli(["db", "upgrade", "--db", db_url])
    assert code == 0, err
    reopened = Store.open(db_url, readonly=True)
    assert current(reopened.engine) == head()
    got = decision_history(reopened, "1", "d00")
    assert [(h.lead, h.old_grade, h.grade, h.note) for h in got] == [
        ("lee", None, 3, "second")]
    assert got[0].recorded_at == held[0][2]
    with reopened.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                SQLModel.metadata)
        assert diff == []
    reopened.close()
    code, out, err = run_cli(["db", "check", "--db", db_url])
    assert code == 0 and "ok    decision history" in out, out + err
    assert "ok    append-only history" in out, out
    # and a decision changed after the upgrade is recorded as a change
    store = Store.open(db_url)
    adjudicate(store, "lee", "1", "d00", 1, "third")
    assert [(h.old_grade, h.grade) for h in decision_history(store, "1", "d00")] == [
        (None, 3), (3, 1)]


def test_db_check_finds_a_decision_changed_without_history(db_url: str) -> None:
    from relkit.judging.store.decisions import adjudicate

    store = make_project(db_url)
    adjudicate(store, "lee", "1", "d00", 2, "first")
    code, out, err = run_cli(["db", "check", "--db", db_url])
    assert code == 0, out + err
    with store.writer.begin() as conn:   # the owner, past relkit
        conn.execute(text("UPDATE adjudication SET grade = 0"))
    code, out, err = run_cli(["db", "check", "--db", db_url])
    assert code == 1 and "FAIL  decision history: 1 final grade differs" in out, out + err


@pytest.mark.parametrize("tamper", ["delete", "retime"])
def test_db_check_finds_a_decision_gone_or_retimed_without_history(db_url: str,
                                                                    tamper: str) -> None:
    """The owner (past relkit) deletes a decision, its history kept, or changes only its
    time: its pair's latest history row no longer records it."""
    from relkit.judging.store.decisions import adjudicate

    store = make_project(db_url)
    adjudicate(store, "lee", "1", "d00", 2, "first")
    adjudicate(store, "lee", "1", "d01", 1, "kept")
    later = ("updated_at + interval '1 second'" if store.engine.dialect.name == "postgresql"
             else "'2001-01-01 00:00:00.000000'")
    sql = {"delete": "DELETE FROM adjudication",
           "retime": f"UPDATE adjudication SET updated_at = {later}"}[tamper]
    with store.writer.begin() as conn:
        conn.execute(text(sql + " WHERE document_id = (SELECT id FROM document "
                          "WHERE key = 'd00')"))
    code, out, err = run_cli(["db", "check", "--db", db_url])
    assert code == 1, out + err
    line = next(x for x in out.splitlines() if "decision history" in x)
    assert line.startswith("FAIL"), out
    assert ("1 pair has no final grade though its history has one" in line
            if tamper == "delete" else "1 final grade differs" in line), line
