"""The conventions every ``relkit`` command follows, given to it by the CLI root.

:class:`RelkitCommand` (and :class:`RelkitGroup` for ``relkit export`` and the like) is
the class :mod:`relkit.judging.cli` gives every command it registers, so the packages'
CLI modules (metrics, pooling, corpora: lower layers) need not import the judging layer:

- ``--quiet`` on every command: stderr is a sink while it runs (diagnostics and progress
  bars go; the data on stdout and the errors, printed by the root afterwards or through
  :func:`error_stream`, stay);
- an option that takes files (``list[Path]``, e.g. ``agree --runs``) takes several
  values after one flag, up to the next option or a ``--`` (:func:`spread`), so a shell
  glob works;
- a value an option cannot take (:class:`relkit.metrics.core.options.OptionError`) is
  click's usage error, exit 2, naming the command and the option;
- a closed pipe ends the command quietly with status 0 (click would exit 1);
- help pages show no ``<bool>`` after a flag, and are plain text under ``NO_COLOR``.

tests/test_cli_conventions.py walks :func:`relkit.judging.cli.full_app` to check them.
"""

from __future__ import annotations

import typing
from pathlib import Path
from typing import Any

import typer

from relkit.judging.quiet import _Sink, error_stream, go_quiet

__all__ = ["MANY", "QUIET_HELP", "RelkitCommand", "RelkitGroup", "_Sink", "error_stream",
           "go_quiet", "is_option", "quiet_option", "spread"]

QUIET_HELP = "No diagnostics or progress on stderr (data and errors still appear)"
MANY = ("Several files after one flag: {opt} A B C (values run to the next option; "
        "`--` ends the list)")


def is_option(token: str) -> bool:
    """``-x``/``--x`` (but not ``-``, which names stdin, nor a negative number)."""
    return token.startswith("-") and token != "-" and not token[1:2].isdigit()


def spread(args: list[str], names: set[str]) -> list[str]:
    """``--runs a b c`` as ``--runs a --runs b --runs c`` for the options in ``names``.

    Click gives an option one value per flag, so a shell glob after ``--runs``
    would leave every file but the first to the positional arguments. Here the
    values of a multi-value option run from the flag to the next token that
    looks like an option; a ``--`` right after them ends the list (and is
    dropped, so later options are still read); a lone ``--`` elsewhere keeps
    click's meaning (the rest are positional). ``--runs=FILE`` is one value.

    >>> spread(["x.qrels", "--runs", "a", "b", "--format", "json"], {"--runs"})
    ['x.qrels', '--runs', 'a', '--runs', 'b', '--format', 'json']
    >>> spread(["--runs", "a", "b", "--", "x.qrels"], {"--runs"})
    ['--runs', 'a', '--runs', 'b', 'x.qrels']
    """
    out: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        if token == "--":
            return out + args[i:]
        i += 1
        if token not in names:
            out.append(token)
            continue
        values = []
        while i < len(args) and not is_option(args[i]) and args[i] != "--":
            values.append(args[i])
            i += 1
        if i < len(args) and args[i] == "--" and values:
            i += 1
        if not values:
            out.append(token)  # click says the option needs a value
        for v in values:
            out += [token, v]
    return out


def _many_files(param: Any) -> bool:
    """A repeatable option whose values are paths (``list[Path]``)."""
    if getattr(param, "param_type_name", "") != "option" or not getattr(param, "multiple", False):
        return False
    desc = getattr(param, "type_descriptor", None)
    if desc is not None:  # typer >= 0.2x: its own types, from the annotation
        from pathlib import PurePath
        from typing import get_args

        leaf = (get_args(desc.annotation) or (None,))[0]
        return isinstance(leaf, type) and issubclass(leaf, PurePath)
    return type(getattr(param, "type", None)).__name__ == "Path"  # older typer: click's


_quiet_param: Any = None


def quiet_option() -> Any:
    """The ``--quiet`` option, built once by Typer itself (so it renders like the others)."""
    global _quiet_param
    if _quiet_param is None:
        probe = typer.Typer()

        @probe.command()
        def _probe(quiet: bool = typer.Option(False, "--quiet", help=QUIET_HELP,
                                              callback=go_quiet, expose_value=False,
                                              is_eager=True)) -> None:
            pass  # pragma: no cover - never run

        _quiet_param = typer.main.get_command(probe).params[0]
    return _quiet_param


_LABELS = {Path: "FILE", int: "INT", float: "NUMBER", str: "TEXT"}


