"""``relkit judge``'s command line read without typer or click (its fast entry).

Typer's reading of a command line imports pydantic and builds a validator per option:
about 90 ms of the 0.3 s from the prompt to the topic list on a quiet machine, on a
path that is otherwise standard library, ``sqlite3`` and Textual (tui/start.py).
:func:`parse` reads a command line that click would take without complaint, exactly
as click reads it, and returns the values for
:func:`relkit.judging.tui.run.fast_judge`. Anything else (``--help``, an unknown
option, a missing value, an argument, a number that is not a plain decimal in its
range...) returns ``None``, and the CLI root runs the typer command: help pages and
error messages come from one place, click. tests/test_judge_argv.py checks the values
are typer's, and that the others are handed over.

Click's reading, kept here: a repeated option keeps its last value; a long option takes
its value after ``=`` or as the next word; ``--db`` and ``--assessor`` not given are
read from ``$RELKIT_DB`` and ``$RELKIT_ASSESSOR`` (an empty one is not given). Values
starting with ``-`` and empty ones are handed over. Standard library only.
"""

from __future__ import annotations

import math
import os
import re
from pathlib import Path
from typing import Any

from relkit.metrics.eval.argv import take

FLAG, TEXT, PATH, SECONDS, COUNT = "flag", "str", "path", "seconds", "count"
# Option -> (keyword of fast_judge, kind), as declared in relkit.judging.tui.cli.judge
# (and --quiet, every command's).
OPTIONS: dict[str, tuple[str, str]] = {
    "--db": ("db", TEXT), "--assessor": ("assessor", TEXT), "--keymap": ("keymap", PATH),
    "--idle": ("idle", SECONDS), "--min-view": ("min_view", COUNT), "--lead": ("lead", TEXT),
    "--pairs": ("pairs", FLAG), "--pair-strategy": ("pair_strategy", TEXT),
    "--topic": ("topic", TEXT), "--quiet": ("quiet", FLAG),
}
DEFAULTS: dict[str, Any] = {
    "db": None, "assessor": None, "keymap": None, "idle": 60.0, "min_view": 1000,
    "lead": None, "pairs": False, "pair_strategy": "all-pairs", "topic": None,
    "quiet": False,
}
ENV = {"db": "RELKIT_DB", "assessor": "RELKIT_ASSESSOR"}
# --idle is `x > 0` seconds, --min-view `x >= 0` milliseconds (Num): plain decimals only.
_SECONDS = re.compile(r"[0-9]+(\.[0-9]+)?")
_COUNT = re.compile(r"[0-9]+")


def _value(kind: str, text: str) -> Any:
    """The option's value as typer gives it, or ``None`` (typer's to read or refuse)."""
    if not text or text.startswith("-") or not text.isascii():
        return None
    if kind == TEXT:
        return text
    if kind == PATH:
        return Path(text)
    if kind == SECONDS:
        if not _SECONDS.fullmatch(text):
            return None
        seconds = float(text)   # (a long decimal overflows to inf, which typer refuses)
        return seconds if 0 < seconds < math.inf else None
    # (past a float's range, Num refuses a count: numopt._as_float)
    return int(text) if _COUNT.fullmatch(text) and len(text) <= 300 else None


def parse(args: list[str]) -> dict[str, Any] | None:
    """The keywords of ``fast_judge`` and ``quiet`` for ``relkit judge ARGS``, or ``None``:
    the command line is not one this reader is sure of (the typer command reads it)."""
    values = dict(DEFAULTS)
    given: set[str] = set()
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        name, eq, attached = token.partition("=")
        got = take(OPTIONS.get(name) if token.startswith("--") else None, eq, attached,
                   args, i)
        if got is None:
            return None  # --help, an unknown option, an argument, -x: click's to say
        key, kind, text, i = got
        if kind == FLAG:
            values[key] = True
            continue
        value = _value(kind, text)
        if value is None:
            return None
        values[key] = value
        given.add(key)
    for key, var in ENV.items():
        if key not in given:
            values[key] = os.environ.get(var) or None
    return values
