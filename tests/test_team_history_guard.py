"""A judgment changes only with its history: the database refuses an assessor's edit
that leaves no matching history row, and `relkit db check` compares each judgment with
the history row of its version.

Against the real PostgreSQL server of the store tests with the real ``psql`` client
logged in as ann (skipped without RELKIT_TEST_PG); `db check` on SQLite too.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from sqlalchemy import text

from helpers import run_cli
from relkit.judging.store.assign import Store
from store_helpers import make_project
from test_team_rls import Team, team  # noqa: F401 (the fixture)


def _anns_judgment(team: Team) -> tuple[int, str, str]:  # noqa: F811
    """ann judges one document (through her own login); its id, topic and doc."""
    store = Store.open(team.url("ann"), create=False)
    try:
        ann = store.assessor("ann")
        topic = ann.topics()[0].key
        doc = ann.next_item(topic).doc
        ann.record(topic=topic, doc=doc, grade=2, note="first")
    finally:
        store.close()
    jid = team.owner_scalar("SELECT j.id FROM judgment j JOIN assessor a ON a.id = "
                            "j.assessor_id WHERE a.name = 'ann'")
    return int(jid), topic, doc  # type: ignore[arg-type]


def test_psql_ann_cannot_change_her_grade_without_history(team: Team) -> None:  # noqa: F811
    jid, topic, doc = _anns_judgment(team)
    for sql in (f"UPDATE judgment SET grade = 1 WHERE id = {jid}",
                f"UPDATE judgment SET grade = 1, version = version + 1 WHERE id = {jid}",
                f"UPDATE judgment SET created_at = now() - interval '1 day' WHERE id = {jid}",
                # a history row that does not match the new version
                f"BEGIN; UPDATE judgment SET grade = 1, version = 2 WHERE id = {jid}; "
                "INSERT INTO judgment_history (judgment_id, version, assessor_id, topic_id, "
                "document_id, grade, status, note, flagged, dwell_ms, source, recorded_at) "
                "SELECT id, 2, assessor_id, topic_id, document_id, 3, status, note, flagged, "
                f"0, source, updated_at FROM judgment WHERE id = {jid}; COMMIT"):
        got = team.psql("ann", sql)
        assert got.returncode != 0, (sql, got.stdout)
    # nor a history row alone: a second row for version 1, or a version to come
    for version in (1, 2):
        got = team.psql("ann", "INSERT INTO judgment_history (judgment_id, version, "
                        "assessor_id, topic_id, document_id, grade, status, note, flagged, "
                        f"dwell_ms, source, recorded_at) SELECT id, {version}, assessor_id, "
                        "topic_id, document_id, 3, status, note, flagged, 0, source, "
                        f"updated_at FROM judgment WHERE id = {jid}")
        assert got.returncode != 0 and "history" in got.stderr, got
    assert team.owner_scalar(f"SELECT count(*) FROM judgment_history WHERE judgment_id = {jid}"
                             ) == 1
    assert team.owner_scalar(f"SELECT grade || '/' || version FROM judgment WHERE id = {jid}") \
        == "2/1"
    # relkit's own revision, as ann's login, still works (history and all)
    store = Store.open(team.url("ann"), create=False)
    try:
        ann = store.assessor("ann")
        out = ann.record(topic=topic, doc=doc, grade=0, note="second", dwell_ms=5)
        assert out.version == 2 and [h.grade for h in ann.history(topic, doc)] == [2, 0]
    finally:
        store.close()
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 0, out + err


def test_db_check_compares_judgment_and_history_on_postgresql(team: Team) -> None:  # noqa: F811
    jid, _, _ = _anns_judgment(team)
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 0, out + err
    with team.store.engine.begin() as conn:   # the owner is not held by the guard
        conn.execute(text(f"UPDATE judgment SET grade = 1 WHERE id = {jid}"))
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 1, out + err
    assert "FAIL  judgment history" in out and "1 judgment" in out, out
    assert len(err.splitlines()) == 1, err


def test_db_check_compares_judgment_and_history_on_sqlite(tmp_path: Path) -> None:
    path = str(tmp_path / "p.db")
    store = make_project(path)
    ann = store.assessor("ann")
    topic = ann.topics()[0].key
    ann.record(topic=topic, doc=ann.next_item(topic).doc, grade=2)
    store.close()
    code, out, err = run_cli(["db", "check", "--db", path])
    assert code == 0, out + err
    with sqlite3.connect(path) as conn:
        conn.execute("UPDATE judgment SET grade = 1")
    code, out, err = run_cli(["db", "check", "--db", path])
    assert code == 1 and "FAIL  judgment history" in out, out + err


def test_db_check_names_a_team_database_without_the_guard(team: Team) -> None:  # noqa: F811
    # A team database set up by an earlier relkit: team init adds the trigger.
    with team.store.engine.begin() as conn:
        conn.execute(text("DROP TRIGGER relkit_judgment_with_history ON judgment"))
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 1 and "relkit_judgment_with_history (run `relkit team init`" in out, out
    code, out, err = run_cli(["team", "init", "--db", team.owner])
    assert code == 0, out + err
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 0, out + err


def test_the_owners_import_is_not_held_by_the_guard(team: Team, tmp_path: Path  # noqa: F811
                                                   ) -> None:
    """The owner imports new and revised judgments into a team database (bulk history):
    the people's triggers do not apply to it, and db check agrees afterwards."""
    jid, topic, doc = _anns_judgment(team)
    qrels = tmp_path / "ann.qrels"
    qrels.write_text(f"{topic} 0 {doc} 0\n")            # a revision of ann's grade 2
    code, _, err = run_cli(["import", "judgments", str(qrels), "--assessor", "ann",
                            "--db", team.owner])
    assert code == 0, err
    assert team.owner_scalar(f"SELECT grade || '/' || version FROM judgment WHERE id = {jid}"
                             ) == "0/2"
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 0, out + err
    # and the triggers hold ann's login only, by name
    when = str(team.owner_scalar(
        "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = "
        "'relkit_judgment_with_history'"))
    assert f"'{team.prefix}ann'" in when and "relkit_assessor()" not in when, when
