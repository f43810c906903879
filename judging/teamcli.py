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
    from relkit.judging.store.access.teaminit import closing_line, report_lines, team_init

    rep = team_init(db, role_prefix, passwords, serve_login, notify=say)
    for line in report_lines(rep):
        say(line)
    for role, pw in rep.passwords.items():
        typer.echo(f"{role}\t{pw}")
    say(closing_line(rep))
