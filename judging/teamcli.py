"""``relkit team``: give a team its database logins (PostgreSQL)."""

from __future__ import annotations

import typer

from relkit.judging.cliopts import DbOpt, say

app = typer.Typer(help="Database logins and row-level security for a judging team "
                  "(PostgreSQL).", no_args_is_help=True,
                  epilog="Example: relkit team init --db postgresql://owner@db.example.org/rel")


@app.command("init")
def init(
    db: str | None = DbOpt,
    role_prefix: str | None = typer.Option(
        None, "--role-prefix", help="Prefix of every role made (roles are server-wide), "
        "chosen on the first run: default the database's name and _; '' for none; a re-run "
        "keeps the first run's (another is refused); refused if a role name it makes "
        "would pass PostgreSQL's 63 bytes"),
    passwords: bool = typer.Option(False, "--passwords", help="Give each new login a random "
                                   "password, printed once on stdout (default: none; the "
                                   "server's pg_hba.conf decides how they log in)"),
    serve_login: str | None = typer.Option(
        None, "--serve-login", help="The login `relkit serve` connects as: granted every "
        "person's role, so each browser session acts as its person's login"),
) -> None:
    """Create a login role per assessor and lead, with row-level security on the tables.

    Run as the database's owner, again after `relkit assign` adds people. An assessor's
    login reads only their own assignments, documents and judgments and writes only
    their own judgments; a lead's reads everything and writes final grades, each with
    its history row.

    Example: relkit team init --db postgresql://owner@db.example.org/relevance
    """
    from relkit.judging.store.access.names import PrefixTooLong, check_prefix
    from relkit.judging.store.access.policies import init_team
    from relkit.judging.store.connection import resolve_url
    from relkit.judging.store.models import StoreError

    if role_prefix is not None:
        try:
            check_prefix(role_prefix)  # a value the option cannot take: a usage error
        except StoreError:
            raise typer.BadParameter(f"use letters, digits and _ only; got {role_prefix!r}",
                                     param_hint="--role-prefix") from None
    from relkit.judging.store.assign import Store

    url = resolve_url(db)
    if not str(url).startswith("postgresql"):
        Store.open(db, readonly=True).close()  # a missing file is said as such first
        raise StoreError("team init: SQLite has no users or permissions, so it cannot "
                         "enforce who reads what (anyone who can read the file can read it "
                         "all); relkit's commands check $RELKIT_USER instead (docs/team.md)")
    store = Store.open(db, create=False, notify=say)
    try:
        rep = init_team(store, role_prefix, passwords, serve_login)
    except PrefixTooLong as exc:
        if exc.default:  # the database's name: not the user's value (only on a first run)
            raise StoreError(f"{exc} (the prefix is the database's name by default: give "
                             "a shorter one with --role-prefix)") from None
        # A value the option cannot take here: a usage error, as the option's own check.
        raise typer.BadParameter(str(exc).split(": ", 1)[1], param_hint="--role-prefix"
                                 ) from None
    finally:
        store.close()
    for name, role in rep.created:
        say(f"relkit: created login {role} for {name}")
    if rep.existing:
        say(f"relkit: refreshed {len(rep.existing)} existing login"
            f"{'s' if len(rep.existing) != 1 else ''}")
    for name, role, why in rep.unfit:
        say(f"relkit: warning: no login for {role} {name!r}: the name cannot be a "
            f"PostgreSQL role ({why}); the others got theirs")
    if rep.automatic:
        say(f"relkit: no login for automatic assessors ({', '.join(rep.automatic)}): the "
            "owner imports their judgments")
    if rep.serve_logins:
        say(f"relkit: {', '.join(rep.serve_logins)} may act as each person's login "
            "(relkit serve's sessions)")
    for what in rep.still_open:
        say(f"relkit: warning: not taken back: {what}; run `relkit team init` again as "
            "that role (docs/team.md)")
    for role, pw in rep.passwords.items():
        typer.echo(f"{role}\t{pw}")
    say(f"relkit: row-level security on {rep.tables} tables (role prefix {rep.prefix!r}); "
        "connect as a person with --db postgresql://ROLE@HOST/DB")
