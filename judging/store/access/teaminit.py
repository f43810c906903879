"""``relkit team init``'s work: check the role prefix, refuse SQLite, make the logins.

:func:`team_init` opens the database (saying an upgrade through ``notify``), runs
:func:`relkit.judging.store.access.policies.init_team` and closes it; a prefix the
option cannot take is a usage error (:class:`~relkit.metrics.core.options.OptionError`).
:func:`report_lines` words the report. The command prints; this module never does.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from relkit.metrics.core.options import OptionError


def team_init(db: str | None, role_prefix: str | None, passwords: bool,
              serve_login: str | None, notify: Callable[[str], None]) -> Any:
    """Give the team of the PostgreSQL database ``db`` its logins (see
    :func:`~relkit.judging.store.access.policies.init_team`, whose report it returns).

    Raises
    ------
    OptionError
        ``role_prefix`` is not letters, digits and ``_``, or makes a role name too long.
    StoreError
        ``db`` is SQLite (no users or permissions), or the database's own name is too
        long a default prefix.
    """
    from relkit.judging.store.access.names import PrefixTooLong, check_prefix
    from relkit.judging.store.access.policies import init_team
    from relkit.judging.store.assign import Store
    from relkit.judging.store.connection import resolve_url
    from relkit.judging.store.models import StoreError

    if role_prefix is not None:
        try:
            check_prefix(role_prefix)  # a value the option cannot take: a usage error
        except StoreError:
            raise OptionError("--role-prefix", f"use letters, digits and _ only; got "
                              f"{role_prefix!r}") from None
    url = resolve_url(db)
    if not str(url).startswith("postgresql"):
        Store.open(db, readonly=True).close()  # a missing file is said as such first
        raise StoreError("team init: SQLite has no users or permissions, so it cannot "
                         "enforce who reads what (anyone who can read the file can read it "
                         "all); relkit's commands check $RELKIT_USER instead (docs/team.md)")
    store = Store.open(db, create=False, notify=notify)
    try:
        return init_team(store, role_prefix, passwords, serve_login)
    except PrefixTooLong as exc:
        if exc.default:  # the database's name: not the user's value (only on a first run)
            raise StoreError(f"{exc} (the prefix is the database's name by default: give "
                             "a shorter one with --role-prefix)") from None
        # A value the option cannot take here: a usage error, as the option's own check.
        raise OptionError("--role-prefix", str(exc).split(": ", 1)[1]) from None
    finally:
        store.close()


def report_lines(rep: Any) -> list[str]:
    """What ``relkit team init`` says on stderr of what it did (the passwords, printed
    on stdout, are not in it)."""
    lines = [f"relkit: created login {role} for {name}" for name, role in rep.created]
    if rep.existing:
        lines.append(f"relkit: refreshed {len(rep.existing)} existing login"
                     f"{'s' if len(rep.existing) != 1 else ''}")
    lines += [f"relkit: warning: no login for {role} {name!r}: the name cannot be a "
              f"PostgreSQL role ({why}); the others got theirs" for name, role, why in rep.unfit]
    if rep.automatic:
        lines.append(f"relkit: no login for automatic assessors ({', '.join(rep.automatic)}): "
                     "the owner imports their judgments")
    if rep.serve_logins:
        lines.append(f"relkit: {', '.join(rep.serve_logins)} may act as each person's login "
                     "(relkit serve's sessions)")
    lines += [f"relkit: warning: not taken back: {what}; run `relkit team init` again as "
              "that role (docs/team.md)" for what in rep.still_open]
    return lines


def closing_line(rep: Any) -> str:
    """The last line, after the passwords: the tables under row-level security."""
    return (f"relkit: row-level security on {rep.tables} tables (role prefix {rep.prefix!r}); "
            "connect as a person with --db postgresql://ROLE@HOST/DB")
