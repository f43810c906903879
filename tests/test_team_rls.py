"""Access control: `relkit team init` roles and row-level security, and the commands' checks.

Against the real PostgreSQL server of the store tests (RELKIT_TEST_PG; skipped without it,
a failure under RELKIT_REQUIRE_PG as in CI), with the real ``psql`` client as the
"attacker": ann's login must not read bob's judgments, forge one of his, or alter
history, whatever client she uses. The same rules through relkit's Python API with
ann's URL, and the commands' one-line refusals (also on SQLite, with $RELKIT_USER).
"""

from __future__ import annotations

import glob
import os
import shutil
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from sqlalchemy import select, text

from helpers import PG_URL, fresh_pg_database, run_cli
from relkit.judging.store.access.names import group_names
from relkit.judging.store.access.policies import init_team
from relkit.judging.store.adjudication import cases, register_leads
from relkit.judging.store.assign import Store
from relkit.judging.store.connection import DatabaseError
from relkit.judging.store.models import StoreError
from relkit.judging.store.reports import adjudicate
from relkit.judging.store.tables import AdjudicationRow, JudgmentEventRow, JudgmentRow
from store_helpers import make_project


def _psql_binary() -> str | None:
    found = shutil.which("psql")
    if found:
        return found
    hits = sorted(glob.glob("/usr/lib/postgresql/*/bin/psql"))
    return hits[-1] if hits else None


PSQL = _psql_binary()


def _need_pg() -> str:
    if not PG_URL:
        if os.environ.get("RELKIT_REQUIRE_PG"):
            pytest.fail("RELKIT_REQUIRE_PG is set but RELKIT_TEST_PG is not: "
                        "PostgreSQL was not started (.ci/postgres)")
        pytest.skip("PostgreSQL not available: set RELKIT_TEST_PG (see .ci/postgres)")
    return PG_URL


@dataclass
class Team:
    owner: str              # the owner's URL (the test server's superuser)
    prefix: str
    store: Store            # opened as the owner

    def url(self, person: str) -> str:
        base, db = self.owner.rsplit("/", 1)
        scheme, rest = base.split("://", 1)
        host = rest.split("@", 1)[1]
        return f"{scheme}://{self.prefix}{person}@{host}/{db}"

    def psql(self, person: str, sql: str) -> subprocess.CompletedProcess[str]:
        """Run ``sql`` with the real psql binary, logged in as ``person``'s role."""
        if PSQL is None:
            pytest.fail("psql not found (PATH or /usr/lib/postgresql/*/bin)")
        return subprocess.run([PSQL, self.url(person), "-X", "-v", "ON_ERROR_STOP=1", "-At",
                               "-c", sql], capture_output=True, text=True, timeout=60)

    def roles(self) -> int:
        """How many roles of this test's team there are (the server's roles are every
        worker's: a count of them all moves with the other tests)."""
        with self.store.engine.connect() as conn:
            return int(conn.execute(text("SELECT count(*) FROM pg_roles WHERE "
                                         "starts_with(rolname, :p)"),
                                    {"p": self.prefix}).scalar_one())

    def owner_scalar(self, sql: str) -> object:
        with self.store.engine.connect() as conn:
            return conn.execute(text(sql)).scalar()


def _drop_roles(admin_url: str, prefix: str) -> None:
    from sqlalchemy import create_engine

    engine = create_engine(admin_url.replace("postgresql://", "postgresql+psycopg://", 1),
                           isolation_level="AUTOCOMMIT")
    try:
        with engine.connect() as conn:
            roles = [r for (r,) in conn.execute(text(
                "SELECT rolname FROM pg_roles WHERE starts_with(rolname, :p)"),
                {"p": prefix})]
            groups = set(group_names(prefix))
            for r in sorted(roles, key=lambda r: r in groups):  # members first
                q = conn.dialect.identifier_preparer.quote_identifier(r)
                conn.execute(text(f"DROP ROLE IF EXISTS {q}"))
    finally:
        engine.dispose()


