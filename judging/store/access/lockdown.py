"""What a team's logins may not do beyond relkit's tables: large objects, temporary
tables, new objects in a schema.

PostgreSQL gives every login some privileges through the pseudo-role ``PUBLIC`` by
default: EXECUTE on every function, the large-object ones among them (``lo_create``,
``lo_from_bytea``, ``lowrite``...: each object is stored in ``pg_largeobject`` with no
quota, so one login can fill the server's disk), TEMPORARY on a new database (temporary
tables, likewise unbounded), and up to PostgreSQL 14 CREATE on the schema ``public``.
relkit's screens and commands use none of them as a person or as ``relkit serve``'s
login, so ``relkit team init`` takes them back:

- EXECUTE on PostgreSQL's large-object functions (:data:`LO_SQL`), from ``PUBLIC``;
  these functions belong to the bootstrap superuser, so only a superuser can do it:
  run as a plain owner, team init says which are left (:func:`still_open`);
- TEMPORARY on the database, from ``PUBLIC`` and the team's roles (granted to the
  tables' owner by name: its imports use a temporary table);
- CREATE on every schema of the database where ``PUBLIC`` or a team role has it
  (granted first to the tables' owner by name on relkit's schema: its later team init
  and migrations create functions, tables and indexes there). Up to PostgreSQL 14 the
  schema ``public`` belongs to the bootstrap superuser and every login has CREATE on
  it through ``PUBLIC``: only a superuser (or the schema's owner) can take that back,
  and run by the owner team init says so.

Taken from ``PUBLIC``, they are gone for every login of this database that has them
only that way: a database relkit judges in is the team's alone. Superusers and the
owners of the objects keep theirs. :func:`still_open` is also what ``relkit db check``
asks, so a team database set up by an older relkit says so until team init runs again.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import text

from relkit.judging.store.access.quoting import quote as _q

if TYPE_CHECKING:
    from sqlalchemy import Connection

# Set on each person's login (a role's settings apply to its own sessions only, not to
# its groups' members): what one login's queries may spill to disk, how long a statement
# may run, how long a transaction may sit idle, how many sessions it may hold.
# temp_file_limit only a superuser may set. relkit serve's sessions act as the person
# by SET ROLE on the server's login: they get the server login's settings, not these.
LOGIN_SETTINGS = {"temp_file_limit": "1GB", "statement_timeout": "5min",
                  "idle_in_transaction_session_timeout": "10min"}
LOGIN_LIMITS = 10   # connections per person's login (a screen holds a few)


def limit_logins(conn: Connection, logins: list[str]) -> None:
    """Put :data:`LOGIN_SETTINGS` and :data:`LOGIN_LIMITS` on each of ``logins`` (the
    people's; temp_file_limit only when the running role is a superuser)."""
    superuser = conn.execute(text("SELECT rolsuper FROM pg_roles WHERE rolname = "
                                  "current_user")).scalar_one()
    for login in logins:
        q = _q(conn, login)
        conn.execute(text(f"ALTER ROLE {q} CONNECTION LIMIT {LOGIN_LIMITS}"))
        for name, value in LOGIN_SETTINGS.items():
            if name != "temp_file_limit" or superuser:
                conn.execute(text(f"ALTER ROLE {q} SET {name} = '{value}'"))


# PostgreSQL's large-object functions (server side): create, write, read, import.
LO_SQL = ("SELECT p.oid::regprocedure::text FROM pg_proc p JOIN pg_namespace n "
          "ON n.oid = p.pronamespace WHERE n.nspname = 'pg_catalog' "
          "AND (p.proname LIKE 'lo\\_%' OR p.proname IN ('loread', 'lowrite')) "
          "ORDER BY 1")
# The schemas of this database other than PostgreSQL's own.
SCHEMAS_SQL = ("SELECT nspname FROM pg_namespace WHERE nspname NOT LIKE 'pg\\_%' "
               "AND nspname <> 'information_schema' ORDER BY 1")


def lock_down(conn: Connection, database: str, roles: list[str]) -> None:
    """Revoke the privileges named in the module doc from ``PUBLIC`` and ``roles`` (the
    team's groups, its people's logins and the server's logins).

    A privilege the running role may not revoke is left with a warning from PostgreSQL
    (not an error): :func:`still_open` tells which."""
    who = ", ".join(["PUBLIC", *(_q(conn, r) for r in roles)])
    db = _q(conn, database)
    # The tables' owner keeps its temporary tables (an import's revisions COPY through
    # one) when it does not own the database and had them only through PUBLIC.
    owner = conn.execute(text("SELECT tableowner FROM pg_tables WHERE tablename = "
                              "'alembic_version' AND schemaname = current_schema()")
                         ).scalar_one()
    conn.execute(text(f"GRANT TEMPORARY ON DATABASE {db} TO {_q(conn, owner)}"))
    conn.execute(text(f"REVOKE TEMPORARY ON DATABASE {db} FROM {who}"))
    # Likewise CREATE on relkit's schema, when it has it only through PUBLIC (the
    # schema public up to PostgreSQL 14) and this role may grant it (a superuser).
    mine = conn.execute(text("SELECT current_schema()")).scalar_one()
    if _may(conn, owner, "schema", mine, "CREATE") and conn.execute(text(
            "SELECT has_schema_privilege(:n, 'CREATE WITH GRANT OPTION')"),
            {"n": mine}).scalar_one():
        conn.execute(text(f"GRANT CREATE ON SCHEMA {_q(conn, mine)} TO {_q(conn, owner)}"))
    for (schema,) in conn.execute(text(SCHEMAS_SQL)).all():
        if any(_may(conn, r, "schema", schema, "CREATE") for r in ["public", *roles]):
            conn.execute(text(f"REVOKE CREATE ON SCHEMA {_q(conn, schema)} FROM {who}"))
    functions = [f for (f,) in conn.execute(text(LO_SQL)).all()]
    superuser = conn.execute(text("SELECT rolsuper FROM pg_roles WHERE rolname = "
                                  "current_user")).scalar_one()
    if superuser:    # else each REVOKE would only warn: the functions are the superuser's
        conn.execute(text(f"REVOKE EXECUTE ON FUNCTION {', '.join(functions)} FROM {who}"))


def _may(conn: Connection, role: str, kind: str, name: str, privilege: str) -> bool:
    """has_<kind>_privilege(role, name, privilege); ``role`` "public" is PUBLIC."""
    return bool(conn.execute(text(f"SELECT has_{kind}_privilege(:r, :n, :p)"),
                             {"r": role, "n": name, "p": privilege}).scalar_one())


def still_open(conn: Connection, roles: list[str]) -> list[str]:
    """What ``PUBLIC`` or one of ``roles`` may still do of what :func:`lock_down` takes
    back, each said in a few words (empty: all taken back)."""
    database = conn.execute(text("SELECT current_database()")).scalar_one()
    # (a superuser, the database's owner or the tables' as a server login keeps its own)
    plain = set(conn.execute(text(
        "SELECT rolname FROM pg_roles WHERE rolname = ANY(:r) AND NOT rolsuper AND oid <> "
        "(SELECT datdba FROM pg_database WHERE datname = current_database()) AND rolname <> "
        "(SELECT tableowner FROM pg_tables WHERE tablename = 'alembic_version' AND "
        "schemaname = current_schema())"), {"r": roles}).scalars())
    everyone = ["public", *(r for r in roles if r in plain)]
    out = []
    temp = [r for r in everyone if _may(conn, r, "database", database, "TEMPORARY")]
    if temp:
        owner = conn.execute(text("SELECT datdba::regrole::text FROM pg_database WHERE "
                                  "datname = current_database()")).scalar_one()
        out.append(f"TEMPORARY on the database ({_who(temp)}; {_can(owner, 'the database')})")
    for (schema,) in conn.execute(text(SCHEMAS_SQL)).all():
        create = [r for r in everyone if _may(conn, r, "schema", schema, "CREATE")]
        if create:
            # (PostgreSQL 15's public belongs to pg_database_owner: the database's owner)
            owner = conn.execute(text(
                "SELECT CASE WHEN r.rolname = 'pg_database_owner' THEN (SELECT "
                "datdba::regrole::text FROM pg_database WHERE datname = current_database()) "
                "ELSE r.rolname END FROM pg_namespace n JOIN pg_roles r ON r.oid = "
                "n.nspowner WHERE n.nspname = :s"), {"s": schema}).scalar_one()
            out.append(f"CREATE on schema {schema} ({_who(create)}; {_can(owner, 'the schema')})")
    lo = [f for (f,) in conn.execute(text(LO_SQL)).all()
          if any(_may(conn, r, "function", f, "EXECUTE") for r in everyone)]
    if lo:
        out.append(f"EXECUTE on {len(lo)} large-object functions such as "
                   f"{lo[0].split('(')[0]} (only a superuser can take it back)")
    return out


def team_roles(conn: Connection, groups: tuple[str, str]) -> list[str]:
    """The team's roles: its two ``groups``, their members (the people's logins) and
    the members of those (``relkit serve``'s logins)."""
    return list(conn.execute(text(
        "WITH RECURSIVE r(oid, depth) AS (SELECT oid, 0 FROM pg_roles WHERE rolname = "
        "ANY(:g) UNION SELECT am.member, r.depth + 1 FROM pg_auth_members am JOIN r ON "
        "am.roleid = r.oid WHERE r.depth < 2) "
        "SELECT DISTINCT rolname FROM pg_roles WHERE oid IN (SELECT oid FROM r) ORDER BY 1"),
        {"g": list(groups)}).scalars())


def _can(owner: str, what: str) -> str:
    """Who may take a privilege on ``what`` back: its ``owner`` or a superuser."""
    return f"only {owner}, {what}'s owner, or a superuser can take it back"


def _who(roles: list[str]) -> str:
    return "every login" if "public" in roles else ", ".join(roles)
