"""`relkit serve` connected as the login `relkit team init --serve-login` prepared.

Against the real PostgreSQL server of the store tests (skipped without RELKIT_TEST_PG):
the server's own login (not the owner) must be able to check tokens, start its warm
sessions and switch each to its person's role; and a login that cannot read what the
server reads is named at start-up in one line, and a sign-in then gets a refusal page,
never a 500 with a traceback.
"""

from __future__ import annotations

import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

from sqlalchemy import text

from relkit.judging.store.access.policies import init_team
from relkit.judging.store.tokens import issue
from serve_helpers import judged, plain, served, ws_screen
from test_team_rls import Team, team  # noqa: F401 (the fixture)


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def _sign_in(url: str, token: str) -> tuple[int, str, str]:
    """POST the sign-in form as a browser would: (status, Set-Cookie, body)."""
    data = urllib.parse.urlencode({"token": token}).encode()
    opener = urllib.request.build_opener(_NoRedirect)
    try:
        with opener.open(urllib.request.Request(url + "/signin", data=data), timeout=60) as r:
            return r.status, r.headers.get("Set-Cookie", ""), r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get("Set-Cookie", ""), exc.read().decode()


def _page(url: str, token: str) -> tuple[int, str]:
    req = urllib.request.Request(url + "/", headers={"Cookie": f"relkit_token={token}"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.read().decode()


def _login(team: Team, name: str) -> str:  # noqa: F811
    login = team.prefix + name        # dropped with the team's roles
    with team.store.engine.begin() as conn:
        conn.execute(text(f'CREATE ROLE "{login}" LOGIN'))
    return login


def test_serve_as_the_serve_login_signs_people_in(team: Team, tmp_path: Path) -> None:  # noqa: F811
    login = _login(team, "web")
    init_team(team.store, serve_login=login)
    token = issue(team.store, "ann")
    with served(team.url("web"), tmp_path) as server:
        code, cookie, body = _sign_in(server.url, token)
        assert code == 303 and "relkit_token=" in cookie, (code, body, server.log())
        code, body = _page(server.url, token)
        assert code == 200 and "ws://" in body, (code, body)
        code, out = ws_screen(server.url, token, origin=server.url, keys=("\r", "2"))
        assert code == 101, server.log()
        assert "assessor ann" in plain(out), server.log()
    assert len(judged(team.owner, "ann")) == 1, server.log()
    log = server.log()
    assert "InsufficientPrivilege" not in log and "permission denied" not in log, log
    # exactly what the server reads, nothing more (granted to the login itself; on
    # PostgreSQL 15 it also inherits the persons' privileges, docs/team.md)
    with team.store.engine.connect() as conn:
        granted = conn.execute(text(
            "SELECT c.relname, a.privilege_type FROM pg_class c, aclexplode(c.relacl) a "
            "WHERE a.grantee = (SELECT oid FROM pg_roles WHERE rolname = :l) "
            "AND c.relnamespace = current_schema()::regnamespace ORDER BY 1"),
            {"l": login}).all()
    assert [tuple(r) for r in granted] == [
        (t, "SELECT") for t in sorted(("access_token", "alembic_version", "assessor",
                                       "collection", "scale_grade"))]


def test_a_login_that_cannot_read_tokens_is_named_at_start_and_refused_cleanly(
        team: Team, tmp_path: Path) -> None:  # noqa: F811
    login = _login(team, "bare")
    init_team(team.store)
    with team.store.engine.begin() as conn:   # may take the roles, but read nothing itself
        for who in ("ann", "bob", "carol"):
            conn.execute(text(f'GRANT "{team.prefix}{who}" TO "{login}"'))
    token = issue(team.store, "ann")
    with served(team.url("bare"), tmp_path) as server:
        code, _, body = _sign_in(server.url, token)
        log = server.log()
    assert code == 503, (code, body, log)
    assert "cannot check sign-in tokens" in body, body
    assert "InsufficientPrivilege" not in log, log   # no traceback of the sign-in
    start = [line for line in log.splitlines() if "--serve-login" in line
             and "access_token" in line]
    assert len(start) == 1, log
    assert sum("permission denied" in line for line in log.splitlines()) >= 1, log


def test_a_role_that_administers_the_logins_is_not_taken_for_a_server_login(
        team: Team) -> None:  # noqa: F811
    """PostgreSQL 16 makes the role that creates a role a member of it WITH ADMIN OPTION
    (here 15: granted by hand, as 16 would): whoever made the logins is not a server
    login, and is granted nothing for it; nor is the login running `team init` (a
    plain member here)."""
    admin = _login(team, "admin")
    ann = team.prefix + "ann"
    with team.store.engine.begin() as conn:
        conn.execute(text(f'GRANT "{ann}" TO "{admin}" WITH ADMIN OPTION'))
        conn.execute(text(f'GRANT "{ann}" TO current_user'))
    report = init_team(team.store)
    assert report.serve_logins == []
    with team.store.engine.connect() as conn:
        got = conn.execute(text(
            "SELECT count(*) FROM pg_auth_members am JOIN pg_roles m ON m.oid = am.member "
            "WHERE m.rolname = :a"), {"a": admin}).scalar()
    assert got == 1          # the admin membership alone: no other login granted to it
