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
from relkit.judging.store.access.group_rules import DECIDED as DECIDED
from relkit.judging.store.access.group_rules import GUARDED as GUARDED
from relkit.judging.store.access.group_rules import REVISED as REVISED
from relkit.judging.store.access.group_rules import SHARED as SHARED
from relkit.judging.store.access.group_rules import _functions, _grants, _policies
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

# What ``relkit serve``'s own login reads before a session switches to its person's role
# (and nothing else is granted to it): the schema version (opening the database, in the
# server and each warm spare), the sign-in tokens with their owners' names and roles
# (relkit.judging.store.tokens.Verifier), and the collection with its scale, which a warm
# spare reads ahead (relkit.judging.serve.session.warm_queries).
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


