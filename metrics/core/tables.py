"""Tables on stdout or in a file, in the format a user asks for: tsv, csv, json, markdown,
latex, rich (the formats `relkit compare` offers, and tsv).

The diagnostic commands (``relkit pool-stats``, ``pool-coverage``, ``pool-reuse``,
``pool-simulate``, ``disagreements``...) each build one table (a header and rows of
plain values) and hand it here, so every one of them takes the same ``--format`` names
and ``-o/--output``. The formats are a :class:`~relkit.metrics.core.registry.Registry`,
like every other set of names in relkit (the help texts list :data:`TABLE_FORMATS`).

In the text formats a float is written with four decimals (as trec_eval does) and a
missing value (``None``) as an empty cell; JSON keeps numbers as numbers and writes a
missing value as ``null``. Standard library only (see the contracts on
``relkit.metrics.core``).
"""

from __future__ import annotations

import csv
import json
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from relkit.metrics.core.errors import RelkitError, check_output
from relkit.metrics.core.registry import Registry

Cell = str | int | float | None


def cell_text(x: Cell, missing: str = "") -> str:
    if x is None:
        return missing
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


Writer = Callable[[Sequence[str], Sequence[Sequence[Cell]], IO[str], str], None]


def _tsv(header: Sequence[str], rows: Sequence[Sequence[Cell]], out: IO[str],
         missing: str) -> None:
    # As the commands always printed it: cells joined by tabs, nothing quoted (ids and
    # run names hold no tabs).
    out.write("\t".join(header) + "\n")
    out.writelines("\t".join(cell_text(x, missing) for x in r) + "\n" for r in rows)


def _csv(header: Sequence[str], rows: Sequence[Sequence[Cell]], out: IO[str],
         missing: str) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows([cell_text(x, missing) for x in r] for r in rows)


def _json(header: Sequence[str], rows: Sequence[Sequence[Cell]], out: IO[str],
          missing: str) -> None:
    records = [dict(zip(header, r, strict=True)) for r in rows]
    # numpy scalars (counts from pandas) as the Python numbers they hold
    out.write(json.dumps(records, indent=2, default=lambda x: x.item()) + "\n")


def _markdown(header: Sequence[str], rows: Sequence[Sequence[Cell]], out: IO[str],
              missing: str) -> None:
    def line(cells: Sequence[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |\n"

    out.write(line(header))
    out.write("|" + "|".join("---" for _ in header) + "|\n")
    for r in rows:
        out.write(line([cell_text(x, missing) for x in r]))


_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
          "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
          "^": r"\textasciicircum{}"}


def _latex(header: Sequence[str], rows: Sequence[Sequence[Cell]], out: IO[str],
           missing: str) -> None:
    # A booktabs tabular, as `relkit compare --format latex` writes; every cell escaped
    # (ids and metric names carry _ and @).
    def esc(text: str) -> str:
        return "".join(_LATEX.get(c, c) for c in text)

    out.write("\\begin{tabular}{" + "l" * len(header) + "}\n\\toprule\n")
    out.write(" & ".join(esc(h) for h in header) + " \\\\\n\\midrule\n")
    for r in rows:
        out.write(" & ".join(esc(cell_text(x, missing)) for x in r) + " \\\\\n")
    out.write("\\bottomrule\n\\end{tabular}\n")


def _rich(header: Sequence[str], rows: Sequence[Sequence[Cell]], out: IO[str],
          missing: str) -> None:
    # A terminal table, as `relkit compare`'s default; wide enough never to wrap a cell
    # (rich would otherwise fit it to 80 columns when the output is not a terminal).
    import os

    from rich.console import Console  # rich: only when this format is asked for
    from rich.table import Table

    cells = [[cell_text(x, missing) for x in r] for r in rows]
    table = Table(*header)
    for r in cells:
        table.add_row(*r)
    width = sum(max([len(h), *(len(r[i]) for r in cells)]) + 3
                for i, h in enumerate(header)) + 1
    plain = bool(os.environ.get("NO_COLOR")) or not out.isatty()
    Console(file=out, width=width, soft_wrap=False, highlight=False,
            color_system=None if plain else "auto").print(table)


@dataclass(frozen=True)
class TableFormat:
    """One way of writing a table: ``write(header, rows, stream, missing)``."""

    name: str
    description: str
    write: Writer
    aliases: tuple[str, ...] = ()


TABLE_FORMATS: Registry[TableFormat] = Registry("table format", RelkitError, ignore_case=True)
TABLE_FORMATS.register(
    TableFormat("tsv", "tab-separated, a header row first", _tsv),
    TableFormat("csv", "comma-separated (RFC 4180 quoting), a header row first", _csv),
    TableFormat("json", "a JSON array of records, one per row", _json),
    TableFormat("markdown", "a Markdown (GitHub) table", _markdown, aliases=("md",)),
    TableFormat("latex", "a LaTeX (booktabs) tabular", _latex),
    TableFormat("rich", "a table drawn for the terminal", _rich),
)
FORMAT_HELP = f"Table format: {', '.join(TABLE_FORMATS.names())}"
OUTPUT_HELP = "Write the table here instead of stdout"


def check_table_options(fmt: str, output: Path | None) -> None:
    """Check ``--format`` and ``-o`` before the work: a usage error, or a failure, named."""
    from relkit.metrics.core.options import option_value

    with option_value("--format"):
        TABLE_FORMATS.lookup(fmt)
    if output is not None:
        check_output(output)


def write_table(header: Sequence[str], rows: Sequence[Sequence[Cell]], fmt: str = "tsv",
                output: Path | None = None, *, missing: str = "") -> None:
    """Write ``rows`` under ``header`` in the format named ``fmt``, to ``output`` or stdout.

    ``missing`` is how the text formats show ``None`` (JSON: ``null``).

    >>> write_table(["run", "score", "tau"], [["bm25", 0.25, None]], "csv")
    run,score,tau
    bm25,0.2500,
    >>> write_table(["run", "score"], [["bm25", 0.25]], "json")
    [
      {
        "run": "bm25",
        "score": 0.25
      }
    ]
    """
    form = TABLE_FORMATS.lookup(fmt)
    if output is None:
        form.write(header, rows, sys.stdout, missing)
        return
    check_output(output)
    with open(output, "w", encoding="utf-8", newline="") as fp:
        form.write(header, rows, fp, missing)
