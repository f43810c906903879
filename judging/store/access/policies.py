"""``relkit team init``: login roles and row-level security on PostgreSQL.

Run as the database's owner (the role that ran ``relkit init`` and owns the tables;
it keeps migrating and importing, and bypasses row-level security as the owner of
the tables). Everything here is idempotent DDL in one transaction: run it again
after ``relkit assign`` adds people.

* Two NOLOGIN groups, ``<prefix>relkit_assessors`` and ``<prefix>relkit_leads``,
  hold the privileges and are what the policies name; each person gets a LOGIN role
  ``<prefix><name>`` in one of them (automatic assessors get none: their judgments
  are imported by the owner).
* ``relkit_assessor()`` maps ``current_user`` to the assessor's id; every policy
  keys on it.
* An assessor reads their own assignments (and, on an adaptive pool, the one their
  overlap assignment follows), their items, the topics and documents of those (on an
  adaptive pool, the candidates the strategy may pick), their own judgments and
  history. They write exactly what the judging screen writes: their own judgment of a
  document they were given (an item of their assignment to its topic; insert, or
  update on revision), its history row (insert, held to the judgment by
  :mod:`.history_guard`), the ``done`` mark of their own items, and on an adaptive pool
  the item the strategy picked (insert; one of the pool's candidates).
* A lead reads everything and writes final decisions as themselves: ``adjudication``
  (insert, update of the decision's columns) with its ``adjudication_history`` row
  (insert only; held to the decision by :mod:`.decision_guard`).
* Nobody may update, delete or truncate history (no grant; and the triggers of
  migrations 0002 and 0007 refuse it to the owner too). ``relkit serve``'s own login
  (``--serve-login``) may take each person's role and read :data:`SERVER_READS`,
  nothing else. Tables not named here (say, a later
  migration's tokens) get no grant at all.
* No large objects, temporary tables or CREATE in any schema, for anyone of the team
  (:mod:`.lockdown`).
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from sqlalchemy import text

from relkit.judging.store.access.decision_guard import install_decision_guard
from relkit.judging.store.access.history_guard import install_guard
from relkit.judging.store.access.lockdown import limit_logins, lock_down, still_open
from relkit.judging.store.access.names import (
    check_prefix,
    check_prefix_length,
    default_prefix,
    group_names,
    login_problem,
)
from relkit.judging.store.access.preferences import TABLES as PREFERENCE_TABLES
from relkit.judging.store.access.preferences import (
    install_preference_guard,
    preference_statements,
)
from relkit.judging.store.access.quoting import literal as _literal
from relkit.judging.store.access.quoting import quote as _q
from relkit.judging.store.models import StoreError

if TYPE_CHECKING:
    from sqlalchemy import Connection

    from relkit.judging.store.database import Database

# Readable by every team role, whole: no person's data in them.
SHARED = ("alembic_version", "collection", "scale_grade", "assessor")
# Row-level security on these.
GUARDED = ("topic", "document", "pool", "pool_entry", "assignment", "assignment_item",
           "judgment", "judgment_history", "gold", "adjudication", "adjudication_history")
# What ``relkit serve``'s own login reads before a session switches to its person's role
# (and nothing else is granted to it): the schema version (opening the database, in the
# server and each warm spare), the sign-in tokens with their owners' names and roles
# (relkit.judging.store.tokens.Verifier), and the collection with its scale, which a warm
# spare reads ahead (relkit.judging.serve.session.warm_queries).
# The judgment columns a revision sets (relkit.judging.store.assessor._upsert_statement).
REVISED = ("grade", "status", "note", "flagged", "dwell_ms", "version", "source", "updated_at")
# The adjudication columns a changed decision sets (relkit.judging.store.decisions.adjudicate).
DECIDED = ("grade", "lead_id", "note", "updated_at")
SERVER_READS = ("alembic_version", "access_token", "assessor", "collection", "scale_grade")


@dataclass
class TeamReport:
    """What :func:`init_team` did."""

    prefix: str
    created: list[tuple[str, str]] = field(default_factory=list)   # (assessor, role)
    existing: list[tuple[str, str]] = field(default_factory=list)
    automatic: list[str] = field(default_factory=list)             # no login
    passwords: dict[str, str] = field(default_factory=dict)        # role -> new password
    tables: int = 0
    serve_logins: list[str] = field(default_factory=list)          # may SET ROLE to each
    unfit: list[tuple[str, str, str]] = field(default_factory=list)  # (name, role, why): none
    still_open: list[str] = field(default_factory=list)   # lockdown.still_open: not revoked


def init_team(db: Database, prefix: str | None = None, passwords: bool = False,
              serve_login: str | None = None) -> TeamReport:
    """Create or refresh the team's roles and policies (see the module doc).

    ``prefix``: the role-name prefix; by default the one an earlier run used, else the
    database's name and ``_``. ``passwords``: give each role created now a random
    password (returned once in the report); otherwise the roles log in however the
    server's ``pg_hba.conf`` allows (certificates, peer, an admin's ``\\password``).
    ``serve_login``: the login ``relkit serve`` connects as; it is granted every
    person's role, so that each served session can ``SET ROLE`` to its person
    (:mod:`relkit.judging.store.access.acting`). A re-run grants new people's roles to the
    logins granted them before, named again or not.
    """
    if db.engine.dialect.name != "postgresql":
        raise StoreError("team init: SQLite has no users or permissions, so it cannot "
                         "enforce who reads what (anyone who can read the file can read it "
                         "all); relkit's commands check $RELKIT_USER instead (docs/team.md)")
    with db.write() as s, s.begin():
        conn = s.connection()
        _must_own(conn)
        schema = conn.execute(text("SELECT current_schema()")).scalar_one()
        database = conn.execute(text("SELECT current_database()")).scalar_one()
        old = conn.execute(text("SELECT to_regprocedure(:f) IS NOT NULL"),
                           {"f": f"{schema}.relkit_role_prefix()"}).scalar_one()
        first = (conn.execute(text(f"SELECT {_q(conn, schema)}.relkit_role_prefix()"))
                 .scalar_one() if old else None)
        if first is not None and prefix is not None and prefix != first:
            # Another prefix would leave the old logins connecting to an empty view, the
            # old groups holding their grants, and the server's login without the new roles.
            raise StoreError(f"team init --role-prefix {prefix!r}: this team database's "
                             f"logins have the prefix {first!r} (its first team init), and a "
                             "re-run keeps it: leave --role-prefix out; nothing was changed")
        default = prefix is None and first is None
        if prefix is None:
            prefix = first if first is not None else default_prefix(database)
        check_prefix(prefix)
        people = conn.execute(text(f"SELECT name, role, kind FROM {_q(conn, schema)}.assessor "
                                   "ORDER BY name")).all()
        if first is None:
            # Only while the prefix can still be chosen: a re-run keeps the first run's
            # (whose groups fit), and a person added since whose name does not fit after
            # it is skipped below, like any unfit name, rather than refusing the team.
            check_prefix_length(prefix, [n for n, _, k in people if k == "human"],
                                default=default)
        report = TeamReport(prefix)
        roles = []
        for n, r, k in people:
            why = login_problem(prefix, n) if k == "human" else None
            why = why or (_not_a_person(conn, schema, prefix + n) if k == "human" else None)
            if why:     # added before relkit refused such names: skipped, not a stuck team
                report.unfit.append((n, r, why))
            elif k == "human":
                roles.append((n, r, prefix + n))
        report.automatic = [n for n, _, k in people if k != "human"]
        ga, gl = group_names(prefix)
        for g in (ga, gl):
            if not _exists(conn, g):
                conn.execute(text(f"CREATE ROLE {_q(conn, g)} NOLOGIN"))
        for name, role, login in roles:
            q = _q(conn, login)
            if _exists(conn, login):
                conn.execute(text(f"ALTER ROLE {q} LOGIN"))
                report.existing.append((name, login))
            else:
                conn.execute(text(f"CREATE ROLE {q} LOGIN"))
                report.created.append((name, login))
                if passwords:
                    pw = secrets.token_urlsafe(18)
                    conn.execute(text(f"ALTER ROLE {q} PASSWORD {_literal(pw)}"))
                    report.passwords[login] = pw
            mine, other = (gl, ga) if role == "lead" else (ga, gl)
            conn.execute(text(f"GRANT {_q(conn, mine)} TO {q}"))
            conn.execute(text(f"REVOKE {_q(conn, other)} FROM {q}"))
        report.serve_logins = _serve_logins(conn, [login for _, _, login in roles],
                                            serve_login)
        _grants(conn, schema, database, ga, gl)
        _server_reads(conn, schema, database, report.serve_logins)
        team = [ga, gl, *(login for _, _, login in roles), *report.serve_logins]
        lock_down(conn, database, team)       # no large objects, temporary tables, CREATE
        limit_logins(conn, [login for _, _, login in roles])
        report.still_open = still_open(conn, team)
        _functions(conn, schema, prefix)
        _policies(conn, schema, ga, gl)
        install_guard(conn, schema, [login for _, _, login in roles])
        install_decision_guard(conn, schema, [login for _, r, login in roles if r == "lead"])
        for stmt in preference_statements(conn, schema, ga, gl):  # issue 38's tables
            conn.execute(text(stmt))
        install_preference_guard(conn, schema, [login for _, _, login in roles])
        report.tables = len(GUARDED) + len(PREFERENCE_TABLES)
    return report


def _serve_logins(conn: Connection, logins: list[str], new: str | None) -> list[str]:
    """Grant every person's login role to the server logins (``new`` and earlier ones).

    Membership lets a login ``SET ROLE`` to the person. On PostgreSQL 16 and later it
    is granted ``INHERIT FALSE``: the server's login gains nobody's privileges by
    itself, it can only become them.
    """
    # Earlier server logins: members of a person's login that relkit made so. Not the
    # login running team init, nor a member WITH ADMIN OPTION: PostgreSQL 16 makes the
    # role that creates a role such a member of it (the owner, or whoever made the
    # logins); relkit never grants the admin option.
    earlier = set(conn.execute(text(
        "SELECT m.rolname FROM pg_auth_members am JOIN pg_roles r ON r.oid = am.roleid "
        "JOIN pg_roles m ON m.oid = am.member WHERE r.rolname = ANY(:logins) "
        "AND NOT m.rolname = ANY(:logins) AND m.rolname <> current_user "
        # (16's createrole_self_grant adds the creator a second, plain membership row)
        "AND NOT EXISTS (SELECT 1 FROM pg_auth_members ad WHERE ad.roleid = am.roleid "
        "AND ad.member = am.member AND ad.admin_option)"), {"logins": logins}).scalars())
    if new is not None:
        if new in logins:
            raise StoreError(f"team init --serve-login {new}: that is a person's login; give "
                             "relkit serve a login of its own; nothing was changed")
        if not _exists(conn, new):
            raise StoreError(f"team init --serve-login {new}: no such role on this server; "
                             "nothing was changed")
        earlier.add(new)
    version = int(conn.execute(text("SHOW server_version_num")).scalar_one())
    how = " WITH INHERIT FALSE" if version >= 160000 else ""
    for server in sorted(earlier):
        for login in logins:
            conn.execute(text(f"GRANT {_q(conn, login)} TO {_q(conn, server)}{how}"))
    return sorted(earlier)


def _not_a_person(conn: Connection, schema: str, login: str) -> str | None:
    """Why an existing role ``login`` must not become a person's login, or None.

    ``prefix + name`` may name a role relkit did not make: the owner's own (an assessor
    named ``owner`` under the prefix ``relevance_``), a superuser's (``postgres`` under
    an empty prefix). Made a person's login, it would join the assessors' group and be
    granted to the server's login, which could then become it.
    """
    row = conn.execute(text(
        "SELECT r.rolsuper, r.rolcreaterole, r.rolbypassrls, r.rolreplication, "
        "r.rolname = current_user, EXISTS (SELECT 1 FROM pg_tables t WHERE "
        "t.schemaname = :schema AND t.tableowner = r.rolname) "
        "FROM pg_roles r WHERE r.rolname = :login"), {"schema": schema, "login": login}).first()
    if row is None:
        return None
    names = ("a superuser", "allowed to create roles", "allowed to bypass row-level "
             "security", "a replication role", "the login running team init",
             "the owner of the tables")
    what = [n for n, flag in zip(names, row, strict=True) if flag]
    return (f"the role {login} already exists and is {' and '.join(what)}; relkit makes "
            "no such role a person's login") if what else None


def _server_reads(conn: Connection, schema: str, database: str, servers: list[str]) -> None:
    """Let the server logins read :data:`SERVER_READS` (only SELECT, only those)."""
    if not servers:
        return
    sch = _q(conn, schema)
    who = ", ".join(_q(conn, s) for s in servers)
    conn.execute(text(f"GRANT CONNECT ON DATABASE {_q(conn, database)} TO {who}"))
    conn.execute(text(f"GRANT USAGE ON SCHEMA {sch} TO {who}"))
    conn.execute(text(f"GRANT SELECT ON {', '.join(f'{sch}.{_q(conn, t)}' for t in SERVER_READS)}"
                      f" TO {who}"))


def _exists(conn: Connection, role: str) -> bool:
    return bool(conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"),
                             {"r": role}).first())


def _must_own(conn: Connection) -> None:
    owner, may = conn.execute(text(
        "SELECT tableowner, pg_has_role(current_user, tableowner, 'MEMBER') "
        "OR (SELECT rolsuper FROM pg_roles WHERE rolname = current_user) "
        "FROM pg_tables WHERE tablename = 'alembic_version' "
        "AND schemaname = current_schema()")).one()
    if not may:
        raise StoreError(f"team init: run it as the database's owner ({owner}), who owns "
                         "the tables; nothing was changed")


def _grants(conn: Connection, schema: str, database: str, ga: str, gl: str) -> None:
    sch, a, lead = _q(conn, schema), _q(conn, ga), _q(conn, gl)
    both = f"{a}, {lead}"

    def t(name: str) -> str:
        return f"{sch}.{_q(conn, name)}"

    def seq(table: str) -> str:
        return f"{sch}.{_q(conn, table + '_id_seq')}"

    for stmt in (
        f"GRANT CONNECT ON DATABASE {_q(conn, database)} TO {both}",
        f"GRANT USAGE ON SCHEMA {sch} TO {both}",
        # Start from nothing on relkit's tables, so a re-run takes back what it no longer gives.
        f"REVOKE ALL ON {', '.join(t(n) for n in SHARED + GUARDED)} FROM {both}",
        f"GRANT SELECT ON {', '.join(t(n) for n in SHARED + GUARDED)} TO {both}",
        # The assessor's writes: exactly those of AssessorView.record and the adaptive picker.
        # On revision, only the columns AssessorView.record's upsert sets (never who,
        # which pair, or when it was first judged); history_guard's trigger ties each
        # change to its history row.
        f"GRANT INSERT, UPDATE ({', '.join(REVISED)}) ON {t('judgment')} TO {a}",
        f"GRANT INSERT ON {t('judgment_history')} TO {a}",
        f"GRANT INSERT, UPDATE (done) ON {t('assignment_item')} TO {a}",
        f"GRANT USAGE ON SEQUENCE {seq('judgment')}, {seq('judgment_history')}, "
        f"{seq('assignment_item')} TO {a}",
        # The lead's: final decisions, each with its history row (never an edit of one).
        f"GRANT INSERT, UPDATE ({', '.join(DECIDED)}) ON {t('adjudication')} TO {lead}",
        f"GRANT INSERT ON {t('adjudication_history')} TO {lead}",
        f"GRANT USAGE ON SEQUENCE {seq('adjudication')}, {seq('adjudication_history')} "
        f"TO {lead}",
    ):
        conn.execute(text(stmt))


def _functions(conn: Connection, schema: str, prefix: str) -> None:
    sch = _q(conn, schema)
    conn.execute(text(f"CREATE OR REPLACE FUNCTION {sch}.relkit_role_prefix() RETURNS text "
                      f"LANGUAGE sql IMMUTABLE AS $$ SELECT {_literal(prefix)}::text $$"))
    # Invoker's rights: current_user is the person querying (inside a SECURITY DEFINER
    # function it would be the owner).
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_assessor() RETURNS integer "
        f"LANGUAGE sql STABLE AS $$ SELECT id FROM {sch}.assessor WHERE kind = 'human' "
        f"AND {sch}.relkit_role_prefix() || name = current_user::text $$"))
    # Owner's rights, so a policy on `assignment` need not query `assignment` under its own
    # policy (PostgreSQL refuses that recursion). They return ids only.
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_assignments(who integer) "
        # ROWS: a person has a few assignments, not the 1000 rows PostgreSQL assumes of a
        # set-returning function (which would mislead the planner on every policy).
        f"RETURNS SETOF integer LANGUAGE sql STABLE SECURITY DEFINER ROWS 10 "
        f"SET search_path = {sch}, pg_temp AS $$ "
        f"SELECT id FROM {sch}.assignment WHERE assessor_id = who "
        f"UNION SELECT follows_id FROM {sch}.assignment "
        f"WHERE assessor_id = who AND follows_id IS NOT NULL $$"))


def _policies(conn: Connection, schema: str, ga: str, gl: str) -> None:
    sch, a, lead = _q(conn, schema), _q(conn, ga), _q(conn, gl)
    me = f"(SELECT {sch}.relkit_assessor())"
    mine = f"(SELECT {sch}.relkit_assignments({me}))"
    own_assignments = f"(SELECT x.id FROM {sch}.assignment x WHERE x.assessor_id = {me})"
    given = (f"assessor_id = {me} AND EXISTS (SELECT 1 FROM {sch}.assignment x "
             f"JOIN {sch}.assignment_item i ON i.assignment_id = x.id "
             f"WHERE x.assessor_id = {me} AND x.topic_id = judgment.topic_id "
             "AND i.document_id = judgment.document_id)")
    rules: dict[str, list[tuple[str, str, str, str | None]]] = {
        # table: [(policy, command, USING, WITH CHECK)] for the assessors' group
        "assignment": [("select", "SELECT", f"id IN {mine}", None)],
        "assignment_item": [
            ("select", "SELECT", f"assignment_id IN {mine}", None),
            # Only an adaptive assignment's picker adds items, and only its pool's
            # candidates: an item is what makes a document one the person may judge.
            ("insert", "INSERT", "",
             # (At a position within the quota: the picker's n-th pick is position n,
             # and an overlap assessor samples the primary's positions up to it.)
             f"EXISTS (SELECT 1 FROM {sch}.assignment x JOIN {sch}.pool_entry e ON "
             "e.pool_id = x.pool_id AND e.topic_id = x.topic_id WHERE x.id = "
             f"assignment_item.assignment_id AND x.assessor_id = {me} AND x.quota IS NOT "
             "NULL AND assignment_item.position BETWEEN 1 AND x.quota "
             "AND e.document_id = assignment_item.document_id)"),
            ("update", "UPDATE", f"assignment_id IN {own_assignments}",
             f"assignment_id IN {own_assignments}")],
        "topic": [("select", "SELECT", f"id IN (SELECT x.topic_id FROM {sch}.assignment x "
                                       f"WHERE x.assessor_id = {me})", None)],
        "pool": [("select", "SELECT", f"id IN (SELECT x.pool_id FROM {sch}.assignment x "
                                      f"WHERE x.assessor_id = {me})", None)],
        "pool_entry": [("select", "SELECT", f"EXISTS (SELECT 1 FROM {sch}.assignment x "
                        f"WHERE x.assessor_id = {me} AND x.quota IS NOT NULL "
                        "AND x.pool_id = pool_entry.pool_id "
                        "AND x.topic_id = pool_entry.topic_id)", None)],
        # Probed per row through the (assignment, document) unique index, not a set of
        # every document of the assessor's assignments built per query.
        "document": [("select", "SELECT",
                      f"EXISTS (SELECT 1 FROM {sch}.assignment_item i WHERE i.document_id = "
                      f"document.id AND i.assignment_id IN {mine}) OR EXISTS (SELECT 1 FROM "
                      f"{sch}.pool_entry e JOIN {sch}.assignment x ON x.pool_id = e.pool_id "
                      "AND x.topic_id = e.topic_id WHERE e.document_id = document.id AND "
                      f"x.assessor_id = {me} AND x.quota IS NOT NULL)", None)],
        # Her own, and only of a document she was given (an item of her assignment to
        # that topic), when first written and when revised (an imported judgment of a
        # pair she was not given, or one whose item went, stays as it is). The pair
        # itself cannot change: the UPDATE grant leaves out topic and document.
        "judgment": [("select", "SELECT", f"assessor_id = {me}", None),
                     ("insert", "INSERT", "", given),
                     ("update", "UPDATE", f"assessor_id = {me}", given)],
        "judgment_history": [("select", "SELECT", f"assessor_id = {me}", None),
                             ("insert", "INSERT", "", f"assessor_id = {me}")],
        "gold": [],
        "adjudication": [],
        "adjudication_history": [],
    }
    for table in GUARDED:
        t = f"{sch}.{_q(conn, table)}"
        conn.execute(text(f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY"))
        # Re-runs replace relkit's policies; a policy someone else added stays.
        for (name,) in conn.execute(text(
                "SELECT policyname FROM pg_policies WHERE schemaname = :s AND tablename = :t "
                "AND policyname LIKE 'relkit\\_%'"), {"s": schema, "t": table}).all():
            conn.execute(text(f"DROP POLICY {_q(conn, name)} ON {t}"))
        for name, command, using, check in rules[table]:
            clause = (f" USING ({using})" if using else "") + (
                f" WITH CHECK ({check})" if check else "")
            conn.execute(text(f"CREATE POLICY relkit_assessor_{name} ON {t} FOR {command} "
                              f"TO {a}{clause}"))
        conn.execute(text(f"CREATE POLICY relkit_lead_select ON {t} FOR SELECT TO {lead} "
                          "USING (true)"))
    t = f"{sch}.adjudication"
    conn.execute(text(f"CREATE POLICY relkit_lead_insert ON {t} FOR INSERT TO {lead} "
                      f"WITH CHECK (lead_id = {me})"))
    conn.execute(text(f"CREATE POLICY relkit_lead_update ON {t} FOR UPDATE TO {lead} "
                      f"USING (true) WITH CHECK (lead_id = {me})"))
    conn.execute(text(f"CREATE POLICY relkit_lead_insert ON {sch}.adjudication_history FOR "
                      f"INSERT TO {lead} WITH CHECK (lead_id = {me})"))
