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


def role_name(prefix: str, assessor: str) -> str:
    """The login role of ``assessor``, or a one-line error if it cannot be a role name."""
    role = prefix + assessor
    why = None
    if not assessor:
        why = "it is empty"
    elif any(ord(c) < 32 or ord(c) == 127 for c in assessor):
        why = "it holds a control character"
    elif len(role.encode("utf-8")) > MAX_BYTES:
        why = (f"{prefix}{assessor!r} is longer than PostgreSQL's {MAX_BYTES} bytes for a "
               "role name")
    elif role.lower().startswith("pg_"):
        why = "role names beginning with pg_ are PostgreSQL's own"
    elif role.lower() in RESERVED:
        why = f"{role!r} is a reserved name in PostgreSQL"
    elif assessor in (ASSESSORS_GROUP, LEADS_GROUP):
        why = f"{prefix}{assessor} is the name of relkit's group role"
    if why:
        raise StoreError(f"team init: assessor {assessor!r} cannot have a login role ({why}); "
                         "nothing was changed")
    return role


def group_names(prefix: str) -> tuple[str, str]:
    """The NOLOGIN group roles: (assessors', leads')."""
    return prefix + ASSESSORS_GROUP, prefix + LEADS_GROUP
