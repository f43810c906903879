"""Team databases (PostgreSQL): a lead's final grades keep their history, whatever client.

Row-level security covers ``adjudication_history`` as it covers ``judgment_history``: a
lead appends (as themselves), no one updates, deletes or truncates, an assessor sees
none; and the decision guard refuses a lead's change of a decision that leaves no
history row. Also `team init --role-prefix` refusing a prefix that makes role names
PostgreSQL would cut short. Against the real server with the real ``psql`` client.
"""

from __future__ import annotations

import uuid

import pytest
from sqlalchemy import create_engine, text

from helpers import fresh_pg_database, run_cli
from relkit.judging.store.adjudication import register_leads
from relkit.judging.store.assign import Store
from relkit.judging.store.reports import dump
from store_helpers import make_project
from test_team_rls import PG_URL, Team, _drop_roles, _need_pg, team  # noqa: F401 (fixture)

HISTORY_ROW = ("INSERT INTO adjudication_history (collection_id, topic_id, document_id, "
               "lead_id, old_grade, grade, note, recorded_at) SELECT collection_id, topic_id, "
               "document_id, lead_id, {old}, {grade}, {note}, {at} FROM adjudication "
               "WHERE id = {aid}")


def _carol_decides(team: Team, grade: int, note: str) -> bool:  # noqa: F811
    from relkit.judging.store.decisions import adjudicate

    store = Store.open(team.url("carol"), create=False)
    try:
        return adjudicate(store, "carol", "1", "d00", grade, note).changed
    finally:
        store.close()


def test_psql_lead_cannot_change_a_decision_without_its_history(team: Team) -> None:  # noqa: F811
    assert _carol_decides(team, 2, "first") is True   # relkit's way, as carol's login
    assert _carol_decides(team, 3, "second") is True
    assert _carol_decides(team, 3, "second") is False  # the same again: no row
    aid = team.owner_scalar("SELECT id FROM adjudication")
    count = "SELECT count(*) FROM adjudication_history"
    assert team.owner_scalar(count) == 2
    for sql in (
            "UPDATE adjudication SET grade = 0",                  # no history row
            "UPDATE adjudication SET note = 'quietly'",
            "UPDATE adjudication SET updated_at = now()",
            "UPDATE adjudication_history SET grade = 0",          # history is append-only
            "DELETE FROM adjudication_history",
            "TRUNCATE adjudication_history",
            "DELETE FROM adjudication",
            # a history row that does not record the change made
            f"BEGIN; UPDATE adjudication SET grade = 0, updated_at = now() WHERE id = {aid};"
            + HISTORY_ROW.format(old=3, grade=1, note="note", at="updated_at", aid=aid)
            + "; COMMIT",
            # a history row alone, for a decision never made
            HISTORY_ROW.format(old=3, grade=0, note="'x'", at="now()", aid=aid),
            # two changes of the pair in one transaction, each with its row: the first's
            # check (at commit) finds the second's row latest (docs: one per transaction)
            "BEGIN; " + "".join(
                f"UPDATE adjudication SET grade = {g}, note = 'n{g}', updated_at = "
                f"clock_timestamp() WHERE id = {aid}; " + HISTORY_ROW.format(
                    old=old, grade="grade", note="note", at="updated_at", aid=aid) + "; "
                for old, g in ((3, 0), (0, 1))) + "COMMIT"):
        got = team.psql("carol", sql)
        assert got.returncode != 0, (sql, got.stdout)
    assert team.owner_scalar(count) == 2
    assert team.owner_scalar("SELECT grade || '/' || note FROM adjudication") == "3/second"
    # A change with the row recording it is a change relkit would have made: accepted.
    got = team.psql("carol", f"BEGIN; UPDATE adjudication SET grade = 0, note = 'psql', "
                    f"updated_at = now() WHERE id = {aid};"
                    + HISTORY_ROW.format(old=3, grade="grade", note="note", at="updated_at",
                                         aid=aid) + "; COMMIT")
    assert got.returncode == 0, got.stderr
    assert team.owner_scalar(count) == 3
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 0 and "ok    decision history" in out, out + err


def test_psql_assessor_neither_reads_nor_writes_decision_history(team: Team) -> None:  # noqa: F811
    _carol_decides(team, 2, "first")
    got = team.psql("ann", "SELECT count(*) FROM adjudication_history")
    assert got.returncode == 0 and got.stdout.strip() == "0", got
    got = team.psql("ann", "INSERT INTO adjudication_history (collection_id, topic_id, "
                    "document_id, lead_id, grade, note, recorded_at) VALUES "
                    "(1, 1, 1, 1, 0, '', now())")
    assert got.returncode != 0 and "permission denied" in got.stderr, got


