"""``relkit judge``: open the judging TUI for one assessor."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from relkit.judging.cliopts import DbOpt, say
from relkit.judging.conventions import error_stream
from relkit.judging.pairhelp import PAIR_STRATEGY_HELP, check_pair_strategy
from relkit.metrics.commands.numopt import Num

if TYPE_CHECKING:
    from relkit.judging.store.access.identity import Who
    from relkit.judging.store.assessor import AssessorView
    from relkit.judging.store.assign import Store
    from relkit.judging.tui.app import JudgeApp, Settings
    from relkit.judging.tui.lead import LeadApp
    from relkit.judging.tui.start import FirstScreen

app = typer.Typer()


@app.command()
def judge(
    db: str | None = DbOpt,
    assessor: str | None = typer.Option(None, envvar="RELKIT_ASSESSOR",
                                        help="Who is judging (default: the only assessor)"),
    keymap: Path | None = typer.Option(None, help="TOML file rebinding keys"),
    idle: float = Num(60.0, within="x > 0", help="Seconds without a key after which time stops "
                               "counting towards dwell time"),
    min_view: int = Num(1000, "--min-view", within="x >= 0", help="Milliseconds a document "
                        "must be on screen before a grade key counts (keys typed ahead and "
                        "the second tap of a double tap are dropped; about the time to read a "
                        "short title)"),
    lead: str | None = typer.Option(None, help="Open the lead's adjudication view as LEAD "
                                    "(registered with `relkit assign --lead LEAD`)"),
    pairs: bool = typer.Option(False, "--pairs", help="Judge preferences: two documents of "
                               "a topic at once; 1 left better, 2 right better, 3 equal, "
                               "0 neither relevant (docs/preferences.md)"),
    pair_strategy: str = typer.Option("all-pairs", "--pair-strategy",
                                      help=PAIR_STRATEGY_HELP),
) -> None:
    """Judge your assigned documents in the terminal: one key grades, saves, moves on.

    Example: relkit judge --db project.db --assessor ann
    """
    if not idle > 0:  # also refuses nan
        raise typer.BadParameter(f"must be a positive number of seconds; got {idle}",
                                 param_hint="--idle")
    check_pair_strategy(pair_strategy)
    from relkit.judging.tui import keymap as km
    from relkit.judging.tui import prefs
    from relkit.judging.tui.app import Settings, make_app
    from relkit.judging.tui.start import first_screen

    def settings_() -> Settings:
        return Settings(keymap_path=keymap or km.default_path(), idle_after=idle,
                        min_view=min_view / 1000, prefs_path=prefs.default_path(),
                        idle_gc=True, pairs=pairs, pair_strategy=pair_strategy)

    # A current SQLite database: the topic list is drawn from sqlite3 while the store is
    # imported and opened in a thread (tui/start.py); anything else, the store's path.
    first = first_screen(db, assessor) if lead is None else None
    if first is not None:
        _judge_light(first, db, pairs, settings_())
        return
    from relkit.judging.store.assign import Store

    # A write command: an older database is upgraded (with a backup), and it says so.
    store = Store.open(db, create=False, notify=say)
    from relkit.judging.store.access.identity import who

    me = who(store)  # the login (PostgreSQL, after `relkit team init`) or $RELKIT_USER
    if me.role == "lead" and lead is None and assessor is None:
        lead = me.name  # a lead's login opens the lead's screen
    if lead is not None:
        from relkit.judging.store.adjudication import check_lead
        from relkit.judging.store.models import StoreError

        try:
            check_lead(store, lead)  # the screen shows every assessor's grades: leads only
        except StoreError as exc:
            raise typer.BadParameter(str(exc), param_hint="--lead") from None
        from relkit.judging.tui.lead import LeadApp

        need_terminal()
        lead_app = LeadApp(store, lead, idle_gc=True)
        lead_app.run()
        code = finish_lead(lead_app)
        if code:
            raise typer.Exit(code)
        return
    assessor = _assessor_for(store, me, assessor)
    app = make_app(store, assessor, settings_())
    need_terminal()
    app.run()
    _done(app, db, pairs)


def _assessor_for(store: Store, me: Who, assessor: str | None) -> str:
    """Who judges on the assessor's screen: ``--assessor``, the login or the only
    assessor; a usage error (one line, naming ``--assessor``) where none can."""
    if me.name is not None and assessor is None and me.assessor:
        assessor = me.name
    if me.name is not None and assessor is not None and assessor != me.name:
        raise typer.BadParameter(f"{me.name} ({me.via}) cannot judge as {assessor}",
                                 param_hint="--assessor")
    if assessor is not None and assessor not in store.assessors():
        # (as --lead: a usage error, naming the people who judge on this screen)
        people = store.assessors(role="assessor", kind="human")
        raise typer.BadParameter(f"no assessor named {assessor!r} in this database"
                                 + (f"; the assessors are {', '.join(people)}" if people
                                    else ": run `relkit assign` first"),
                                 param_hint="--assessor")
    if assessor is not None and assessor in store.assessors(kind="automatic"):
        # Its judgments are imported; the screen is for people.
        raise typer.BadParameter(f"{assessor} is an automatic assessor: its judgments are "
                                 "imported (relkit import judgments --kind automatic), not "
                                 "made on the judging screen", param_hint="--assessor")
    if assessor is not None and assessor in store.assessors(role="lead"):
        # A lead has no assignment: the judging screen would open empty.
        raise typer.BadParameter(f"{assessor} is a lead, not an assessor: open the lead's "
                                 f"screen with --lead {assessor}", param_hint="--assessor")
    if assessor is None:
        # Leads (who adjudicate) are not offered: they judge with --lead.
        people = store.assessors(role="assessor", kind="human")
        if len(people) != 1:
            raise typer.BadParameter(f"name yourself with --assessor: one of "
                                     f"{', '.join(people)}"
                                     if people else "no assessors yet: run `relkit assign`",
                                     param_hint="--assessor")
        assessor = people[0]
    return assessor


def _judge_light(first: FirstScreen, db: str | None, pairs: bool, settings: Settings) -> None:
    """The judging screen drawn from sqlite3 while the store opens in a thread."""
    from relkit.judging.tui.app import make_app
    from relkit.judging.tui.start import StoreLoader

    loader = StoreLoader(first, lambda: _open_store(db, first.assessor, pairs))
    light_app = make_app(loader, first.assessor, settings)
    need_terminal()
    light_app.run()
    if loader.error is not None:
        unsaved_at_open(light_app, first)
        raise loader.error  # it could not be opened after all: said as always
    _done(light_app, db, pairs)


def unsaved_at_open(app: JudgeApp, first: FirstScreen) -> None:
    """A grade pressed while the store was opening, which then failed to open: printed
    in full (as :func:`finish` prints one the database never took), before the reason."""
    from relkit.judging.tui.outbox import describe_record

    record = app.outbox.record
    if record is not None:
        error_stream().write(f"relkit: NOT saved: {first.assessor}'s "
                             f"{describe_record(record, first.scale)} (the judging database "
                             "could not be opened).\nrelkit: the document is still unjudged "
                             "in the database and comes round again when you resume.\n")


def _open_store(db: str | None, assessor: str, pairs: bool) -> tuple[Store, AssessorView]:
    """What the judging app needs of the store, opened as the command opens it; and the
    screen a topic opens, imported now too (while the assessor reads the topic list):
    first, as an Enter at once draws the judging screen before the store is open."""
    if pairs:
        import relkit.judging.tui.pairs  # noqa: F401
    else:
        import relkit.judging.tui.judge  # noqa: F401
    from relkit.judging.store.assign import Store

    store = Store.open(db, create=False, notify=say)
    return store, store.assessor(assessor)


def _done(app: JudgeApp, db: str | None, pairs: bool) -> None:
    """After the app: where the judgments are, or what is not saved; what to do next."""
    code = finish(app)
    if code:
        raise typer.Exit(code)
    if pairs:
        sys.stderr.write(f"next: relkit export prefs{_db(db)} --answers answers.tsv\n")
        return
    sys.stderr.write(f"next: relkit status{_db(db)} · relkit export qrels{_db(db)} -o qrels.txt"
                     f" · relkit eval qrels.txt RUN...\n")


def need_terminal() -> None:
    """Refuse, in one line (exit 2), to open a screen without a terminal both ways.

    Textual draws into whatever stdout is (a file, a pipe) and waits for keys that a
    pipe never sends: the command would write escape codes and never end. Checked
    last, so a wrong option or assessor is still reported as such. The app itself
    does not check (tests drive it headless with ``run_test``).
    """
    import click

    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise click.UsageError("the judging screen needs a terminal (for both input and "
                               "output); run it in one, not through a pipe or a file")


def finish(app: JudgeApp, say_where: bool = True) -> int:
    """After the judging app has ended: say where the judgments are, or what is not saved.

    ``say_where=False`` (a served session): the database's URL, which names the
    server's login, is not said; the rest as always.

    A judgment still in the outbox (the app quit or crashed while the database was
    away) gets one more try; if that fails too it is printed in full and the exit
    status is 1. A crash exits non-zero even when everything was saved.
    """
    from relkit.judging.store.models import StoreError
    from relkit.judging.tui.outbox import UNREACHABLE, describe_record, meanwhile

    where = app.store.engine.url.render_as_string(hide_password=True)
    if app.pair_outbox.record is not None:
        from relkit.judging.tui.pairs import finish_pairs

        if finish_pairs(app):
            return 1
    record = app.outbox.record
    if record is not None:
        what = describe_record(record, app.view.scale())
        try:
            # (retry: the try in flight may have gone through; then not written again)
            saved = app.view.record(source="tui", retry=True, **record)
            app.outbox.clear()
            other = meanwhile(saved, app.view.scale(), retried=True)
            sys.stderr.write(f"relkit: saved on the way out: {what}{other}\n")
        except (StoreError, *UNREACHABLE) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            # an error: shown under --quiet too
            error_stream().write(f"relkit: NOT saved: {app.view.name}'s {what} ({reason}).\n"
                                 "relkit: the document is still unjudged in the database "
                                 "and comes round again when you resume.\n")
            return 1
    if app.return_code:
        error_stream().write(f"relkit: the judging screen stopped on an error (above); "
                             "every judgment it acknowledged as saved is in "
                             f"{where if say_where else 'the database'}\n")
        return app.return_code
    if say_where:
        sys.stderr.write(f"relkit: judgments are saved in {where}\n")
    return 0


def finish_lead(app: LeadApp, say_where: bool = True) -> int:
    """After the lead's app has ended: a final grade still unsaved gets one more try;
    if that fails too it is printed in full and the exit status is 1 (as
    :func:`finish` for the assessor's)."""
    from relkit.judging.store.models import StoreError
    from relkit.judging.tui.lead_saving import describe_decision, save_decision
    from relkit.judging.tui.outbox import UNREACHABLE

    where = app.store.engine.url.render_as_string(hide_password=True)
    record = app.outbox.record
    if record is not None:
        what = describe_decision(record, app.scale)
        try:
            save_decision(app.store, app.lead, record)  # a try that went through: no change
            app.outbox.clear()
            sys.stderr.write(f"relkit: saved on the way out: {what}\n")
        except (StoreError, *UNREACHABLE) as exc:
            reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            error_stream().write(f"relkit: NOT saved: {app.lead}'s {what} ({reason}).\n"
                                 "relkit: the pair keeps the final grade it had in the "
                                 "database; give it again when you resume.\n")
            return 1
    if app.return_code:
        error_stream().write("relkit: the lead's screen stopped on an error (above); every "
                             "final grade it acknowledged as saved is in "
                             f"{where if say_where else 'the database'}\n")
        return app.return_code
    return 0


def _db(db: str | None) -> str:
    return f" --db {db}" if db and db != os.environ.get("RELKIT_DB") else ""
