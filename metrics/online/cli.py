"""``relkit clicks ...``: check a click log, describe it, convert one to the long form.

Registered in ``judging/cli.py`` as the ``clicks`` sub-app. Problems and tables go to
stdout, progress and the summary line to stderr. duckdb (and matplotlib for ``--plot``)
are imported inside the commands: ``relkit clicks --help`` loads neither.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from relkit.metrics.commands.numopt import COUNT, Num
from relkit.metrics.commands.tableopts import TableOutput
from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.progress import Bar

if TYPE_CHECKING:
    import duckdb

app = typer.Typer(help="Click logs: check one, describe one, convert one to the long form.",
                  no_args_is_help=True, add_completion=False,
                  epilog="Example: relkit clicks validate log.parquet")

MAP_HELP = ("Read a field from another column: name=column (repeat, or comma-separate). "
            "Fields: impression_id query_id rank doc_id clicked user_id variant session_id "
            "ts click_ts dwell_s page query; SERP-wide lists: doc_ids clicks")
INPUT_FORMAT_HELP = "parquet, csv, tsv or jsonl (default: from the file name)"
MEMORY_HELP = "DuckDB's memory limit, past which it spills to a temporary directory " \
              "(default: $RELKIT_DUCKDB_MEMORY or 4GB)"


class UnreadableLog(RelkitError):
    """``relkit clicks validate``: the log cannot be read at all (exit 2, not 1)."""

    exit_code = 2


def _say(msg: str) -> None:
    sys.stderr.write(f"relkit: {msg}\n")


@app.command(epilog="Example: relkit clicks validate log.parquet --map rank=position")
def validate(
    log: Path = typer.Argument(..., help="The impression log (Parquet, CSV, TSV or JSONL)"),
    map_: list[str] = typer.Option([], "--map", help=MAP_HELP),
    input_format: str | None = typer.Option(None, "--input-format", help=INPUT_FORMAT_HELP),
    first: int = Num(5, "--first", within=COUNT, help="Rows named per problem"),
    memory_limit: str | None = typer.Option(None, "--memory-limit", help=MEMORY_HELP),
) -> None:
    """Check a click log: types, duplicate or missing ranks, unshown clicks, clock.

    Each kind of problem is one line on stdout naming the column and the
    row (or the count and the first rows); a summary goes to stderr.

    Exit status 0 when the log is clean, 1 when it has problems, 2 when it
    cannot be read (no such file, a required column missing, a column of
    the wrong type).
    """
    from relkit.metrics.online.source import open_log
    from relkit.metrics.online.validate import validate as check

    con, mapping, form = _connect(memory_limit), _mapping(map_), _input_format(input_format)
    try:
        source = open_log(log, mapping=mapping, fmt=form, con=con)
    except RelkitError as exc:
        raise UnreadableLog(str(exc)) from None
    with Bar(f"checking {log.name}", total=4, unit="steps") as bar:
        problems, summary = check(source, limit=first, progress=bar)
    for p in problems:
        sys.stdout.write(p.line(str(log)) + "\n")
    what = f"{log}: {summary.rows:,} rows, {summary.impressions:,} impressions"
    if problems:
        _say(f"{what}: {len(problems)} kind(s) of problem")
        raise typer.Exit(1)
    _say(f"{what}: no problems")


def _connect(memory_limit: str | None) -> duckdb.DuckDBPyConnection:
    from relkit.metrics.core.options import option_value
    from relkit.metrics.online.source import connect

    with option_value("--memory-limit"):
        return connect(memory_limit)


def _input_format(fmt: str | None) -> str | None:
    """``--input-format``'s value, checked before any work (a usage error)."""
    from relkit.metrics.core.errors import FormatError
    from relkit.metrics.core.options import OptionError
    from relkit.metrics.core.registry import did_you_mean
    from relkit.metrics.online.source import log_format

    if fmt is not None:
        try:
            log_format("-", fmt)
        except FormatError as exc:  # its source is the option: name it once
            raise OptionError("--input-format", f"expected {exc.expected}; got {fmt!r}"
                              f"{did_you_mean(fmt, ('parquet', 'csv', 'tsv', 'jsonl'))}"
                              ) from None
    return fmt


def _mapping(specs: list[str]) -> dict[str, str]:
    from relkit.metrics.core.options import option_value
    from relkit.metrics.online.fields import FIELDS, WIDE_LISTS, parse_map

    with option_value("--map"):
        return parse_map(specs, [*FIELDS, *WIDE_LISTS])


