"""Row-level security inside `relkit serve`'s sessions: each acts as its person's login.

The server connects with its own login; a served session switches every connection to
the signed-in person's role (``SET ROLE``), so PostgreSQL filters and checks what the
session does exactly as for ``psql`` logged in as that person. Against the real
PostgreSQL server of the store tests (skipped without RELKIT_TEST_PG).
"""

from __future__ import annotations

from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError

from relkit.judging.store.access.acting import act_as, cannot_act_as
from relkit.judging.store.access.policies import init_team
from relkit.judging.store.models import StoreError
from relkit.judging.store.tokens import issue
from serve_helpers import judged, plain, served, ws_screen
from test_team_rls import Team, _bob_id, team  # noqa: F401 (the fixture)


def _session_store(team: Team, monkeypatch: pytest.MonkeyPatch) -> object:  # noqa: F811
    """A session's store as a warm spare opens it (the server's login: the owner here)."""
    from relkit.judging.serve.session import prepare

    monkeypatch.setenv("RELKIT_DB", team.owner)
    return prepare()


def test_a_served_session_acts_as_its_persons_login(team: Team,  # noqa: F811
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    store = _session_store(team, monkeypatch)
    try:
        assert act_as(store.engine, "ann") == team.prefix + "ann"  # type: ignore[attr-defined]
        bob = _bob_id(team)
        assert team.owner_scalar(f"SELECT count(*) FROM judgment WHERE assessor_id = {bob}") == 2
        with store.engine.connect() as conn:  # type: ignore[attr-defined]
            assert conn.execute(text("SELECT current_user")).scalar() == team.prefix + "ann"
            assert conn.execute(text("SELECT count(*) FROM judgment WHERE assessor_id = :b"),
                                {"b": bob}).scalar() == 0
            assert conn.execute(text("SELECT count(*) FROM judgment_history WHERE "
                                     "assessor_id = :b"), {"b": bob}).scalar() == 0
        for sql in ("UPDATE judgment_history SET grade = 0",
                    "DELETE FROM judgment_history",
                    f"UPDATE judgment SET grade = 3 WHERE assessor_id = {bob}"):
            with store.engine.connect() as conn:  # type: ignore[attr-defined]
                try:
                    n = conn.execute(text(sql)).rowcount
                    conn.commit()
                except DBAPIError as exc:
                    assert "permission denied" in str(exc) or "history" in str(exc), exc
                else:
                    assert n == 0, sql          # bob's rows are invisible to ann's login
        # a connection returned to the pool and a new one are still ann's
        store.engine.pool.dispose()  # type: ignore[attr-defined]
        with store.engine.connect() as conn:  # type: ignore[attr-defined]
            assert conn.execute(text("SELECT current_user")).scalar() == team.prefix + "ann"
        # ann's own judging works as before
        view = store.assessor("ann")  # type: ignore[attr-defined]
        topic = view.topics()[0].key
        item = view.next_item(topic)
        view.record(topic=topic, doc=item.doc, grade=2)
        assert (topic, item.doc, 2) in judged(team.owner, "ann")
        assert team.owner_scalar("SELECT count(*) FROM judgment_history h JOIN assessor a "
                                 "ON a.id = h.assessor_id WHERE a.name = 'bob'") == 2
    finally:
        store.close()  # type: ignore[attr-defined]


AUDIT = """
CREATE TABLE judge_audit (who text);
GRANT INSERT ON judge_audit TO PUBLIC;
CREATE FUNCTION judge_audit() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN INSERT INTO judge_audit VALUES (current_user); RETURN NEW; END $$;
CREATE TRIGGER judge_audit AFTER INSERT ON judgment FOR EACH ROW EXECUTE FUNCTION judge_audit();
"""


def test_a_grade_in_the_browser_is_written_by_anns_login(team: Team,  # noqa: F811
                                                         tmp_path: Path) -> None:
    # An audit trigger records current_user for every judgment written: through
    # `relkit serve` (connected as the owner), ann's grade is written by ann's login.
    with team.store.engine.begin() as conn:
        for stmt in AUDIT.strip().split(";\n"):
            conn.execute(text(stmt))
    token = issue(team.store, "ann")
    with served(team.owner, tmp_path) as server:
        code, out = ws_screen(server.url, token, origin=server.url, keys=("\r", "2"))
        assert code == 101, server.log()
        assert "assessor ann" in plain(out)
    assert len(judged(team.owner, "ann")) == 1, server.log()
    assert team.owner_scalar("SELECT string_agg(who, ',') FROM judge_audit") == \
        team.prefix + "ann"


def test_someone_without_a_login_yet_gets_no_session(team: Team,  # noqa: F811
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    team.store.assign(["dave"], topics=["007"])         # after team init: no login yet
    store = _session_store(team, monkeypatch)
    try:
        with pytest.raises(StoreError, match="dave has no database login yet"):
            act_as(store.engine, "dave")  # type: ignore[attr-defined]
    finally:
        store.close()  # type: ignore[attr-defined]


def test_the_servers_login_must_be_granted_the_roles(team: Team) -> None:  # noqa: F811
    from relkit.judging.store.connection import make_engine

    login = team.prefix + "server"   # dropped with the team's roles
    with team.store.engine.begin() as conn:
        conn.execute(text(f'CREATE ROLE "{login}" LOGIN'))
        # what a server's login reads itself: who is who, and (not here) the tokens
        conn.execute(text(f'GRANT SELECT ON assessor TO "{login}"'))
    url = team.url("server")
    engine = make_engine(url)
    try:
        assert cannot_act_as(engine) == ["ann", "bob", "carol"]
        with pytest.raises(StoreError, match=r"must be granted it: `relkit team init "
                                             rf"--serve-login {login}`"):
            act_as(engine, "ann")
    finally:
        engine.dispose()
    rep = init_team(team.store, serve_login=login)
    assert rep.serve_logins == [login]
    engine = make_engine(url)
    try:
        assert cannot_act_as(engine) == []
        act_as(engine, "ann")
        with engine.connect() as conn:
            assert conn.execute(text("SELECT current_user")).scalar() == team.prefix + "ann"
            assert conn.execute(text("SELECT count(*) FROM judgment WHERE assessor_id = :b"),
                                {"b": _bob_id(team)}).scalar() == 0
    finally:
        engine.dispose()
    # a re-run grants a new person's role to the same login, unnamed
    team.store.assign(["dave"], topics=["007"])
    assert init_team(team.store).serve_logins == [login]
    engine = make_engine(url)
    try:
        assert act_as(engine, "dave") == team.prefix + "dave"
    finally:
        engine.dispose()
    with pytest.raises(StoreError, match="that is a person's login"):
        init_team(team.store, serve_login=team.prefix + "ann")


def test_on_sqlite_there_is_no_role_to_act_as(tmp_path: Path) -> None:
    from store_helpers import make_project

    store = make_project(str(tmp_path / "p.db"))
    try:
        assert act_as(store.engine, "ann") is None
    finally:
        store.close()
