"""The one ``relkit`` command. Each package contributes its sub-commands here.

Start-up is a feature: this module imports nothing heavy. ``relkit --version`` and
``relkit --help`` are answered from :data:`COMMANDS` without importing Typer; any other
command imports only the module that defines it (``relkit eval`` never loads SQLAlchemy,
Textual or pandas), and a valid ``relkit eval`` or ``relkit judge`` command line no Typer
either (:mod:`relkit.judging.fast_entries`). :func:`full_app` builds the whole tree for
shell completion and the generated CLI reference, and a test checks that :data:`COMMANDS`
matches it.

Errors, one line on stderr each (``--debug`` shows the traceback; the words are
:mod:`relkit.judging.cli_errors`'):

- exit 2, a usage error: an unknown option, a missing argument, or a value an option
  cannot take (``--depth abc``, ``--format xml``, ``--strategy dpeth``: see
  :mod:`relkit.metrics.core.options`);
- exit 1, a failure: bad input in a file, a file that cannot be opened (named), a
  database that is not one, a name the data does not hold (``--pool`` of another
  database);
- exit 0 when the reader of stdout goes away (``relkit eval ... | head -1``).

Every command also follows the conventions of :class:`relkit.judging.conventions.RelkitCommand`
(``--quiet``, multi-value file options), given to it here when it is registered.
"""

from __future__ import annotations

import sys

# Not `from typing import TYPE_CHECKING`: importing typing costs ~3 ms of every start-up
# (`relkit --version` is ~10 ms); type checkers read any TYPE_CHECKING so named as True.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import typing

    import typer

HELP = "Build and use IR test collections: pool, judge, agree, evaluate."


class Entry:
    """Where a command lives: ``module:attribute`` of its Typer app, and its help line.

    A plain class, not a ``typing.NamedTuple``: importing :mod:`typing` would be a third
    of ``relkit --version``'s own time.
    """

    __slots__ = ("app", "section", "help", "group")

    def __init__(self, app: str, section: str, help: str, group: bool = False) -> None:
        self.app = app
        self.section = section  # the heading `relkit --help` lists it under
        self.help = help
        self.group = group  # a sub-app with commands of its own (``relkit export qrels``)


# The sections of `relkit --help`, in order.
EVALUATE = "Evaluate"
BUILD = "Build a collection"
JUDGE = "Judge"
AGREE = "Agree"
POOLING = "Pooling analysis"
COLLECTIONS = "Collections"
ONLINE = "Online evaluation"

