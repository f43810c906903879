"""``relkit judge``: open the judging TUI for one assessor."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from relkit.judging.cliopts import DbOpt, say
from relkit.judging.pairhelp import PAIR_STRATEGY_HELP, check_pair_strategy

# The app is run, and its end said, by tui/run.py (also the CLI root's fast entry);
# finish and finish_lead are imported from here by relkit serve and the demo.
from relkit.judging.tui.run import (
    app_settings,
    assigned,
    done,
    finish,
    finish_lead,
    judge_light,
    unassigned,
    unsaved_at_open,
)
from relkit.metrics.commands.numopt import Num

if TYPE_CHECKING:
    from collections.abc import Callable

    from relkit.judging.store.access.identity import Who
    from relkit.judging.store.assign import Store
    from relkit.judging.store.outputs import TopicOut
    from relkit.judging.tui.app import Settings

__all__ = ["app", "finish", "finish_lead", "judge", "need_terminal", "unsaved_at_open"]

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
    topic: str | None = typer.Option(None, help="Open this topic straight away (one of "
                                     "yours; resuming): its next document, not the topic "
                                     "list, which is one key (Escape) away"),
) -> None:
    """Judge your assigned documents in the terminal: one key grades, saves, moves on.

    Example: relkit judge --db project.db --assessor ann
    """
    if not idle > 0:  # also refuses nan
        raise typer.BadParameter(f"must be a positive number of seconds; got {idle}",
                                 param_hint="--idle")
    check_pair_strategy(pair_strategy)
    from relkit.judging.tui.start import first_screen

    if topic is not None and lead is not None:
        raise typer.BadParameter(LEAD_TOPIC, param_hint="--topic")
    # A current SQLite database: the topic list is drawn from sqlite3 while the store is
    # imported and opened in a thread (tui/start.py); anything else, the store's path.
    # (The CLI root runs this path without typer when it can: tui/run.py's fast_judge.)
    first = first_screen(db, assessor) if lead is None else None
    if first is not None:
        _check_topic(first.topics, topic, first.assessor)
        code = judge_light(first, db, pairs, app_settings(keymap, idle, min_view, pairs,
                                                          pair_strategy, topic),
                           lambda: need_terminal())
        if code:
            raise typer.Exit(code)
        return
    code = _judge_with_store(db, assessor, lead, topic, pairs,
                             lambda: app_settings(keymap, idle, min_view, pairs,
                                                  pair_strategy, topic))
    if code:
        raise typer.Exit(code)


def _judge_with_store(db: str | None, assessor: str | None, lead: str | None,
                      topic: str | None, pairs: bool, settings: Callable[[], Settings]
                      ) -> int:
    """``relkit judge`` through the store (PostgreSQL, another schema revision, a lead):
    the lead's screen or the assessor's; the exit code."""
    from relkit.judging.store.assign import Store

    # A write command: an older database is upgraded (with a backup), and it says so.
    store = Store.open(db, create=False, notify=say)
    from relkit.judging.store.access.identity import who

    me = who(store)  # the login (PostgreSQL, after `relkit team init`) or $RELKIT_USER
    if me.role == "lead" and lead is None and assessor is None:
        if topic is not None:
            raise typer.BadParameter(LEAD_TOPIC, param_hint="--topic")
        lead = me.name  # a lead's login opens the lead's screen
    if lead is not None:
        return _judge_as_lead(store, lead)
    from relkit.judging.tui.app import make_app

    assessor = _assessor_for(store, me, assessor)
    if topic is not None:
        _check_topic(store.assessor(assessor).topics(), topic, assessor)
    app = make_app(store, assessor, settings())
    need_terminal()
    app.run()
    return done(app, db, pairs)


def _judge_as_lead(store: Store, lead: str) -> int:
    """The lead's adjudication screen (``--lead``, or a lead's login); the exit code."""
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
    return finish_lead(lead_app)


LEAD_TOPIC = "opens one of an assessor's topics; the lead's screen has no topic list to skip"


def _check_topic(topics: list[TopicOut], topic: str | None, assessor: str) -> None:
    """``--topic`` names one of the assessor's topics: else a usage error, one line."""
    if not assigned(topics, topic):
        raise typer.BadParameter(unassigned(topics, str(topic), assessor),
                                 param_hint="--topic")


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
