"""``relkit token issue|revoke NAME``: the secrets people sign in to ``relkit serve`` with."""

from __future__ import annotations

import typer

from relkit.judging.cliopts import DbOpt, say

app = typer.Typer(help="Sign-in tokens for `relkit serve`: issue (shown once) or revoke.",
                  no_args_is_help=True,
                  epilog="Example: relkit token issue ann --db project.db")


@app.command()
def issue(
    name: str = typer.Argument(..., help="The assessor or lead the token signs in"),
    db: str | None = DbOpt,
) -> None:
    """Print a new sign-in token for NAME (once: only its salted hash is kept).

    Their older tokens stop working. Example: relkit token issue ann --db project.db
    """
    from relkit.judging.owner import owner_store
    from relkit.judging.store.tokens import issue as issue_token

    store = owner_store(db, "token issue")
    print(issue_token(store, name))
    say(f"relkit: token for {name} printed above; it is shown only this once (store it in "
        "a password manager; `relkit token issue` again replaces a lost one)")


@app.command()
def revoke(
    name: str = typer.Argument(..., help="The assessor or lead whose tokens stop working"),
    db: str | None = DbOpt,
) -> None:
    """Revoke NAME's tokens: signing in or reconnecting with them is refused from now on.

    Example: relkit token revoke ann --db project.db
    """
    from relkit.judging.owner import owner_store
    from relkit.judging.store.tokens import revoke as revoke_tokens

    store = owner_store(db, "token revoke")
    n = revoke_tokens(store, name)
    say(f"relkit: {n} token{'s' if n != 1 else ''} of {name} revoked"
        if n else f"relkit: {name} had no live token; nothing changed")