# In the order `relkit --help` lists them, grouped by section. The help lines repeat each
# command's docstring summary so that `--help` needs no import; tests/test_cli_startup.py
# checks they agree.
COMMANDS: dict[str, Entry] = {
    "eval": Entry("relkit.metrics.eval.cli:app", EVALUATE,
                  "Evaluate runs against qrels with trec_eval's exact numbers."),
    "compare": Entry("relkit.metrics.compare.cli:app", EVALUATE,
                     "Compare systems: mean of each measure, with paired significance tests."),
    "prefs": Entry("relkit.metrics.prefs.cli:app", EVALUATE,
                   "Preference answers: convert them to trec_eval's formats or graded qrels, "
                   "report scores, agreement and cycles.", group=True),
    "init": Entry("relkit.judging.commands:app", BUILD,
                  "Create a judging database for a collection: its topics and relevance "
                  "scale."),
    "pool": Entry("relkit.judging.commands:app", BUILD,
                  "Pool runs with a strategy: to a file (-o), into a judging database "
                  "(--db), or stdout."),
    "assign": Entry("relkit.judging.commands:app", BUILD,
                    "Share the pool's topics among assessors, with overlap and gold pairs."),
    "import": Entry("relkit.judging.exchange:import_app", BUILD,
                    "Bring outside judgments into the database.", group=True),
    "export": Entry("relkit.judging.exchange:export_app", BUILD,
                    "Write judgments out: qrels or a full JSONL dump.", group=True),
    "db": Entry("relkit.judging.dbcli:app", BUILD,
                "Look after a judging database: check it, upgrade its schema.", group=True),
    "team": Entry("relkit.judging.teamcli:app", BUILD,
                  "Database logins and row-level security for a judging team (PostgreSQL).",
                  group=True),
    "judge": Entry("relkit.judging.tui.cli:app", JUDGE,
                   "Judge your assigned documents in the terminal: one key grades, saves, "
                   "moves on."),
    "serve": Entry("relkit.judging.serve.cli:app", JUDGE,
                   "Serve the judging screens to web browsers; people sign in with a token."),
    "token": Entry("relkit.judging.serve.tokens_cli:app", JUDGE,
                   "Sign-in tokens for `relkit serve`: issue (shown once) or revoke.",
                   group=True),
    "demo": Entry("relkit.judging.demo:app", JUDGE,
                  "The quick start: the sample collection pooled, assigned and open for "
                  "judging."),
    "status": Entry("relkit.judging.progress:app", JUDGE,
                    "Progress per topic and per assessor, judgments per hour, median dwell "
                    "time."),
    "adjudicate": Entry("relkit.judging.progress:app", JUDGE,
                        "Record a lead's final grade for a pair the assessors disagreed on."),
    "agree": Entry("relkit.judging.agreement.cli:app", AGREE,
                   "Agreement between assessors: kappa, alpha, AC1 with CIs; overlap; effect "
                   "on rankings."),
    "judges": Entry("relkit.judging.agreement.judges_cli:app", AGREE,
                    "Automatic judges against human grades: kappa, alpha, confusion, shift; "
                    "tau with runs."),
    "judges-run": Entry("relkit.judging.autojudge.cli:app", AGREE,
                        "Grade a pool's pairs with a chat model and store them as an "
                        "automatic assessor."),
    "disagreements": Entry("relkit.judging.progress:app", AGREE,
                           "List pairs that assessors graded differently (TSV: topic, doc, "
                           "grades, adjudication)."),
    "pool-strategies": Entry("relkit.pooling.cli:app", POOLING,
                             "List the pooling strategies, their parameters and references."),
    "pool-stats": Entry("relkit.pooling.cli:app", POOLING,
                        "Pool statistics: size per topic, documents contributed and unique "
                        "per run (and group)."),
    "pool-coverage": Entry("relkit.pooling.cli:app", POOLING,
                           "Coverage table: each run's Judged@k and unjudged rate against a "
                           "qrels."),
    "pool-reuse": Entry("relkit.pooling.cli:app", POOLING,
                        "Leave-one-run-out (or group-out) reusability: score drop, rank drop, "
                        "Kendall's tau."),
    "pool-simulate": Entry("relkit.pooling.cli:app", POOLING,
                           "Replay strategies against a complete qrels: relevant found, tau, "
                           "Judged@10 per budget."),
    "pool-sample": Entry("relkit.pooling.cli:app", POOLING,
                         "Stratified sample of a pool with inclusion probabilities (for xinfAP "
                         "and statAP)."),
    "corpora": Entry("relkit.corpora.cli:app", COLLECTIONS,
                     "Test collections: list the known ones, describe one, fetch one.",
                     group=True),
    "systems": Entry("relkit.corpora.systems.cli:app", COLLECTIONS,
                     "Baseline retrieval systems (BM25, TF-IDF, query likelihood) that turn a "
                     "collection and topics into TREC runs.", group=True),
    "clicks": Entry("relkit.metrics.online.cli:app", ONLINE,
                    "Click logs: check one, describe one, convert one to the long form.",
                    group=True),
    "ab": Entry("relkit.metrics.online.ab.cli:app", ONLINE,
                "A/B tests over click logs: sample-ratio mismatch, metrics at the user with "
                "the delta method, power, sequential looks.", group=True),
    "interleave": Entry("relkit.metrics.online.interleave.cli:app", ONLINE,
                        "Interleaving and multileaving: make the shown lists, compare runs "
                        "from clicks.", group=True),
}

