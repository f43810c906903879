"""``relkit eval``'s command line read without typer or click (its fast entry).

Importing typer and click is a fifth of a TREC-sized ``relkit eval`` (about 25 ms of
0.13 s), and the option set is small and fixed (trec_eval's, and relkit's few more).
:func:`parse` reads a command line that click would take without complaint, exactly
as click reads it, and returns the values for
:func:`relkit.metrics.eval.command.run_eval`. Anything else (``--help``, an unknown
option, a missing value, ``-qn``, ``--``, an int option that is not a plain decimal in
its range, ``--engine spark``...) returns ``None``, and the CLI root runs the typer
command instead: help pages and error messages come from one place, click, and stay
as they are. tests/test_eval_argv.py checks both readers give the same values, and the
same output, on valid command lines, and that the others are handed over.

Click's reading, kept here: options and arguments interleave; a repeated option keeps
its last value (``-m`` collects them all); a short option takes its value attached
(``-l2``, ``-mP.10``) or as the next word, a long one after ``=`` or as the next word;
the next word is the value even when it starts with ``-`` (only ``-l``'s ``-1`` is
taken so; other values starting with ``-`` are handed over). Standard library only at
import (relkit judge's fast entry reads its options with :func:`take`).
"""

from __future__ import annotations

import os
from typing import Any

# Option -> (keyword of run_eval, kind). Kinds: flag, str, many (a list), path, and int
# ranges (low, high) as declared with Num in relkit.metrics.eval.cli (None: no bound).
FLAG, TEXT, MANY, PATH = "flag", "str", "many", "path"
GRADE = (-1000, 1000)   # relkit.metrics.commands.numopt.GRADE
AT_LEAST_0 = (0, None)
OPTIONS: dict[str, tuple[str, Any]] = {
    "-m": ("measure", MANY), "--measure": ("measure", MANY),
    "-q": ("query", FLAG), "-n": ("no_summary", FLAG), "-c": ("complete", FLAG),
    "-l": ("level", GRADE), "-M": ("max_docs", AT_LEAST_0), "-J": ("judged_only", FLAG),
    "-N": ("num_docs", AT_LEAST_0), "-Z": ("zscores", PATH), "-R": ("relformat", TEXT),
    "--smoothing": ("smoothing", TEXT), "--compat": ("compat", (9, 10)),
    "--format": ("fmt", TEXT), "-o": ("output", PATH), "--output": ("output", PATH),
    "--list-measures": ("list_", FLAG), "--quiet": ("quiet", FLAG),
    "--names": ("names", TEXT), "--name-from-file": ("name_from_file", FLAG),
    "--engine": ("engine", TEXT), "--spark-master": ("spark_master", TEXT),
}
DEFAULTS: dict[str, Any] = {
    "measure": None, "query": False, "no_summary": False, "complete": False, "level": 1,
    "max_docs": None, "judged_only": False, "num_docs": 0, "zscores": None,
    "relformat": "qrels", "smoothing": None, "compat": 10, "fmt": "trec", "output": None,
    "list_": False, "quiet": False, "names": None, "name_from_file": False,
    "engine": "local", "spark_master": None,
    # --ppi and its options are left to the typer command (not in OPTIONS)
    "ppi": False, "human": None, "auto": None, "design": "simple",
}


def take(spec: tuple[str, Any] | None, eq: str, attached: str, args: list[str],
         i: int) -> tuple[str, Any, str, int] | None:
    """An option's (keyword, kind) from ``spec``, its text as click reads it, and the
    index of the word after it: ``attached`` after ``=`` (``eq``), else the next word
    ``args[i]``; a flag (kind ``"flag"``) takes none (``""``). ``None`` where click
    would speak: an unknown option (no ``spec``), a flag given a value, a value missing."""
    if spec is None:
        return None
    key, kind = spec
    if kind == FLAG:
        return None if eq else (key, kind, "", i)
    if eq:
        return key, kind, attached, i
    if i < len(args):
        return key, kind, args[i], i + 1
    return None  # click: the option requires an argument


def _int(text: str, bounds: tuple[int | None, int | None]) -> int | None:
    """A plain decimal within ``bounds`` (what typer and Num take without a word)."""
    digits = text[1:] if text.startswith("-") else text
    if not (digits and digits.isascii() and digits.isdigit()):
        return None
    if len(digits) > 300:   # past a float's range: Num refuses it (numopt._as_float)
        return None
    value = int(text)
    low, high = bounds
    if (low is not None and value < low) or (high is not None and value > high):
        return None
    return value


def _path(text: str) -> str | None:
    """typer's Path as text (``str(Path(text))``: pathlib is not imported on this path);
    an existing file it cannot read is its error."""
    if not text or (os.path.exists(text) and not os.access(text, os.R_OK)):
        return None
    from relkit.metrics.readers.sources import path_text

    return path_text(text)


def parse(args: list[str]) -> dict[str, Any] | None:
    """The keywords of ``run_eval`` (but ``bad``) for ``relkit eval ARGS``, or ``None``.

    ``None``: the command line is not one this reader is sure of; the typer command
    reads it (and says what is wrong with it, or shows the help).
    """
    values = dict(DEFAULTS)
    positional: list[str] = []
    i = 0
    while i < len(args):
        token = args[i]
        i += 1
        if token == "-" or not token.startswith("-"):
            positional.append(token)
            continue
        if token.startswith("--"):
            name, eq, attached = token.partition("=")
        elif len(token) > 2:
            name, eq, attached = token[:2], "=", token[2:]   # -l2, -mP.10
        else:
            name, eq, attached = token, "", ""
        got = take(OPTIONS.get(name), eq, attached, args, i)
        if got is None:
            return None  # --help, an unknown option, -qn, a value missing: click's to say
        key, kind, text, i = got
        if kind == FLAG:
            values[key] = True
            continue
        if kind in (MANY, TEXT):
            if text.startswith("-") and text != "-":
                return None
            if kind == MANY:
                values[key] = [*(values[key] or []), text]
            else:
                values[key] = text
        elif kind == PATH:
            path = _path(text)
            if path is None or text.startswith("-"):
                return None
            values[key] = path
        else:
            number = _int(text, kind)
            if number is None:
                return None
            values[key] = number
    if len(positional) < 2 and not values["list_"]:
        return None  # the typer command's help or its error
    if values["engine"] != "local" or values["spark_master"] is not None:
        return None  # Spark: the JVM's start-up dwarfs typer's
    if values["fmt"] == "parquet" and values["output"] is None:
        return None  # its error comes after the evaluation, from the writer (click's)
    values["qrels"] = positional[0] if positional else None
    values["runs"] = positional[1:] or None
    return values