def test_upgrading_a_team_database_keeps_its_leads_deciding(team: Team) -> None:  # noqa: F811
    from alembic import command

    from relkit.judging.store.connection import writer
    from relkit.judging.store.migrate import _config

    _carol_decides(team, 2, "before the upgrade")
    cfg = _config()
    with writer(team.store.engine).begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0006")
    code, out, err = run_cli(["db", "upgrade", "--db", team.owner])
    assert code == 0, out + err
    assert _carol_decides(team, 1, "after it") is True     # the lead's grants came along
    assert team.owner_scalar("SELECT string_agg(grade || ':' || coalesce(old_grade, -1), ',' "
                             "ORDER BY id) FROM adjudication_history") == "2:-1,1:2"
    # Until team init, an assessor reads what she reads after it: none of the rows (row-
    # level security on the new table, no policy of hers), not "permission denied"; so a
    # full dump through her login (the API: `export jsonl` is refused to an assessor by
    # the tool) works in between.
    assert team.owner_scalar("SELECT relrowsecurity FROM pg_class WHERE relname = "
                             "'adjudication_history'") is True
    got = team.psql("ann", "SELECT count(*) FROM adjudication_history")
    assert got.returncode == 0 and got.stdout.strip() == "0", got
    ann = Store.open(team.url("ann"), create=False)
    try:
        assert all(r["adjudication_history"] == [] for r in dump(ann))
    finally:
        ann.close()
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 1 and "relkit_decision_with_history" in out and "team init" in out, out
    code, out, err = run_cli(["team", "init", "--db", team.owner])
    assert code == 0, out + err
    code, out, err = run_cli(["db", "check", "--db", team.owner])
    assert code == 0, out + err
    assert team.psql("carol", "UPDATE adjudication SET grade = 0").returncode != 0
    got = team.psql("ann", "SELECT count(*) FROM adjudication_history")
    assert got.returncode == 0 and got.stdout.strip() == "0", got       # none of her rows


# -- team init --role-prefix: names PostgreSQL would cut short ---------------------------
def _roles(prefix: str) -> int:
    engine = create_engine(str(PG_URL).replace("postgresql://", "postgresql+psycopg://", 1))
    try:
        with engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM pg_roles WHERE "
                                         "starts_with(rolname, :p)"), {"p": prefix}).scalar_one())
    finally:
        engine.dispose()


def test_team_init_refuses_a_role_prefix_making_names_too_long() -> None:
    admin = _need_pg()
    url, drop = fresh_pg_database(admin)
    prefix = "p" + uuid.uuid4().hex[:8] + "_" * 52         # 61 bytes: every login > 63
    try:
        store = make_project(url)
        register_leads(store, ["carol"])
        store.close()
        code, out, err = run_cli(["team", "init", "--role-prefix", prefix, "--db", url])
        assert code == 2, out + err
        assert len(err.strip().splitlines()) == 1, err
        assert "--role-prefix" in err and "63" in err and "relkit_assessors" in err, err
        assert _roles(prefix) == 0
        # the longest name made decides: 47 bytes + "relkit_assessors" (16) fits; 48 not
        for size, want in ((48, 2), (47, 0)):
            short = prefix[:size]
            code, out, err = run_cli(["team", "init", "--role-prefix", short, "--db", url])
            assert code == want, out + err
        assert "created login " + prefix[:47] + "carol for carol" in err, err
    finally:
        drop()
        _drop_roles(admin, prefix[:47])


def test_team_init_refuses_a_default_prefix_making_names_too_long() -> None:
    """The default prefix is the database's name: a long one is said, with the option
    that mends it (exit 1: the user gave no value)."""
    admin = _need_pg()
    name = "relkit_test_" + uuid.uuid4().hex[:12] + "_" + "x" * 30     # 55 bytes
    engine = create_engine(admin.replace("postgresql://", "postgresql+psycopg://", 1),
                           isolation_level="AUTOCOMMIT")
    with engine.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    url = admin.rsplit("/", 1)[0] + "/" + name
    try:
        make_project(url).close()
        code, out, err = run_cli(["team", "init", "--db", url])
        assert code == 1, out + err
        assert len(err.strip().splitlines()) == 1 and "--role-prefix" in err, err
        assert "relkit_assessors" in err and "63" in err, err
        assert _roles(name) == 0
    finally:
        with engine.connect() as conn:
            conn.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
        engine.dispose()
        _drop_roles(admin, name[:40])     # (none made; PostgreSQL would cut names at 63)


@pytest.mark.parametrize("people", [["ann"], ["ann", "x" * 70]])
def test_prefix_length_counts_names_that_can_be_logins(people: list[str]) -> None:
    from relkit.judging.store.access.names import PrefixTooLong, check_prefix_length

    check_prefix_length("a" * 47, people)          # 47 + 16 ("relkit_assessors") = 63
    with pytest.raises(PrefixTooLong, match=r"'a{48}relkit_assessors', is 64 bytes"):
        check_prefix_length("a" * 48, people)
    name = "n" * 20                                # longer than "relkit_assessors"
    check_prefix_length("b" * 43, ["ann", name])
    with pytest.raises(PrefixTooLong, match=f"'b{{44}}{name}', is 64 bytes.*at most 43"):
        check_prefix_length("b" * 44, ["ann", name])


def test_team_init_rerun_skips_a_person_too_long_with_the_prefix(team: Team) -> None:  # noqa: F811
    """A re-run keeps the first run's prefix: one person whose name fits alone but not
    after it gets no login (a warning), and the others' roles and the decision guard
    still come (the upgrade to 0007 needs this re-run)."""
    name = "z" * (63 - len(team.prefix) + 1)       # 64 bytes with the prefix; fits alone
    with team.store.engine.begin() as conn:
        conn.execute(text("INSERT INTO assessor (name, role, kind, created_at) VALUES "
                          "(:n, 'assessor', 'human', now())"), {"n": name})
    team.store.assign(["erin"], topics=["007"])
    code, out, err = run_cli(["team", "init", "--db", team.owner])
    assert code == 0, out + err
    assert f"no login for assessor {name!r}" in err and "63 bytes" in err, err
    assert f"created login {team.prefix}erin for erin" in err, err
    assert "--role-prefix" not in err, err
