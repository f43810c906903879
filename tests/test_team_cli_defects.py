"""The team commands' edges a tester found: one line, never a traceback or a stuck team.

Against the real PostgreSQL server of the store tests (skipped without RELKIT_TEST_PG),
with each person's own login; `status` on SQLite too (``$RELKIT_USER``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from helpers import run_cli
from relkit.judging.judgment_files import read_qrels_file
from relkit.judging.store.adjudication import register_leads
from relkit.judging.store.assign import Store
from relkit.judging.store.imports import import_judgments
from relkit.judging.store.models import StoreError
from store_helpers import make_project, snapshot
from test_team_rls import Team, team  # noqa: F401 (the fixture)


def _anns_pair(team: Team) -> tuple[str, str]:  # noqa: F811
    with team.store.engine.connect() as conn:
        return tuple(conn.execute(text(  # type: ignore[return-value]
            "SELECT t.key, d.key FROM assignment_item i JOIN assignment x ON x.id = "
            "i.assignment_id JOIN assessor a ON a.id = x.assessor_id JOIN topic t ON t.id = "
            "x.topic_id JOIN document d ON d.id = i.document_id WHERE a.name = 'ann' "
            "ORDER BY i.id LIMIT 1")).one())


@pytest.mark.parametrize("person", ["ann", "carol"])
def test_import_through_a_persons_login_is_one_line(team: Team, tmp_path: Path,  # noqa: F811
                                                    person: str) -> None:
    topic, doc = _anns_pair(team)
    qrels = tmp_path / "q.txt"
    qrels.write_text(f"{topic} 0 {doc} 2\n")
    before = snapshot(team.store)
    code, out, err = run_cli(["import", "judgments", str(qrels), "--assessor", person,
                              "--db", team.url(person)])
    assert code == 1, out + err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    # the command may refuse a person itself first (the owner's commands); else the
    # database does
    assert "the database refused it" in err or "for the database's owner" in err, err
    assert snapshot(team.store) == before
    # Under the command's own check, the database's refusal is one line too: COPY under
    # row-level security (ann), no grant (carol), and nothing half-written.
    store = Store.open(team.url(person), create=False)
    try:
        with pytest.raises(StoreError, match=r"^import: the database refused it \(.*"
                           r"nothing was imported$"):
            import_judgments(store, read_qrels_file(qrels, assessor=person))
    finally:
        store.close()
    assert snapshot(team.store) == before


@pytest.mark.parametrize("name", ["x" * 60, "tab\there", "bell\x07"])
def test_assign_refuses_a_name_that_cannot_be_a_login(team: Team, name: str) -> None:  # noqa: F811
    before = snapshot(team.store)
    for args in (["--lead", name], [name, "--topic", "007"]):
        code, out, err = run_cli(["assign", *args, "--db", team.owner])
        assert code == 1, out + err
        assert len(err.splitlines()) == 1 and repr(name) in err, err
        assert "cannot have a database login" in err, err
    assert snapshot(team.store) == before
    # the team is not stuck: a new person still gets a login
    code, out, err = run_cli(["assign", "erin", "--topic", "007", "--db", team.owner])
    assert code == 0, out + err
    code, out, err = run_cli(["team", "init", "--db", team.owner])
    assert code == 0 and f"created login {team.prefix}erin for erin" in err, out + err


def test_team_init_refuses_another_role_prefix(team: Team) -> None:  # noqa: F811
    roles = team.roles()
    other = team.prefix + "x_"
    code, out, err = run_cli(["team", "init", "--role-prefix", other, "--db", team.owner])
    assert code == 1, out + err
    assert len(err.splitlines()) == 1 and repr(team.prefix) in err, err
    assert team.roles() == roles
    assert team.owner_scalar("SELECT relkit_role_prefix()") == team.prefix
    # the same prefix named again is fine
    code, out, err = run_cli(["team", "init", "--role-prefix", team.prefix, "--db", team.owner])
    assert code == 0, out + err


def _own_topics(store: object, name: str) -> list[dict[str, object]]:
    """``name``'s per-topic progress, from their own view (as the owner reads it)."""
    view = store.assessor(name)  # type: ignore[attr-defined]
    return [{"topic": t.key, "assessors": 1, "items": t.total, "done": t.done,
             "grade_counts": {str(g): n for g, n in sorted(t.grade_counts.items())},
             "skipped": 0} for t in view.topics()]


def _status_as(db: str) -> dict[str, object]:
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, out + err
    return json.loads(out)  # type: ignore[no-any-return]


def test_status_as_an_assessor_shows_their_topics_on_postgresql(team: Team) -> None:  # noqa: F811
    ann = team.store.assessor("ann")
    topic = ann.topics()[0].key
    ann.record(topic=topic, doc=ann.next_item(topic).doc, grade=3)
    got = _status_as(team.url("ann"))
    assert got["topics"] == _own_topics(team.store, "ann") != [], got
    assert [a["assessor"] for a in got["assessors"]] == ["ann"]  # type: ignore[index]
    code, out, err = run_cli(["status", "--db", team.url("ann")])
    assert code == 0 and f"\n{topic} " in out and "bob" not in out, out + err


def test_status_as_an_assessor_shows_their_topics_on_sqlite(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = str(tmp_path / "p.db")
    store = make_project(path, overlap=0.5)
    register_leads(store, ["carol"])
    for name, grade in (("ann", 3), ("bob", 1)):
        view = store.assessor(name)
        topic = view.topics()[0].key
        view.record(topic=topic, doc=view.next_item(topic).doc, grade=grade)
    want = _own_topics(store, "ann")
    store.close()
    monkeypatch.setenv("RELKIT_USER", "ann")
    got = _status_as(path)
    assert got["topics"] == want != [], got
    assert [a["assessor"] for a in got["assessors"]] == ["ann"]  # type: ignore[index]
