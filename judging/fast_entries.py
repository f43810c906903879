"""``relkit eval`` and ``relkit judge`` without typer or click: the two fast entries.

Typer and click (and pydantic, which typer brings) are a fifth of a TREC-sized ``relkit
eval`` and a third of ``relkit judge``'s way to its topic list. For a command line its
own reader is sure of (:mod:`relkit.metrics.eval.argv`, :mod:`relkit.judging.tui.argv`),
the CLI root (:mod:`relkit.judging.cli`) runs the command's body from here, its errors
printed in the typer command's words and exit status; anything else (help, completion,
a usage error) goes to the typer command. Standard library only at import.
"""

from __future__ import annotations

import sys

# Not `import typing`: ~1.5 ms of the start-up these entries exist to cut (type
# checkers read any TYPE_CHECKING so named as True, as in relkit.judging.cli).
TYPE_CHECKING = False
if TYPE_CHECKING:
    import typing


def fast_eval(args: list[str], debug: bool, stderr: typing.TextIO) -> int | None:
    """``relkit eval ARGS`` without typer or click, or ``None``: the typer command runs it.

    A command line :func:`relkit.metrics.eval.argv.parse` is sure of runs the command's
    body straight away; errors are printed as the CLI root prints the typer command's
    (the same words, the same exit status). Help, completion and every command line
    click would refuse go to the typer command.
    """
    import os

    if any(k.startswith("_RELKIT_COMPLETE") for k in os.environ):
        return None
    from relkit.metrics.eval.argv import parse

    values = parse(args)
    if values is None:
        return None
    from relkit.judging.quiet import go_quiet
    from relkit.metrics.core.options import OptionError
    from relkit.metrics.eval.command import NotFast, give_up, run_eval

    def body() -> int:
        go_quiet(values["quiet"])
        run_eval(**values, bad=give_up)
        return 0

    def option_error(exc: OptionError) -> int:
        # What click says of the typer command's BadParameter (RelkitCommand.invoke).
        sys.stderr.write(f"relkit eval: error: Invalid value for {exc.option}: "
                         f"{exc.message}\n")
        return 2

    try:
        return run_fast(body, debug, stderr, OptionError, option_error)
    except NotFast:
        return None  # a usage error, found before any output: click words it


def run_fast(body: typing.Callable[[], int | None], debug: bool, stderr: typing.TextIO,
          kind: type[Exception] | None = None,
          say: typing.Callable[[typing.Any], int] | None = None) -> int | None:
    """A fast entry's ``body()`` (an exit status, or ``None``: the typer command runs
    instead), its errors printed as the CLI root prints the typer
    command's (the same words and exit status); ``kind`` of error is ``say``'s to print."""
    from relkit.metrics.errors import RelkitError

    try:
        try:
            return body()
        finally:
            sys.stderr = stderr  # errors are never quiet
    except KeyboardInterrupt:
        sys.stderr.write("relkit: aborted\n")
        return 130
    except BrokenPipeError:
        from relkit.judging.closedpipe import closed_pipe

        return closed_pipe()
    except Exception as exc:
        if debug:
            raise
        if kind is not None and say is not None and isinstance(exc, kind):
            return say(exc)
        if isinstance(exc, RelkitError):
            sys.stderr.write(f"relkit: error: {exc}\n")
            return int(getattr(exc, "exit_code", 1))
        if isinstance(exc, OSError) and exc.filename is not None:
            sys.stderr.write(f"relkit: error: {exc.filename}: {exc.strerror or exc}\n")
            return 1
        raise


def fast_judge(args: list[str], debug: bool, stderr: typing.TextIO) -> int | None:
    """``relkit judge ARGS`` without typer or click, or ``None``: the typer command runs it.

    A command line :func:`relkit.judging.tui.argv.parse` is sure of, on the path that
    draws the topic list from sqlite3 (:func:`relkit.judging.tui.run.fast_judge`), runs
    the app straight away: typer's reading of the command line (it imports pydantic) was
    a third of the time to the topic list. Everything else goes to the typer command,
    which reads it again and says what is wrong, or takes the store's path.
    """
    import os

    if any(k.startswith("_RELKIT_COMPLETE") for k in os.environ):
        return None
    from relkit.judging.tui.argv import parse

    values = parse(args)
    if values is None:
        return None
    from relkit.judging.quiet import go_quiet
    from relkit.judging.tui.run import fast_judge

    def body() -> int | None:
        go_quiet(values.pop("quiet"))
        return fast_judge(**values)

    return run_fast(body, debug, stderr)


# The entries, by command name: each returns an exit status, or None for the typer command.
FAST: dict[str, typing.Callable[[list[str], bool, typing.TextIO], int | None]] = {
    "eval": fast_eval, "judge": fast_judge}
