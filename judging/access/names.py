"""PostgreSQL role names for a team: derived from assessor names, one prefix per database.

Roles are cluster-wide in PostgreSQL while relkit's assessors belong to one database,
so every role relkit makes carries a prefix (by default the database's name and ``_``):
two relkit databases on one server (and parallel tests) never share a role. Nothing
here touches a database; identifiers are quoted where the SQL is written.
"""

from __future__ import annotations

import re

from relkit.judging.models import StoreError

MAX_BYTES = 63  # NAMEDATALEN - 1: PostgreSQL truncates longer names, so two could clash
RESERVED = frozenset({"public", "none", "current_user", "session_user", "current_role",
                      "user", "all"})
ASSESSORS_GROUP = "relkit_assessors"
LEADS_GROUP = "relkit_leads"
_PREFIX = re.compile(r"[A-Za-z0-9_]*\Z")


def default_prefix(database: str) -> str:
    """``<database>_``, with anything but letters, digits and ``_`` made ``_``."""
    return re.sub(r"[^A-Za-z0-9_]", "_", database) + "_"


def check_prefix(prefix: str) -> str:
    """The prefix, or a one-line error: letters, digits and ``_`` only.

    The prefix is also written into the database's ``relkit_role_prefix()``
    function, so it must need no quoting anywhere.
    """
    if not _PREFIX.match(prefix):
        raise StoreError(f"--role-prefix {prefix!r}: use letters, digits and _ only")
    return prefix


def login_problem(prefix: str | None, assessor: str) -> str | None:
    """Why ``assessor`` cannot have a login role ``prefix + assessor``; ``None`` if it can.

    The one rule, for ``team init`` and for the commands that add people
    (:meth:`relkit.judging.database.Database.ensure_assessors`). ``prefix`` None: the
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


def group_names(prefix: str) -> tuple[str, str]:
    """The NOLOGIN group roles: (assessors', leads')."""
    return prefix + ASSESSORS_GROUP, prefix + LEADS_GROUP
