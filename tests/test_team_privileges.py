"""A team login's privileges beyond relkit's tables: none that fill the disk.

Against the real PostgreSQL server (RELKIT_TEST_PG), with ``psql`` as each login: an
assessor may not create large objects (``lo_create``, ``lo_from_bytea``: no quota),
temporary tables, or tables in any schema; and every privilege each role holds is the
list in docs/team.md, read back from ``pg_catalog`` (so the list cannot drift).
"""

from __future__ import annotations

import pytest

from test_team_rls import Team, team  # noqa: F401 (the fixture)

REFUSED = {
    "lo_create": "SELECT lo_create(0)",
    "lo_from_bytea": "SELECT lo_from_bytea(0, 'x')",
    "lo_creat": "SELECT lo_creat(-1)",
    "temporary table": "CREATE TEMP TABLE t (x int)",
    "table in public": "CREATE TABLE public.t (x int)",
    "function in public": "CREATE FUNCTION public.f() RETURNS int LANGUAGE sql AS 'SELECT 1'",
}


@pytest.mark.parametrize("person", ["ann", "carol"])
def test_a_team_login_cannot_store_large_objects_or_create_tables(team: Team,  # noqa: F811
                                                                   person: str) -> None:
    for what, sql in REFUSED.items():
        got = team.psql(person, sql)
        assert got.returncode != 0, (what, got.stdout)
        assert "permission denied" in got.stderr, (what, got.stderr)
    assert team.owner_scalar("SELECT count(*) FROM pg_largeobject_metadata") == 0
    # what the judging screen does still works
    assert team.psql(person, "SELECT count(*) FROM judgment").returncode == 0


# -- every privilege, read back from pg_catalog ------------------------------------------
TABLE = ("SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER")


def privileges(store: object, role: str) -> dict[str, str]:
    """Every privilege ``role`` holds (its own, its groups', PUBLIC's) on the database,
    its schemas, and the objects of relkit's schema, plus the large-object functions:
    object -> privileges as docs/team.md writes them ("UPDATE (grade, note)"); objects
    with none are left out."""
    from sqlalchemy import text

    from relkit.judging.store.access.lockdown import LO_SQL, SCHEMAS_SQL

    out: dict[str, str] = {}
    with store.engine.connect() as conn:  # type: ignore[attr-defined]
        def may(kind: str, name: str, privilege: str) -> bool:
            return bool(conn.execute(text(f"SELECT has_{kind}_privilege(:r, :n, :p)"),
                                     {"r": role, "n": name, "p": privilege}).scalar_one())

        def put(what: str, got: list[str]) -> None:
            if got:
                out[what] = ", ".join(got)

        db = conn.execute(text("SELECT current_database()")).scalar_one()
        put("database", [p for p in ("CONNECT", "CREATE", "TEMPORARY")
                         if may("database", db, p)])
        for (schema,) in conn.execute(text(SCHEMAS_SQL)):
            put(f"schema {schema}", [p for p in ("USAGE", "CREATE")
                                     if may("schema", schema, p)])
        schema = conn.execute(text("SELECT current_schema()")).scalar_one()
        for name, kind in conn.execute(text(
                "SELECT c.relname, c.relkind FROM pg_class c JOIN pg_namespace n ON n.oid = "
                "c.relnamespace WHERE n.nspname = current_schema() AND c.relkind IN "
                "('r', 'p', 'v', 'm', 'f', 'S') ORDER BY 1")):
            q = f'"{schema}"."{name}"'
            if kind == "S":
                put(f"sequence {name}", [p for p in ("USAGE", "SELECT", "UPDATE")
                                         if may("sequence", q, p)])
                continue
            got = []
            for p in TABLE:
                if may("table", q, p):
                    got.append(p)
                elif p in ("SELECT", "INSERT", "UPDATE", "REFERENCES"):
                    cols = [c for (c,) in conn.execute(text(
                        "SELECT attname FROM pg_attribute WHERE attrelid = CAST(:t AS "
                        "regclass) AND attnum > 0 AND NOT attisdropped AND "
                        "has_column_privilege(:r, attrelid, attnum, :p) ORDER BY attnum"),
                        {"t": q, "r": role, "p": p})]
                    if cols:
                        got.append(f"{p} ({', '.join(cols)})")
            put(f"table {name}", got)
        for (fn,) in conn.execute(text(
                "SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n ON "
                "n.oid = p.pronamespace WHERE n.nspname = current_schema() ORDER BY 1")):
            put(f"function {fn.split('.')[-1].replace(chr(34), '')}",
                ["EXECUTE"] if may("function", fn, "EXECUTE") else [])
        lo = [f for (f,) in conn.execute(text(LO_SQL)) if may("function", f, "EXECUTE")]
        put("large-object functions", [f"EXECUTE ({len(lo)})"] if lo else [])
    return out