ROOT_OPTIONS = [
    ("--debug", "Show tracebacks on errors"),
    ("--version", "Print the version and exit"),
    ("--install-completion", "Install completion for the current shell."),
    ("--show-completion", "Show completion for the current shell, to copy it or customize "
                          "the installation."),
    ("--help", "Show this message and exit."),
]


def _load(ref: str) -> typer.Typer:
    from importlib import import_module

    module, attr = ref.split(":")
    app: typer.Typer = getattr(import_module(module), attr)
    return app


def _command_name(info: object) -> str:
    name = getattr(info, "name", None)
    if name:
        return str(name)
    callback = getattr(info, "callback", None)
    return str(getattr(callback, "__name__", "")).replace("_", "-")


def _root_app() -> typer.Typer:
    import typer

    from relkit.judging.conventions import RelkitGroup

    app = typer.Typer(name="relkit", help=HELP, no_args_is_help=True, add_completion=True,
                      pretty_exceptions_enable=False, cls=RelkitGroup)

    @app.callback()
    def root(
        debug: bool = typer.Option(False, "--debug", help="Show tracebacks on errors"),
        version: bool = typer.Option(False, "--version", callback=_version, is_eager=True,
                                     help="Print the version and exit"),
    ) -> None:
        """relkit: exact, fast IR evaluation and test-collection building."""

    return app


def _conventions(info: typer.models.CommandInfo) -> typer.models.CommandInfo:
    """The command with relkit's conventions (``--quiet``, multi-value file options...).

    Given here, by the root, so that the packages' CLI modules (lower layers) need not
    import the judging layer's :mod:`relkit.judging.conventions`.
    """
    from typer.core import TyperCommand

    from relkit.judging.conventions import RelkitCommand

    if info.cls is None or info.cls is TyperCommand:
        info.cls = RelkitCommand
    return info


def _add(app: typer.Typer, name: str, entry: Entry) -> None:
    sub = _load(entry.app)
    if entry.group:
        for info in sub.registered_commands:
            _conventions(info)
        from relkit.judging.conventions import RelkitGroup

        app.add_typer(sub, name=name, help=entry.help, rich_help_panel=entry.section,
                      cls=RelkitGroup)
        return
    for info in sub.registered_commands:
        if _command_name(info) == name:
            info.rich_help_panel = entry.section
            app.registered_commands.append(_conventions(info))
            return
    raise LookupError(f"{entry.app} defines no command {name!r}")


def full_app() -> typer.Typer:
    """Every command (imports every layer): for completion and the CLI reference."""
    app = _root_app()
    for name, entry in COMMANDS.items():
        _add(app, name, entry)
    return app


def _version(value: bool) -> None:
    if value:
        import typer

        from relkit import __version__

        typer.echo(f"relkit {__version__}")
        raise typer.Exit()


def root_help(width: int | None = None) -> str:
    """``relkit --help``, rendered from :data:`COMMANDS` without importing Typer."""
    import os

    if width is None:
        try:
            width = min(os.get_terminal_size(sys.stdout.fileno()).columns, 100)
        except (OSError, ValueError):
            width = 80

    def table(rows: list[tuple[str, str]]) -> list[str]:
        left = max(len(a) for a, _ in rows) + 4
        out = []
        for a, h in rows:
            body = _wrap(h, max(width - left, 20)) or [""]
            out.append(f"  {a:<{left - 2}}{body[0]}")
            out += [" " * left + more for more in body[1:]]
        return out

    lines = ["Usage: relkit [OPTIONS] COMMAND [ARGS]...", "", f"  {HELP}", "", "Options:"]
    lines += table(ROOT_OPTIONS)
    # One table for all sections, so the help texts line up from one section to the next;
    # a heading wherever the section changes (COMMANDS keeps each section's commands
    # together).
    entries = iter(COMMANDS.values())
    section = None
    for row in table([(n, e.help) for n, e in COMMANDS.items()]):
        if not row.startswith("   "):  # a command's first line, not a wrapped one
            entry = next(entries)
            if entry.section != section:
                section = entry.section
                lines += ["", f"{section}:"]
        lines.append(row)
    lines += ["", "Run `relkit COMMAND --help` for a command's options and examples."]
    return "\n".join(lines) + "\n"