@pytest.fixture
def team() -> Iterator[Team]:
    """ann and bob judge (topics overlap), carol leads; bob has judged two documents."""
    admin = _need_pg()
    url, drop = fresh_pg_database(admin)
    store = make_project(url, overlap=0.5)
    register_leads(store, ["carol"])
    bob = store.assessor("bob")
    for item in bob.items(bob.topics()[0].key)[:2]:
        bob.record(topic=item.topic, doc=item.doc, grade=1, note="bob's note")
    report = init_team(store)
    try:
        yield Team(url, report.prefix, store)
    finally:
        store.close()
        drop()
        _drop_roles(admin, report.prefix)


def _bob_id(team: Team) -> int:
    return int(team.owner_scalar("SELECT id FROM assessor WHERE name = 'bob'"))  # type: ignore[arg-type]


# -- psql as ann: the database itself refuses --------------------------------------------
def test_psql_ann_cannot_read_bobs_judgments(team: Team) -> None:
    bob = _bob_id(team)
    assert team.owner_scalar(f"SELECT count(*) FROM judgment WHERE assessor_id = {bob}") == 2
    for table in ("judgment", "judgment_history"):
        got = team.psql("ann", f"SELECT count(*) FROM {table} WHERE assessor_id = {bob}")
        assert got.returncode == 0, got.stderr
        assert got.stdout.strip() == "0"
    # Nor the pool's provenance (a static pool), the gold pairs, or an adjudication.
    for table in ("pool_entry", "gold", "adjudication"):
        got = team.psql("ann", f"SELECT count(*) FROM {table}")
        assert got.returncode == 0, got.stderr
        assert got.stdout.strip() == "0", table


def test_psql_ann_sees_only_her_documents_and_topics(team: Team) -> None:
    mine = team.owner_scalar(
        "SELECT count(DISTINCT i.document_id) FROM assignment_item i JOIN assignment a "
        "ON a.id = i.assignment_id JOIN assessor p ON p.id = a.assessor_id "
        "WHERE p.name = 'ann'")
    total = team.owner_scalar("SELECT count(*) FROM document")
    got = team.psql("ann", "SELECT count(*) FROM document")
    assert got.returncode == 0, got.stderr
    assert int(got.stdout) == mine
    assert mine < total  # type: ignore[operator]


def test_psql_ann_cannot_alter_history(team: Team) -> None:
    before = team.owner_scalar("SELECT count(*) FROM judgment_history")
    for sql in ("UPDATE judgment_history SET grade = 0",
                "DELETE FROM judgment_history",
                "TRUNCATE judgment_history"):
        got = team.psql("ann", sql)
        assert got.returncode != 0, sql
        assert "permission denied" in got.stderr, got.stderr
    assert team.owner_scalar("SELECT count(*) FROM judgment_history") == before


def test_psql_ann_cannot_write_as_bob(team: Team) -> None:
    bob = _bob_id(team)
    row = team.owner_scalar(f"SELECT topic_id || ',' || document_id FROM judgment "
                            f"WHERE assessor_id = {bob} LIMIT 1")
    topic_id, doc_id = str(row).split(",")
    got = team.psql("ann", "INSERT INTO judgment (collection_id, assessor_id, topic_id, "
                    "document_id, grade, status, note, flagged, dwell_ms, version, source, "
                    f"created_at, updated_at) VALUES (1, {bob}, {topic_id}, {doc_id}, 3, "
                    "'judged', '', false, 0, 1, 'api', now(), now())")
    assert got.returncode != 0
    assert "row-level security" in got.stderr, got.stderr
    # An update of bob's rows finds none; his grades stay.
    got = team.psql("ann", f"UPDATE judgment SET grade = 3 WHERE assessor_id = {bob}")
    assert got.returncode == 0, got.stderr
    assert team.owner_scalar(f"SELECT count(*) FROM judgment WHERE assessor_id = {bob} "
                             "AND grade = 1") == 2
    # Nor may she settle a pair (leads only) or add herself an assignment.
    for sql in ("INSERT INTO adjudication (collection_id, topic_id, document_id, grade, "
                f"lead_id, note, updated_at) VALUES (1, {topic_id}, {doc_id}, 0, {bob}, '', "
                "now())",
                "UPDATE assessor SET role = 'lead' WHERE name = 'ann'",
                "DELETE FROM judgment"):
        got = team.psql("ann", sql)
        assert got.returncode != 0, sql
        assert "permission denied" in got.stderr, got.stderr


