"""``relkit judge``: open the judging TUI for one assessor."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import typer

from relkit.judging.cliopts import DbOpt

app = typer.Typer()


@app.command()
def judge(
    db: str | None = DbOpt,
    assessor: str | None = typer.Option(None, envvar="RELKIT_ASSESSOR",
                                        help="Who is judging (default: the only assessor)"),
    keymap: Path | None = typer.Option(None, help="TOML file rebinding keys"),
    idle: float = typer.Option(60.0, help="Seconds without a key after which time stops "
                               "counting towards dwell time"),
    lead: str | None = typer.Option(None, help="Open the lead's adjudication view as LEAD"),
) -> None:
    """Judge your assigned documents in the terminal: one key grades, saves, moves on.

    Example: relkit judge --db project.db --assessor ann
    """
    if not idle > 0:  # also refuses nan
        raise typer.BadParameter(f"must be a positive number of seconds; got {idle}",
                                 param_hint="--idle")
    from relkit.judging.store import Store
    from relkit.judging.tui import keymap as km
    from relkit.judging.tui.app import Settings, make_app

    store = Store.open(db, create=False)
    if lead is not None:
        from relkit.judging.tui.lead import LeadApp

        LeadApp(store, lead).run()
        return
    if assessor is None:
        people = store.assessors()
        if len(people) != 1:
            raise typer.BadParameter(f"name yourself with --assessor (one of {people})"
                                     if people else "no assessors yet: run `relkit assign`",
                                     param_hint="--assessor")
        assessor = people[0]
    settings = Settings(keymap_path=keymap or km.default_path(), idle_after=idle)
    make_app(store, assessor, settings).run()
    where = store.engine.url.render_as_string(hide_password=True)
    sys.stderr.write(f"relkit: judgments are saved in {where}\n"
                     f"next: relkit status{_db(db)} · relkit export qrels{_db(db)} -o qrels.txt"
                     f" · relkit eval qrels.txt RUN...\n")


def _db(db: str | None) -> str:
    return f" --db {db}" if db and db != os.environ.get("RELKIT_DB") else ""
