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
from relkit.judging.adjudication import register_leads
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
    assert len(err.splitlines()) == 1 and "the database refused it" in err, err
    assert "Traceback" not in err
    assert snapshot(team.store) == before