def test_psql_lead_reads_everything_but_writes_only_adjudications(team: Team) -> None:
    total = team.owner_scalar("SELECT count(*) FROM judgment")
    got = team.psql("carol", "SELECT count(*) FROM judgment")
    assert got.returncode == 0, got.stderr
    assert int(got.stdout) == total
    got = team.psql("carol", "UPDATE judgment SET grade = 0")
    assert got.returncode != 0 and "permission denied" in got.stderr
    got = team.psql("carol", "DELETE FROM judgment_history")
    assert got.returncode != 0 and "permission denied" in got.stderr


# -- the same rules through relkit's Python API with the person's URL ------------------------
def test_api_ann_judges_within_her_rights(team: Team) -> None:
    ann = Store.open(team.url("ann"), create=False)
    try:
        view = ann.assessor("ann")
        topic = view.topics()[0].key
        item = view.next_item(topic)
        assert item is not None
        saved = view.record(topic=topic, doc=item.doc, grade=2, note="clear", dwell_ms=900)
        assert saved.grade == 2
        view.record(topic=topic, doc=item.doc, grade=3)  # a revision: update + history
        assert [h.grade for h in view.history(topic, item.doc)] == [2, 3]
        # A second tab that showed version 1 saves over version 2: it is told of the 3
        # (read from her own history, in the write's transaction).
        late = view.record(topic=topic, doc=item.doc, grade=1, expected_version=1)
        assert late.meanwhile is not None and late.meanwhile.grade == 3
        assert view.next_item(topic) is not None
        # Bob's work is invisible to her, and she cannot write in his name.
        bob = ann.assessor("bob")
        assert bob.judgments() == []
        with pytest.raises(StoreError, match="not assigned"):
            bob.record(topic="1", doc="d00", grade=1)
        with ann.read() as s:
            names = set(s.execute(select(JudgmentRow.assessor_id)).scalars())
            assert names == {view.assessor_id}
    finally:
        ann.close()
    with team.store.read() as s:  # the owner sees ann's two writes in the history
        assert s.execute(select(JudgmentEventRow).where(
            JudgmentEventRow.assessor_id == view.assessor_id)).all().__len__() == 3


def test_api_ann_cannot_alter_history(team: Team) -> None:
    from sqlalchemy.exc import ProgrammingError

    ann = Store.open(team.url("ann"), create=False)
    try:
        for sql in ("UPDATE judgment_history SET note = 'x'", "DELETE FROM judgment_history"):
            with pytest.raises(ProgrammingError, match="permission denied"), \
                    ann.write() as s, s.begin():
                s.execute(text(sql))
    finally:
        ann.close()


def test_api_lead_reads_all_and_adjudicates(team: Team) -> None:
    carol = Store.open(team.url("carol"), create=False)
    try:
        found = cases(carol)
        assert {o.assessor for c in found for o in c.opinions} == {"bob"}  # bob's notes
        c = found[0]
        adjudicate(carol, "carol", c.topic, c.doc, 2, "checked")
        with carol.read() as s:
            assert s.execute(select(AdjudicationRow.grade)).scalars().all() == [2]
    finally:
        carol.close()


def test_only_the_owner_migrates(team: Team) -> None:
    from alembic import command

    from relkit.judging.store.migrate import _config, head

    with team.store.writer.begin() as conn:  # the owner takes the schema back one revision
        cfg = _config()
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0004")
    with pytest.raises(DatabaseError, match=r"only its owner \(postgres\) can upgrade it"):
        Store.open(team.url("ann"), create=False)
    assert team.owner_scalar("SELECT version_num FROM alembic_version") == "0004"
    Store.open(team.owner, create=False).close()  # the owner upgrades
    assert team.owner_scalar("SELECT version_num FROM alembic_version") == head()
    init_team(team.store)  # (0005's column came back: refresh the policies)
    Store.open(team.url("ann"), create=False).close()


