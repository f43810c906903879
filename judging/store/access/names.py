"""PostgreSQL role names for a team: derived from assessor names, one prefix per database.

Roles are cluster-wide in PostgreSQL while relkit's assessors belong to one database,
so every role relkit makes carries a prefix (by default the database's name and ``_``):
two relkit databases on one server (and parallel tests) never share a role. Nothing
here touches a database; identifiers are quoted where the SQL is written.
"""

from __future__ import annotations

import re

# Which names can be a login is decided apart (relkit.judging.store.logins), where the
# commands that add people check it too, without importing this package.
from relkit.judging.store.logins import ASSESSORS_GROUP, LEADS_GROUP, MAX_BYTES, login_problem
from relkit.judging.store.models import StoreError

__all__ = ["PrefixTooLong", "check_prefix", "check_prefix_length", "default_prefix",
           "group_names", "login_problem"]
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


def group_names(prefix: str) -> tuple[str, str]:
    """The NOLOGIN group roles: (assessors', leads')."""
    return prefix + ASSESSORS_GROUP, prefix + LEADS_GROUP


class PrefixTooLong(StoreError):
    """The role prefix would make a role name PostgreSQL cuts short (nothing was made).

    ``default``: the prefix was the default one (the database's name), not a value the
    user gave.
    """

    def __init__(self, message: str, default: bool = False) -> None:
        super().__init__(message)
        self.default = default


def check_prefix_length(prefix: str, people: list[str], default: bool = False) -> None:
    """Raise :class:`PrefixTooLong` (one line) if ``prefix`` makes a name over the limit.

    The names made are the two groups' and ``prefix + name`` for each of ``people``
    (those whose name alone fits: a longer one gets no login under any prefix, and
    ``team init`` says so). PostgreSQL cuts a longer identifier to 63 bytes with only a
    NOTICE, so the roles would be made under names no login matches.
    """
    made = [*group_names(prefix),
            *(prefix + n for n in people if login_problem(None, n) is None)]
    longest = max(made, key=lambda r: len(r.encode("utf-8")))
    size = len(longest.encode("utf-8"))
    if size > MAX_BYTES:
        raise PrefixTooLong(f"--role-prefix {prefix!r}: the longest role name it makes, "
                            f"{longest!r}, is {size} bytes, over PostgreSQL's {MAX_BYTES}-"
                            "byte limit for a name; choose a prefix of at most "
                            f"{MAX_BYTES - size + len(prefix.encode('utf-8'))} bytes; "
                            "nothing was changed", default=default)
