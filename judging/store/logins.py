"""Which assessor names can become a PostgreSQL login role: the one rule.

``relkit team init`` (:mod:`relkit.judging.store.access.policies`) makes a login
``<prefix><name>`` per person, and the commands that add people
(:meth:`relkit.judging.store.database.Database.ensure_assessors`) refuse a name that could
never be one, so that no later ``team init`` fails on it. Nothing here touches a
database.
"""

from __future__ import annotations

MAX_BYTES = 63  # NAMEDATALEN - 1: PostgreSQL truncates longer names, so two could clash
RESERVED = frozenset({"public", "none", "current_user", "session_user", "current_role",
                      "user", "all"})
ASSESSORS_GROUP = "relkit_assessors"
LEADS_GROUP = "relkit_leads"


def login_problem(prefix: str | None, assessor: str) -> str | None:
    """Why ``assessor`` cannot have a login role ``prefix + assessor``; ``None`` if it can.

    The one rule, for ``team init`` and for the commands that add people
    (:meth:`relkit.judging.store.database.Database.ensure_assessors`). ``prefix`` None: the
    prefix is not chosen yet (no ``team init`` ran), so only what no prefix can mend.
    """
    role = (prefix or "") + assessor
    if not assessor:
        return "it is empty"
    if any(ord(c) < 32 or ord(c) == 127 for c in assessor):
        return "it holds a control character"
    if len(role.encode("utf-8")) > MAX_BYTES:
        return (f"{role!r} is longer than PostgreSQL's {MAX_BYTES} bytes for a role name"
                if prefix else f"it is longer than PostgreSQL's {MAX_BYTES} bytes for a "
                "role name")
    if prefix is None:
        return None
    if role.lower().startswith("pg_"):
        return "role names beginning with pg_ are PostgreSQL's own"
    if role.lower() in RESERVED:
        return f"{role!r} is a reserved name in PostgreSQL"
    if assessor in (ASSESSORS_GROUP, LEADS_GROUP):
        return f"{role} is the name of relkit's group role"
    return None