def test_team_init_is_idempotent_and_adds_new_people(team: Team) -> None:
    before = team.owner_scalar("SELECT count(*) FROM pg_policies")
    code, _, err = run_cli(["assign", "dave", "--topic", "1", "--db", team.owner])
    assert code == 0 and "run `relkit team init` to give dave a login" in err, err
    rep = init_team(team.store)
    assert rep.created == [("dave", f"{team.prefix}dave")]
    assert {n for n, _ in rep.existing} == {"ann", "bob", "carol"}
    assert team.owner_scalar("SELECT count(*) FROM pg_policies") == before
    got = team.psql("dave", "SELECT count(*) FROM judgment")
    assert got.returncode == 0 and got.stdout.strip() == "0"


def test_team_init_skips_a_name_that_cannot_be_a_role(team: Team) -> None:
    # `assign` refuses such a name now; a database from before may hold one.
    with team.store.engine.begin() as conn:
        conn.execute(text("INSERT INTO assessor (name, role, kind, created_at) VALUES "
                          "(:n, 'lead', 'human', now())"), {"n": "x" * 70})
    team.store.assign(["erin"], topics=["007"])
    roles = team.roles()
    rep = init_team(team.store)
    assert [(n, r) for n, r, _ in rep.unfit] == [("x" * 70, "lead")]
    assert "longer than PostgreSQL's 63 bytes" in rep.unfit[0][2]
    assert rep.created == [("erin", team.prefix + "erin")]
    assert team.roles() == roles + 1


def test_odd_names_are_quoted(team: Team) -> None:
    from sqlalchemy.engine import make_url

    odd = 'o\'brien "x"; drop'
    team.store.assign([odd], topics=["007"])
    init_team(team.store)
    url = make_url(team.url("ann").replace("postgresql://", "postgresql+psycopg://", 1)
                   ).set(username=team.prefix + odd)
    store = Store.open(url.render_as_string(hide_password=False), create=False)
    try:
        assert [t.key for t in store.assessor(odd).topics()] == ["007"]
    finally:
        store.close()


# -- the commands: one-line refusals -------------------------------------------------------
def test_cli_as_ann_on_postgresql(team: Team) -> None:
    ann = team.url("ann")
    code, _, err = run_cli(["judge", "--db", ann, "--lead", "carol"])
    assert code == 2 and "cannot act as carol" in err and len(err.splitlines()) == 1, err
    code, _, err = run_cli(["judge", "--db", ann, "--assessor", "bob"])
    assert code == 2 and "cannot judge as bob" in err, err
    code, _, err = run_cli(["export", "qrels", "--db", ann, "--method", "assessor",
                            "--assessor", "bob"])
    assert code == 1 and "exports only their own" in err and len(err.splitlines()) == 1, err
    code, out, err = run_cli(["export", "qrels", "--db", ann, "--method", "assessor",
                              "--assessor", "ann"])
    assert code == 0, err
    code, out, err = run_cli(["status", "--db", ann, "--format", "tsv"])
    assert code == 0, err
    assert "ann\t" in out and "bob" not in out
    # An owner's command: the tool says so in one line, before the database (which
    # refuses the write too: below, through the API, past the tool's check).
    code, _, err = run_cli(["assign", "--db", ann, "--lead", "eve"])
    assert code == 1 and len(err.splitlines()) == 1, err
    assert "relkit assign is for the database's owner: ann (login" in err, err
    store = Store.open(ann, create=False)
    try:
        with pytest.raises(Exception, match="permission denied for table assessor"):
            register_leads(store, ["eve"])
    finally:
        store.close()
    code, _, err = run_cli(["team", "init", "--db", ann])
    assert code == 1 and "run it as the database's owner" in err, err