def _plain_type_label(param: Any) -> None:
    """Help shows ``FILE...``, ``INT``, ``TEXT`` where Typer 0.2x prints Python's type
    names (``<list[Path]>``, ``<int range>``, ``<str>``); choices keep their list."""
    desc = getattr(param, "type_descriptor", None)
    if desc is None or desc.is_choice or not hasattr(param, "display_type"):
        return  # an older Typer: it already prints click's labels
    ann = desc.annotation
    if desc.is_list:
        args = typing.get_args(ann)
        ann = args[0] if args else str
    if desc.is_ranged:
        ann = {"int": int, "float": float}.get(str(desc.ranged_type_name), ann)
    label = _LABELS.get(ann)
    if label is not None:
        # Several values after one flag only for file lists (see spread); other lists
        # repeat the option (--param a=1 --param b=2).
        label += "..." if desc.is_list and ann is Path else ""
        param.display_type = lambda ctx, label=label: label


def _also_quiet(callback: Any) -> Any:
    def both(ctx: Any, param: Any, value: Any) -> Any:
        go_quiet(bool(value))
        return callback(ctx, param, value) if callback is not None else value
    return both


def _untyped(ctx: Any) -> None:
    return None


class RelkitCommand(typer.core.TyperCommand):
    """A command with relkit's conventions: ``--quiet``, multi-value file options, no
    ``<bool>`` placeholder on flags.

    The CLI root gives every command this class; tests/test_cli_conventions.py walks
    :func:`relkit.judging.cli.full_app` to check each one.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        own = [p for p in self.params if "--quiet" in getattr(p, "opts", ())]
        if not own:
            self.params.append(quiet_option())
        for p in own:
            # A command's own --quiet (it also silences its warnings) silences the rest of
            # its stderr too, like everyone else's: one meaning for the flag.
            p.callback = _also_quiet(p.callback)
        for p in self.params:
            _plain_type_label(p)
            if _many_files(p):
                opt: Any = p  # an Option: it has help (a Parameter in general has not)
                many = MANY.format(opt=max(opt.opts, key=len))
                if many not in (opt.help or ""):
                    opt.help = f"{opt.help}. {many}" if opt.help else many
                    opt.metavar = opt.metavar or "FILE..."

    def many_names(self) -> set[str]:
        return {o for p in self.params if _many_files(p) for o in p.opts}

    def parse_args(self, ctx: Any, args: list[str]) -> list[str]:
        names = self.many_names()
        return super().parse_args(ctx, spread(args, names) if names else args)

    def invoke(self, ctx: Any) -> Any:
        from relkit.metrics.core.options import OptionError

        try:
            return super().invoke(ctx)
        except OptionError as exc:
            # A value the option cannot take: click's usage error, exit 2, one line
            # naming the command and the option.
            raise typer.BadParameter(exc.message, ctx=ctx, param_hint=exc.option) from None
        except BrokenPipeError:
            # Before click sees it: click turns a closed pipe into exit status 1.
            from relkit.judging.closedpipe import closed_pipe

            raise typer.Exit(closed_pipe()) from None

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_help(lambda: super(RelkitCommand, self).format_help(ctx, formatter))

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))


class RelkitGroup(typer.core.TyperGroup):
    """A group (``relkit``, ``relkit export``...): its help follows the same conventions."""

    def format_help(self, ctx: Any, formatter: Any) -> None:
        _plain_help(lambda: super(RelkitGroup, self).format_help(ctx, formatter))

    def get_params(self, ctx: Any) -> list[Any]:
        return _untyped_flags(super().get_params(ctx))


def _plain_help(render: Any) -> None:
    """Render a help page; under ``NO_COLOR`` as plain text."""
    import os

    if not os.environ.get("NO_COLOR"):
        return render()
    try:
        import typer.rich_utils as ru
    except ImportError:  # typer without rich: plain text already
        return render()
    # NO_COLOR (no-color.org): rich drops colours by itself; the help is plain text
    # altogether (no bold, no dim), like the rest of relkit's output.
    was, ru.COLOR_SYSTEM = ru.COLOR_SYSTEM, None
    try:
        return render()
    finally:
        ru.COLOR_SYSTEM = was


def _untyped_flags(params: list[Any]) -> list[Any]:
    for p in params:
        # Typer shows a type after every option, `<bool>` for a flag; a flag takes no
        # value, so it shows none.
        if getattr(p, "is_flag", False) and hasattr(p, "display_type_rich"):
            p.display_type_rich = _untyped
    return params