@app.command(epilog="Example: relkit clicks stats log.parquet --by variant --plot ctr.svg")
def stats(
    log: Path = typer.Argument(..., help="The impression log (Parquet, CSV, TSV or JSONL)"),
    by: str | None = typer.Option(None, "--by", help="Summarise per value of this field "
                                  "(variant, page, user_id...)"),
    map_: list[str] = typer.Option([], "--map", help=MAP_HELP),
    input_format: str | None = typer.Option(None, "--input-format", help=INPUT_FORMAT_HELP),
    fmt: str = typer.Option("text", "--format", help="text (aligned columns), tsv, csv, json "
                            "or markdown"),
    output: TableOutput = None,
    plot: Path | None = typer.Option(None, "--plot", help="Draw CTR by rank (per group) "
                                     "to this SVG file"),
    memory_limit: str | None = typer.Option(None, "--memory-limit", help=MEMORY_HELP),
) -> None:
    """Describe a click log: volumes, CTR by rank, abandonment, dwell time.

    Volumes are rows, impressions, sessions, queries, users and clicks;
    dwell time is given as quantiles.

    Two tables: the summary (one row per group) and CTR by rank (one row
    per group and rank). In text and markdown they follow each other; in
    json they are one object {"summary": [...], "ctr_by_rank": [...]}; in
    tsv and csv they are one table, a value per row: section, the --by
    field (when given), rank, name, value (docs/clicks.md).
    """
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import OptionError, option_value
    from relkit.metrics.core.tables import TABLE_FORMATS
    from relkit.metrics.online.report import render
    from relkit.metrics.online.source import open_log
    from relkit.metrics.online.stats import stats as describe

    if fmt != "text" and fmt.lower() not in TABLE_FORMATS:
        with option_value("--format"):
            raise TABLE_FORMATS.unknown(fmt, among=["text", *TABLE_FORMATS.names()])
    for path, option in ((output, "-o"), (plot, "--plot")):
        if path is not None:
            check_output(path, option)
    if plot is not None and plot.suffix.lower() != ".svg":
        raise OptionError("--plot", f"expected a file name ending in .svg; got {str(plot)!r}")
    source = open_log(log, mapping=_mapping(map_), fmt=_input_format(input_format),
                      con=_connect(memory_limit))
    with Bar(f"checking {log.name}", total=None, unit="columns"):
        source.check()
    with Bar(f"summarising {log.name}", total=3, unit="steps") as bar:
        groups = describe(source, by, progress=bar)
    text = render(groups, by, fmt)
    if output is None:
        sys.stdout.write(text)
    else:
        output.write_text(text, encoding="utf-8")
    if plot is not None:
        from relkit.metrics.online.plot import ctr_plot

        ctr_plot(groups, by, plot, title=log.name)


@app.command(epilog="Example: relkit clicks convert yandex_clicks.txt --from yandex "
             "-o clicks.parquet")
def convert(
    source: Path = typer.Argument(..., help="The log to convert"),
    output: Path = typer.Option(..., "-o", "--output", help="The long-form Parquet file "
                                "to write (written whole or not at all)"),
    from_: str = typer.Option("log", "--from", help="log (any log `clicks` reads: "
                              "long or SERP-wide form) or yandex (the Yandex Relevance "
                              "Prediction Challenge's text format)"),
    map_: list[str] = typer.Option([], "--map", help=MAP_HELP),
    input_format: str | None = typer.Option(None, "--input-format", help=INPUT_FORMAT_HELP),
    region: bool = typer.Option(True, "--region/--no-region", help="yandex: Q records "
                                "carry a RegionID before the URLs"),
    memory_limit: str | None = typer.Option(None, "--memory-limit", help=MEMORY_HELP),
) -> None:
    """Convert a click log (SERP-wide, CSV/TSV/JSONL, Yandex) to long-form Parquet.

    The output is written to a temporary file and renamed when complete:
    on any error nothing is written.
    """
    from relkit.metrics.core.errors import check_output
    from relkit.metrics.core.options import OptionError
    from relkit.metrics.online.convert import from_yandex, write_long
    from relkit.metrics.online.source import open_log

    if from_ not in ("log", "yandex"):
        raise OptionError("--from", f"expected log or yandex; got {from_!r}")
    check_output(output)
    if output.suffix.lower() != ".parquet":  # Parquet in a file named .csv misleads
        raise OptionError("-o", f"expected a file name ending in .parquet; got {str(output)!r}")
    con = _connect(memory_limit)
    with Bar(f"converting {source.name}", total=None, unit="steps"):
        if from_ == "yandex":
            rows = from_yandex(source, output, con=con, region=region)
        else:
            log = open_log(source, mapping=_mapping(map_), fmt=_input_format(input_format),
                           con=con)
            rows = write_long(log, output)
    _say(f"{source} -> {output}: {rows:,} rows")


# Click models (relkit.metrics.online.clickmodels): fit, labels, simulate.
from relkit.metrics.online.clickmodels import commands as _cm  # noqa: E402

app.command(epilog="Example: relkit clicks fit log.parquet --model dbn --holdout 0.2 "
            "-o dbn.json")(_cm.fit)
app.command(epilog="Example: relkit clicks labels dbn.json --grades 0-3 -o clicks.qrels")(
    _cm.labels)
app.command(epilog="Example: relkit clicks simulate --preset navigational --qrels q.txt "
            "--runs a.run --runs b.run --sessions 100000 -o sim.parquet")(_cm.simulate)