@pytest.fixture
def sqlite_team(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    path = str(tmp_path / "team.db")
    store = make_project(path)
    register_leads(store, ["carol"])
    store.close()
    monkeypatch.setenv("RELKIT_USER", "ann")
    return path


def test_cli_as_ann_on_sqlite(sqlite_team: str) -> None:
    db = sqlite_team
    code, _, err = run_cli(["judge", "--db", db, "--lead", "carol"])
    assert code == 2 and "ann ($RELKIT_USER) cannot act as carol" in err, err
    code, _, err = run_cli(["export", "qrels", "--db", db, "--method", "assessor",
                            "--assessor", "bob"])
    assert code == 1 and "exports only their own" in err, err
    code, _, err = run_cli(["export", "qrels", "--db", db])
    assert code == 1 and "combines every assessor's" in err, err
    for cmd in (["disagreements"], ["export", "jsonl"], ["agree"]):
        code, _, err = run_cli([*cmd, "--db", db])
        assert code == 1 and "ann ($RELKIT_USER) is an assessor" in err, (cmd, err)
    code, out, err = run_cli(["status", "--db", db, "--format", "tsv"])
    assert code == 0 and "ann\t" in out and "bob" not in out, err
    code, _, err = run_cli(["adjudicate", "1", "d00", "2", "--db", db, "--lead", "carol"])
    assert code == 1 and "cannot act as carol" in err, err


def test_sqlite_lead_and_owner(sqlite_team: str, monkeypatch: pytest.MonkeyPatch) -> None:
    db = sqlite_team
    monkeypatch.setenv("RELKIT_USER", "carol")
    code, out, err = run_cli(["status", "--db", db, "--format", "tsv"])
    assert code == 0 and "ann\t" in out and "bob\t" in out, err
    code, _, err = run_cli(["adjudicate", "1", "d00", "2", "--db", db, "--lead", "carol"])
    assert code == 0, err
    monkeypatch.setenv("RELKIT_USER", "zed")
    code, _, err = run_cli(["status", "--db", db])
    assert code == 1 and "RELKIT_USER=zed: no assessor or lead" in err, err
    monkeypatch.delenv("RELKIT_USER")
    code, _, err = run_cli(["export", "qrels", "--db", db])
    assert code == 0, err


def test_team_init_on_sqlite_says_what_it_cannot_enforce(sqlite_team: str) -> None:
    code, _, err = run_cli(["team", "init", "--db", sqlite_team])
    assert code == 1 and len(err.splitlines()) == 1
    assert "anyone who can read the file can read it all" in err


def test_adaptive_pool_under_row_level_security() -> None:
    """The picker's writes and reads (candidates, the primary's items) work with logins."""
    from test_adaptive_judging import judge_all, reference
    from test_adaptive_judging import project as adaptive_project

    admin = _need_pg()
    url, drop = fresh_pg_database(admin)
    owner, cands = adaptive_project(url, "hedge", assessors=("ann", "bob"), overlap=0.5)
    prefix = init_team(owner).prefix
    team = Team(url, prefix, owner)
    try:
        ann = Store.open(team.url("ann"), create=False)
        bob = Store.open(team.url("bob"), create=False)
        try:
            t = sorted(x.key for x in ann.assessor("ann").topics() if x.total == 10)[0]
            assert judge_all(ann, "ann", t) == reference(cands, "hedge", {}, t, 10)
            view = bob.assessor("bob")
            seen = []
            while (item := view.next_item(t)) is not None:
                seen.append(item.doc)
                view.record(topic=t, doc=item.doc, grade=0)
            assert len(seen) == 5
            # bob follows ann's sequence but still cannot read her grades.
            got = team.psql("bob", "SELECT count(*) FROM judgment WHERE assessor_id <> "
                            "relkit_assessor()")
            assert got.returncode == 0 and got.stdout.strip() == "0", got.stderr
        finally:
            ann.close()
            bob.close()
    finally:
        owner.close()
        drop()
        _drop_roles(admin, prefix)


def test_judging_screen_as_ann_login(team: Team) -> None:
    """The real judging screen, logged in as ann: grades, a judge-later, all committed."""
    from relkit.judging.tui.app import JudgeApp
    from tui_helpers import Clock, drive, read_and_press, screen

    ann = Store.open(team.url("ann"), create=False)
    shown: list[str] = []

    async def steps(pilot: object, app: JudgeApp, clock: Clock) -> None:
        await read_and_press(pilot, clock, "enter")  # open the first topic
        for key in ("2", "l", "0"):
            item = screen(app).item
            assert item is not None
            shown.append(item.doc)
            await read_and_press(pilot, clock, key)

    try:
        drive(ann, steps, min_view=0)
    finally:
        ann.close()
    with team.store.read() as s:  # the owner sees exactly those three writes, as ann's
        rows = s.execute(text(
            "SELECT d.key, j.status, j.grade FROM judgment j JOIN document d "
            "ON d.id = j.document_id JOIN assessor a ON a.id = j.assessor_id "
            "WHERE a.name = 'ann' ORDER BY j.id")).all()
    assert [(d, st, g) for d, st, g in rows] == [
        (shown[0], "judged", 2), (shown[1], "later", None), (shown[2], "judged", 0)]


def test_judge_opens_the_persons_own_screen(sqlite_team: str,
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """Without --assessor/--lead, `judge` opens the screen of the person relkit acts for."""
    from relkit.judging.tui import app as tui_app
    from relkit.judging.tui import cli as tui_cli
    from relkit.judging.tui import lead as tui_lead

    opened: list[tuple[str, str]] = []
    monkeypatch.setattr(tui_cli, "need_terminal", lambda: None)
    monkeypatch.setattr(tui_lead.LeadApp, "run",
                        lambda self: opened.append(("lead", self.lead)))

    def fake_app(store: Store, name: str, settings: object) -> object:
        opened.append(("assessor", name))
        raise SystemExit(0)  # stop before the screen would run

    monkeypatch.setattr(tui_app, "make_app", fake_app)
    monkeypatch.setenv("RELKIT_USER", "carol")
    assert run_cli(["judge", "--db", sqlite_team])[0] == 0
    monkeypatch.setenv("RELKIT_USER", "bob")
    with pytest.raises(SystemExit):
        run_cli(["judge", "--db", sqlite_team])
    assert opened == [("lead", "carol"), ("assessor", "bob")]


def test_cli_team_init_with_passwords(team: Team) -> None:
    team.store.assign(["erin"], topics=["007"])
    code, out, err = run_cli(["team", "init", "--db", team.owner, "--passwords"])
    assert code == 0, err
    role = f"{team.prefix}erin"
    assert f"relkit: created login {role} for erin" in err
    assert "refreshed 3 existing logins" in err
    (line,) = out.splitlines()  # only the new login gets a password, shown once
    name, password = line.split("\t")
    assert name == role and len(password) >= 20
    assert team.owner_scalar(f"SELECT rolpassword IS NOT NULL FROM pg_authid "
                             f"WHERE rolname = '{role}'") is True
    assert team.owner_scalar(f"SELECT rolpassword IS NULL FROM pg_authid "
                             f"WHERE rolname = '{team.prefix}ann'") is True


def test_team_init_does_not_take_over_a_role_it_did_not_make(team: Team) -> None:
    """An assessor whose prefixed name is an existing powerful role (the owner's, a
    superuser's, one that may create roles) gets no login: the role is left alone and
    not granted to the server's login."""
    boss = team.prefix + "boss"
    with team.store.engine.begin() as conn:
        conn.execute(text(f'CREATE ROLE "{boss}" NOLOGIN CREATEROLE'))
    try:
        team.store.assign(["boss"], topics=["007"])
        rep = init_team(team.store)
        assert [(n, r) for n, r, _ in rep.unfit] == [("boss", "assessor")]
        assert "allowed to create roles" in rep.unfit[0][2]
        ga, _ = group_names(team.prefix)
        assert team.owner_scalar(
            "SELECT count(*) FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.member "
            f"WHERE r.rolname = '{boss}'") == 0
        assert team.owner_scalar(f"SELECT rolcanlogin FROM pg_roles WHERE rolname = '{boss}'"
                                 ) is False
    finally:
        with team.store.engine.begin() as conn:
            conn.execute(text(f'DROP OWNED BY "{boss}"'))
            conn.execute(text(f'DROP ROLE "{boss}"'))
