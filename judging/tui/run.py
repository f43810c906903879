"""Running the judging app, and what is said after it: standard library and Textual only.

``relkit judge``'s typer command (:mod:`relkit.judging.tui.cli`) and its fast entry
(:func:`fast_judge`, called by the CLI root without typer or click: typer's reading of
the command line imports pydantic, about a third of the time to the topic list) both
run the app through here, so the screen, the messages after it and the exit status
are the same on both paths.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.judging.quiet import error_stream

if TYPE_CHECKING:
    from relkit.judging.store.assessor import AssessorView
    from relkit.judging.store.assign import Store
    from relkit.judging.store.outputs import TopicOut
    from relkit.judging.tui.app import JudgeApp, Settings
    from relkit.judging.tui.lead import LeadApp
    from relkit.judging.tui.start import FirstScreen


def app_settings(keymap: Path | None, idle: float, min_view: int, pairs: bool,
             pair_strategy: str, topic: str | None = None) -> Settings:
    """The app's settings for the command's options (``min_view`` in milliseconds)."""
    from relkit.judging.tui import keymap as km
    from relkit.judging.tui import prefs
    from relkit.judging.tui.app import Settings

    return Settings(keymap_path=keymap or km.default_path(), idle_after=idle,
                    min_view=min_view / 1000, prefs_path=prefs.default_path(),
                    idle_gc=True, pairs=pairs, pair_strategy=pair_strategy, topic=topic)


def is_terminal() -> bool:
    """Whether the screen has a terminal both ways (the command refuses otherwise)."""
    return sys.stdin.isatty() and sys.stdout.isatty()


def assigned(topics: list[TopicOut], key: str | None) -> bool:
    """Whether ``--topic KEY`` names one of the assessor's topics (or is not given)."""
    return key is None or any(t.key == key for t in topics)


def unassigned(topics: list[TopicOut], key: str, assessor: str, shown: int = 10) -> str:
    """Why ``--topic KEY`` cannot open: the assessor's topics, the first ``shown`` of them."""
    if not topics:
        return f"{assessor} has no topics assigned: run `relkit assign` first"
    keys = ", ".join(t.key for t in topics[:shown])
    more = f", … ({len(topics)} topics)" if len(topics) > shown else ""
    return f"{key!r} is not one of {assessor}'s topics: {keys}{more}"


def fast_judge(db: str | None, assessor: str | None, keymap: Path | None, idle: float,
               min_view: int, lead: str | None, pairs: bool, pair_strategy: str,
               topic: str | None) -> int | None:
    """``relkit judge`` on the light path (tui/start.py) with the values
    :func:`relkit.judging.tui.argv.parse` read: the exit status, or ``None`` where the
    typer command must run instead (it says what is wrong, or takes the store's path)."""
    from relkit.judging.pairhelp import NAMES
    from relkit.judging.tui.start import first_screen

    if lead is not None or pair_strategy not in NAMES or not is_terminal():
        return None
    first = first_screen(db, assessor)
    if first is None or not assigned(first.topics, topic):
        return None
    return judge_light(first, db, pairs, app_settings(keymap, idle, min_view, pairs,
                                                      pair_strategy, topic))


def judge_light(first: FirstScreen, db: str | None, pairs: bool, settings: Settings,
                before_run: Callable[[], None] = lambda: None) -> int:
    """The judging screen drawn from sqlite3 while the store opens in a thread; the exit
    status (the store's error, if it could not be opened after all, is raised).
    ``before_run``: the typer command's terminal check, made after the app is built (a
    keymap's error comes first)."""
    from relkit.judging.tui.app import make_app
    from relkit.judging.tui.start import StoreLoader

    loader = StoreLoader(first, lambda: open_store(db, first.assessor, pairs))
    light_app = make_app(loader, first.assessor, settings)
    before_run()
    light_app.run()
    if loader.error is not None:
        unsaved_at_open(light_app, first)
        raise loader.error  # it could not be opened after all: said as always
    return done(light_app, db, pairs)


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


def open_store(db: str | None, assessor: str, pairs: bool) -> tuple[Store, AssessorView]:
    """What the judging app needs of the store, opened as the command opens it; and the
    screen a topic opens, imported now too (while the assessor reads the topic list):
    first, as an Enter at once draws the judging screen before the store is open."""
    if pairs:
        import relkit.judging.tui.pairs  # noqa: F401
    else:
        import relkit.judging.tui.judge  # noqa: F401
    from relkit.judging.store.assign import Store

    store = Store.open(db, create=False, notify=_say)
    return store, store.assessor(assessor)


def _say(msg: str) -> None:
    """One diagnostic line on stderr (as cliopts.say, which imports typer)."""
    sys.stderr.write(msg + "\n")


def done(app: JudgeApp, db: str | None, pairs: bool) -> int:
    """After the app: where the judgments are, or what is not saved; what to do next.
    The exit status."""
    code = finish(app)
    if code:
        return code
    if pairs:
        sys.stderr.write(f"next: relkit export prefs{_db(db)} --answers answers.tsv\n")
        return 0
    sys.stderr.write(f"next: relkit status{_db(db)} · relkit export qrels{_db(db)} -o qrels.txt"
                     f" · relkit eval qrels.txt RUN...\n")
    return 0


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