def _create_login(store: object, role: str) -> None:
    from sqlalchemy import text

    with store.engine.begin() as conn:  # type: ignore[attr-defined]
        conn.execute(text(f'CREATE ROLE "{role}" LOGIN'))


def _parse(privileges: str) -> set[tuple[str, str | None]]:
    """ "SELECT, UPDATE (a, b)" -> {("SELECT", None), ("UPDATE", "a"), ("UPDATE", "b")}"""
    import re

    out: set[tuple[str, str | None]] = set()
    for p, cols in re.findall(r"([A-Z]+(?: \([0-9]+\))?)(?: \(([^)]*)\))?", privileges):
        out |= {(p, c.strip()) for c in cols.split(",")} if cols else {(p, None)}
    return out


def _documented() -> dict[str, dict[str, set[tuple[str, str | None]]]]:
    """docs/team.md's table: column ("assessors", "leads", "serve") -> object -> privileges."""
    from helpers import ROOT

    text = (ROOT / "docs" / "team.md").read_text()
    table = text.split("<!-- privileges: checked by tests/test_team_privileges.py -->")[1]
    table = table.split("<!-- /privileges -->")[0]
    out: dict[str, dict[str, set[tuple[str, str | None]]]] = {
        "assessors": {}, "leads": {}, "serve": {}}
    for line in table.strip().splitlines()[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        what = cells[0].split("`")[1]
        for column, cell in zip(out, cells[1:], strict=True):
            if cell != "—":
                out[column][what] = _parse(cell)
    return out


def _actual(store: object, role: str) -> dict[str, set[tuple[str, str | None]]]:
    return {k: _parse(v) for k, v in privileges(store, role).items()}


def test_every_privilege_of_each_role_is_the_list_in_docs_team_md(team: Team) -> None:  # noqa: F811
    from relkit.judging.store.access.names import group_names
    from relkit.judging.store.access.policies import init_team

    doc = _documented()
    web = team.prefix + "web"
    _create_login(team.store, web)
    report = init_team(team.store, serve_login=web)
    assert report.still_open == []
    ga, gl = group_names(team.prefix)
    assert _actual(team.store, ga) == doc["assessors"]
    assert _actual(team.store, gl) == doc["leads"]
    # a person's login: exactly its group's
    assert _actual(team.store, team.prefix + "ann") == doc["assessors"]
    assert _actual(team.store, team.prefix + "carol") == doc["leads"]
    serve = {k: set(v) for k, v in doc["serve"].items()}
    version = int(str(team.owner_scalar("SHOW server_version_num")))
    if version < 160000:     # membership inherits: the server's login holds everyone's
        for column in ("assessors", "leads"):
            for what, got in doc[column].items():
                serve[what] = serve.get(what, set()) | got
    assert _actual(team.store, web) == serve
    # and a login outside the team (PUBLIC's privileges): none of the disk-filling ones
    outsider = team.prefix + "outsider"
    _create_login(team.store, outsider)
    got = _actual(team.store, outsider)
    assert "large-object functions" not in got and "TEMPORARY" not in str(got.get("database"))
    assert not any(("CREATE", None) in v for k, v in got.items() if k.startswith("schema"))


def test_a_team_database_from_before_gets_them_taken_back_by_team_init(team: Team) -> None:  # noqa: F811
    from sqlalchemy import text

    from helpers import run_cli

    # as an earlier team init left it: PostgreSQL's defaults (15's; 14 and older also
    # gave every login CREATE on the schema public)
    with team.store.engine.begin() as conn:
        db = conn.execute(text("SELECT current_database()")).scalar_one()
        conn.execute(text(f'GRANT TEMPORARY ON DATABASE "{db}" TO PUBLIC'))
        conn.execute(text("GRANT CREATE ON SCHEMA public TO PUBLIC"))
        conn.execute(text("GRANT EXECUTE ON FUNCTION lo_create(oid), lo_from_bytea(oid, "
                          "bytea), lo_creat(integer), lo_unlink(oid) TO PUBLIC"))
    assert team.psql("ann", "SELECT lo_unlink(lo_create(0))").returncode == 0
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 1, (out, err)
    line = next(ln for ln in out.splitlines() if "team privileges" in ln)
    assert line.startswith("FAIL") and "TEMPORARY on the database (every login; only " in line \
        and "CREATE on schema public (every login; only " in line \
        and "EXECUTE on 4 large-object functions" in line \
        and "run `relkit team init` again as the role named" in line, line
    code, out, err = run_cli(["team", "init", "--db", team.owner])
    assert code == 0 and "not taken back" not in err, err
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 0 and "ok    team privileges: no team login may" in out, (out, err)
    for what, sql in REFUSED.items():
        got = team.psql("ann", sql)
        assert got.returncode != 0 and "permission denied" in got.stderr, (what, got.stderr)


def test_an_owner_who_is_no_superuser_takes_back_all_but_large_objects_and_says_so() -> None:
    """The documented set-up: the owner has CREATEROLE and owns the database, but the
    large-object functions are the bootstrap superuser's: team init takes back the rest
    and says in one line what is left; db check says it too."""
    import uuid

    from sqlalchemy import create_engine, text

    from helpers import fresh_pg_database, run_cli
    from relkit.judging.store.assign import Store
    from store_helpers import make_project
    from test_team_rls import _drop_roles, _need_pg

    admin = _need_pg()
    prefix = f"relkit_test_{uuid.uuid4().hex[:12]}_"
    owner = prefix + "owner"
    url, drop = fresh_pg_database(admin)
    eng = create_engine(admin.replace("postgresql://", "postgresql+psycopg://", 1),
                        isolation_level="AUTOCOMMIT")
    try:
        with eng.connect() as conn:
            conn.execute(text(f'CREATE ROLE "{owner}" LOGIN CREATEROLE'))
            conn.execute(text(f'ALTER DATABASE "{url.rsplit("/", 1)[1]}" OWNER TO "{owner}"'))
        mine = url.replace("://postgres@", f"://{owner}@", 1)
        make_project(mine).close()
        code, _, err = run_cli(["team", "init", "--db", mine, "--role-prefix", prefix])
        assert code == 0, err
        left = [ln for ln in err.splitlines() if "not taken back" in ln]
        assert len(left) == 1 and "large-object functions" in left[0] \
            and "superuser" in left[0], err
        store = Store.open(mine)
        try:
            got = _actual(store, prefix + "ann")
        finally:
            store.close()
        assert "TEMPORARY" not in str(got["database"]) and ("CREATE", None) not in \
            got["schema public"] and "large-object functions" in got
        code, out, _ = run_cli(["db", "check", "--db", mine])
        assert code == 1 and "FAIL  team privileges: EXECUTE on" in out, out
        # a superuser's re-run takes them back too
        code, _, err = run_cli(["team", "init", "--db", url])
        assert code == 0 and "not taken back" not in err, err
        code, out, _ = run_cli(["db", "check", "--db", mine])
        assert code == 0, out
    finally:
        drop()
        eng.dispose()
        _drop_roles(admin, prefix)


def test_postgresql_14s_public_schema_keeps_the_owner_able_to_create() -> None:
    """Up to PostgreSQL 14 the schema public belongs to the bootstrap superuser and every
    login may CREATE in it through PUBLIC (simulated here on the real server). Run as
    the owner (who ran createdb), team init cannot take that back and says who can (not
    "the database's owner": that is who ran it); run as a superuser, it takes CREATE
    from PUBLIC but not from the tables' owner, so the owner's later team init (after
    `relkit assign`) and a migration's CREATE TABLE still work."""
    import uuid

    from sqlalchemy import create_engine, text

    from helpers import fresh_pg_database, run_cli
    from store_helpers import make_project
    from test_team_rls import PSQL, _drop_roles, _need_pg

    admin = _need_pg()
    prefix = f"relkit_test_{uuid.uuid4().hex[:12]}_"
    owner = prefix + "owner"
    url, drop = fresh_pg_database(admin)
    eng = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1),
                        isolation_level="AUTOCOMMIT")
    superuser = admin.rsplit("/", 1)[0].split("://", 1)[1].split("@", 1)[0]
    try:
        with eng.connect() as conn:
            conn.execute(text(f'CREATE ROLE "{owner}" LOGIN CREATEROLE'))
            conn.execute(text(f'ALTER DATABASE "{url.rsplit("/", 1)[1]}" OWNER TO "{owner}"'))
            conn.execute(text(f'ALTER SCHEMA public OWNER TO "{superuser}"'))   # as in 14
            conn.execute(text("REVOKE ALL ON SCHEMA public FROM pg_database_owner"))
            conn.execute(text("GRANT USAGE, CREATE ON SCHEMA public TO PUBLIC"))
        mine = url.replace("://postgres@", f"://{owner}@", 1)
        make_project(mine).close()
        code, _, err = run_cli(["team", "init", "--db", mine, "--role-prefix", prefix])
        assert code == 0, err
        (line,) = [ln for ln in err.splitlines() if "CREATE on schema public" in ln]
        assert "database's owner" not in line and "again as that role" in line \
            and f"only {superuser}, the schema's owner, or a superuser" in line, line
        code, _, err = run_cli(["team", "init", "--db", url])     # as a superuser
        assert code == 0 and "not taken back" not in err, err
        code, _, err = run_cli(["team", "init", "--db", mine])    # the owner again
        assert code == 0, err
        assert PSQL is not None
        import subprocess

        def psql(who: str, sql: str) -> subprocess.CompletedProcess[str]:
            return subprocess.run([PSQL, url.replace("://postgres@", f"://{who}@", 1), "-X",
                                   "-v", "ON_ERROR_STOP=1", "-Atc", sql],
                                  capture_output=True, text=True, timeout=60)

        made = psql(owner, "CREATE TABLE public.migrated (x int); "
                    "CREATE INDEX ON public.migrated (x)")
        assert made.returncode == 0, made.stderr            # a migration still can
        got = psql(prefix + "ann", "CREATE TABLE public.t (x int)")
        assert got.returncode != 0 and "permission denied" in got.stderr, got
    finally:
        eng.dispose()
        drop()
        _drop_roles(admin, prefix)


def test_a_person_login_has_its_limits(team: Team) -> None:  # noqa: F811
    """Review of issue 33: temp_file_limit was -1 (a sort spills to temporary files
    without TEMPORARY), no statement or idle-transaction timeout, no connection limit.
    team init (here as a superuser) sets them on each person's login, as psql shows."""
    from relkit.judging.store.access.lockdown import LOGIN_LIMITS, LOGIN_SETTINGS

    for person in ("ann", "carol"):
        got = team.psql(person, "SHOW temp_file_limit; SHOW statement_timeout; "
                        "SHOW idle_in_transaction_session_timeout; SELECT rolconnlimit "
                        "FROM pg_roles WHERE rolname = current_user")
        assert got.returncode == 0, got.stderr
        assert got.stdout.split() == [LOGIN_SETTINGS["temp_file_limit"],
                                      LOGIN_SETTINGS["statement_timeout"],
                                      LOGIN_SETTINGS["idle_in_transaction_session_timeout"],
                                      str(LOGIN_LIMITS)], got.stdout