def _wrap(text: str, width: int) -> list[str]:
    """Greedy word wrap at spaces only: a hyphenated word ("TF-IDF", "row-level") stays
    whole, and no ``textwrap`` (it imports ``re``, a third of ``--help``'s start-up)."""
    lines: list[str] = []
    line = ""
    for word in text.split():
        if line and len(line) + 1 + len(word) > width:
            lines.append(line)
            line = word
        else:
            line = f"{line} {word}" if line else word
    return [*lines, line] if line else lines


def _suggest(name: str) -> str:
    # The shared wording; its module imports only the standard library.
    from relkit.metrics.core.registry import did_you_mean

    return did_you_mean(name, COMMANDS, cutoff=0.6)


def _app_for(args: list[str]) -> typer.Typer | int:
    """The app that runs ``args``: just the named command, or everything when unsure."""
    import os

    completing = any(k.startswith("_RELKIT_COMPLETE") for k in os.environ)
    if completing or any(a in ("--install-completion", "--show-completion") for a in args):
        return full_app()
    rest = [a for a in args if a != "--debug"]
    if rest[0].startswith("-"):
        return full_app()  # an option the root does not know: click says so, and lists all
    name = rest[0]
    if name not in COMMANDS:
        sys.stderr.write(f"relkit: error: no command {name!r}{_suggest(name)} "
                         "(see `relkit --help`)\n")
        return 2
    app = _root_app()
    _add(app, name, COMMANDS[name])
    return app


def main(argv: list[str] | None = None) -> int:
    """Console entry point: run the app, turning relkit errors into one line."""
    args = sys.argv[1:] if argv is None else list(argv)
    stderr = sys.stderr  # `--quiet` swaps in a sink while the command runs
    try:
        code = _main(args, stderr)
        sys.stdout.flush()  # output smaller than the pipe's buffer meets a closed pipe here
    except BrokenPipeError:
        from relkit.judging.closedpipe import closed_pipe

        code = closed_pipe()
    finally:
        sys.stderr = stderr
        if "relkit.judging.store.database" in sys.modules:  # never imported just to close nothing
            sys.modules["relkit.judging.store.database"].close_all()
    return code


def _main(args: list[str], stderr: typing.TextIO) -> int:
    debug = "--debug" in args
    head = [a for a in args if a != "--debug"]
    if head[:1] == ["--version"]:
        from relkit import __version__

        sys.stdout.write(f"relkit {__version__}\n")
        return 0
    if not head or head == ["--help"]:
        sys.stdout.write(root_help())
        return 0
    if head[0] in ("eval", "judge") and args.index(head[0]) == args.count("--debug") <= 1:
        from relkit.judging.fast_entries import FAST

        code = FAST[head[0]](head[1:], debug, stderr)
        if code is not None:
            return code

    app = _app_for(args)
    if isinstance(app, int):
        return app
    try:
        try:
            # Without standalone mode Click returns a command's `typer.Exit(code)` as the
            # value.
            rv = app(args=args, standalone_mode=False, prog_name="relkit")
        finally:
            sys.stderr = stderr  # errors are never quiet
    except (Exception, KeyboardInterrupt) as exc:
        from relkit.judging.cli_errors import said

        return said(exc, debug)
    return rv if isinstance(rv, int) else 0


if __name__ == "__main__":
    sys.exit(main())
