"""A connection that acts as one person: ``SET ROLE`` on a team database (PostgreSQL).

``relkit serve`` connects with its own login (the ``--db`` it is given), but each
browser session must be held to what its signed-in person may do, by the database,
not by relkit's code alone. On a team database (``relkit team init`` ran, so
``relkit_role_prefix()`` exists) every connection a session's engine hands out is
switched to the person's login role first, so row-level security filters its reads
and checks its writes exactly as for ``psql`` logged in as that person. The server's
login must be allowed to take that role (a superuser may; otherwise ``relkit team
init --serve-login LOGIN`` grants it).

Where it cannot apply — SQLite, which has no users, or a PostgreSQL database where
``team init`` never ran, which has no roles — nothing is switched and :func:`act_as`
says so (returns ``None``); the session is then held by the tool's own checks only.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import event, text

from relkit.judging.store.models import StoreError

if TYPE_CHECKING:
    from sqlalchemy import Engine

INFO_KEY = "relkit_role"


def team_role(engine: Engine, name: str) -> str | None:
    """``name``'s login role on a team database; ``None`` where there are no team roles.

    Raises :class:`StoreError` when the database has team roles but none for ``name``
    (``team init`` not run since they were added): a session must not fall back to the
    server's own login there.
    """
    if engine.dialect.name != "postgresql":
        return None
    with engine.connect() as conn:
        if not conn.execute(text(
                "SELECT to_regprocedure('relkit_role_prefix()') IS NOT NULL")).scalar_one():
            return None
        role, exists = conn.execute(text(
            "SELECT relkit_role_prefix() || CAST(:n AS text), EXISTS (SELECT 1 FROM pg_roles "
            "WHERE rolname = relkit_role_prefix() || CAST(:n AS text))"), {"n": name}).one()
    if not exists:
        raise StoreError(f"{name} has no database login yet on this team database: run "
                         "`relkit team init` as the owner")
    return str(role)


def act_as(engine: Engine, name: str) -> str | None:
    """Make every connection of ``engine`` act as ``name``'s login role; the role.

    Connections already in the pool and those opened later alike: each is switched
    (``SET ROLE``, committed, so a rollback does not undo it) the first time it is
    checked out for this role, and a connection that cannot be switched is never
    handed out. ``None``: SQLite or no team roles, nothing switched (module doc).
    Raises :class:`StoreError` if the server's login may not take the role.
    """
    role = team_role(engine, name)
    if role is None:
        return None
    quoted = engine.dialect.identifier_preparer.quote_identifier(role)

    def switch(dbapi_conn: Any, record: Any, _proxy: Any) -> None:
        if record.info.get(INFO_KEY) == role:
            return
        cur = dbapi_conn.cursor()
        try:
            cur.execute(f"SET ROLE {quoted}")
            cur.execute("SELECT current_user")
            got = cur.fetchone()[0]
        finally:
            cur.close()
        dbapi_conn.commit()
        if got != role:  # never: but a session must not run as anyone else
            raise StoreError(f"SET ROLE {role} left the connection as {got}")
        record.info[INFO_KEY] = role

    event.listen(engine, "checkout", switch)
    try:
        with engine.connect() as conn:  # fail now, in one line, not at the first key
            conn.execute(text("SELECT 1"))
    except Exception as exc:
        event.remove(engine, "checkout", switch)
        login = engine.url.username or "the server's login"
        first = str(getattr(exc, "orig", exc) or exc).splitlines()[0]
        raise StoreError(f"cannot act as {name}'s login {role} ({first}): {login} must be "
                         f"granted it: `relkit team init --serve-login {login}` as the "
                         "owner") from None
    return role


def cannot_act_as(engine: Engine) -> list[str]:
    """The people of a team database whose login role this engine's login may not take.

    Empty on SQLite, without team roles, and for a superuser. ``relkit serve`` says so
    when it starts, rather than at each of those people's sign-in.
    """
    if engine.dialect.name != "postgresql":
        return []
    with engine.connect() as conn:
        if not conn.execute(text(
                "SELECT to_regprocedure('relkit_role_prefix()') IS NOT NULL")).scalar_one():
            return []
        return list(conn.execute(text(
            "SELECT a.name FROM assessor a WHERE a.kind = 'human' AND NOT EXISTS ("
            "SELECT 1 FROM pg_roles r WHERE r.rolname = relkit_role_prefix() || a.name "
            "AND pg_has_role(current_user, r.oid, 'MEMBER')) ORDER BY a.name")).scalars())


def server_cannot_read(engine: Engine) -> list[str]:
    """Of the tables ``relkit serve``'s own login reads before a session takes its
    person's role (:data:`relkit.judging.store.access.policies.SERVER_READS`), those this
    engine's login may not read. Empty on SQLite (no permissions)."""
    if engine.dialect.name != "postgresql":
        return []
    from relkit.judging.store.access.policies import SERVER_READS

    with engine.connect() as conn:
        return [t for t in SERVER_READS if not conn.execute(text(
            "SELECT to_regclass(:t) IS NULL OR has_table_privilege(to_regclass(:t), 'SELECT')"),
            {"t": t}).scalar_one()]
