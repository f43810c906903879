"""DuckDB plumbing of the click-log readers: the connection, file formats, raw views.

:func:`connect` makes the bounded connection every reader uses; :func:`raw_view` opens a
file's own columns (text files as VARCHAR, numbered by line) for
:mod:`relkit.metrics.online.source` to map to the canonical fields. duckdb is imported
inside the functions.
"""

from __future__ import annotations

import itertools
import os
import tempfile
from pathlib import Path
from typing import IO, TYPE_CHECKING, Literal

from relkit.metrics.core.errors import FormatError, InputError, RelkitError

if TYPE_CHECKING:
    import duckdb

LogFormat = Literal["parquet", "csv", "tsv", "jsonl"]
_SUFFIXES: dict[str, LogFormat] = {
    ".parquet": "parquet", ".pq": "parquet", ".csv": "csv", ".tsv": "tsv", ".tab": "tsv",
    ".txt": "tsv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".json": "jsonl",
}
# The first line of data: a header line comes first in CSV/TSV.
_FIRST_LINE = {"parquet": 1, "csv": 2, "tsv": 2, "jsonl": 1}
_names = itertools.count(1)

# DuckDB's default is 80% of RAM; logs are shared machines' business, so a bound.
DEFAULT_MEMORY_LIMIT = "4GB"


def connect(memory_limit: str | None = None, threads: int | None = None
            ) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with a memory bound and a private spill directory.

    ``memory_limit`` defaults to ``$RELKIT_DUCKDB_MEMORY`` or 4GB; past it DuckDB spills
    to a directory under the system's temporary directory (never the working directory:
    reading never writes there). ``threads`` defaults to DuckDB's (all cores).
    """
    import duckdb  # deferred: the one heavy library of online evaluation

    from relkit.metrics.core.errors import RelkitError

    con = duckdb.connect(":memory:")
    OPENED.clear()   # a command's files: named if a later scan of them fails
    limit = memory_limit or os.environ.get("RELKIT_DUCKDB_MEMORY", DEFAULT_MEMORY_LIMIT)
    try:
        con.execute(f"SET memory_limit = '{_sq(limit)}'")
    except duckdb.Error:
        raise RelkitError(f"expected a size such as 4GB or 500MB; got {limit!r}") from None
    spill = os.path.join(tempfile.gettempdir(), f"relkit-duckdb-{os.getpid()}")
    con.execute(f"SET temp_directory = '{_sq(spill)}'")
    if threads:
        con.execute(f"SET threads = {int(threads)}")
    return con


# The files :func:`raw_view` opened on the newest connection. DuckDB reads lazily: a
# damaged Parquet page or a bad CSV row far down is met by whichever query scans it
# first (a command's statistics, not the open), where no path is at hand. The CLI's
# error boundary (relkit.judging.cli.main) names these files in its one line instead.
OPENED: list[str] = []


def scan_reason(exc: BaseException) -> str | None:
    """DuckDB's reason, one line, if ``exc`` is DuckDB's (or its bindings'); else None."""
    if not type(exc).__module__.lstrip("_").startswith("duckdb") and not _in_duckdb(exc):
        return None
    return (str(exc).strip().splitlines() or [type(exc).__name__])[0]


def scan_error(exc: BaseException) -> str | None:
    """A DuckDB error met while scanning the opened files, as one line naming them; None
    if ``exc`` is not DuckDB's."""
    reason = scan_reason(exc)
    if reason is None:
        return None
    return f"{' or '.join(OPENED) or 'an input file'}: cannot read it ({reason})"


def _in_duckdb(exc: BaseException) -> bool:
    """Whether ``exc`` (a RuntimeError of DuckDB's bindings: a column name that is not
    UTF-8) was raised inside the duckdb package while files were open."""
    tb = exc.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return bool(OPENED) and tb is not None and \
        f"{os.sep}duckdb{os.sep}" in tb.tb_frame.f_code.co_filename


def _sq(text: str) -> str:
    return text.replace("'", "''")


def _q(name: str) -> str:
    """An SQL identifier, quoted."""
    return '"' + name.replace('"', '""') + '"'


def log_format(path: str | Path, fmt: str | None = None) -> LogFormat:
    """The format of ``path``: ``fmt`` if given, else from its suffix (``.gz`` ignored)."""
    if fmt is not None:
        if fmt not in ("parquet", "csv", "tsv", "jsonl"):
            raise FormatError("--input-format", None, "parquet, csv, tsv or jsonl", repr(fmt))
        return fmt  # type: ignore[return-value]
    name = str(path).lower().removesuffix(".gz")
    suffix = os.path.splitext(name)[1]
    if suffix not in _SUFFIXES:
        raise FormatError(str(path), None, "a file ending in .parquet, .csv, .tsv or .jsonl "
                          "(or name the format with --input-format)", f"{suffix or 'no suffix'!r}")
    return _SUFFIXES[suffix]



def _open_error(path: str, exc: Exception, fmt: LogFormat = "parquet") -> RelkitError:
    """DuckDB's error reading ``path`` as one line, naming the line when it can."""
    import re

    text = str(exc)
    if fmt in ("csv", "tsv"):
        line = re.search(r"CSV Error on Line: (\d+)", text)
        cols = re.search(r"Expected Number of Columns: (\d+) Found: (\d+)", text)
        if line and cols:
            return FormatError(path, int(line.group(1)), f"{cols.group(1)} fields",
                               cols.group(2))
        if line:
            n = int(line.group(1))
            if "unterminated quote" in text:
                return FormatError(path, n, "a closing quote", "a value with none")
            if "unicode" in text.lower():
                return FormatError(path, n, "UTF-8 text", "bytes that are not UTF-8")
            return FormatError(path, n, "a well-formed row", "one DuckDB cannot read")
    if fmt == "parquet" and ("magic bytes" in text or "too small" in text):
        return FormatError(path, None, "a Parquet file", "no Parquet footer (not Parquet, "
                           "or cut short)")
    if fmt == "jsonl" and "JSON" in text:
        bad = first_bad_json(path)
        if bad is not None:
            return FormatError(path, *bad)
    first = text.strip().splitlines()[0] if text.strip() else type(exc).__name__
    return FormatError(path, None, "a readable file", first)


def _open_text(path: str) -> IO[str]:
    import gzip

    if path.lower().endswith(".gz"):
        return gzip.open(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, encoding="utf-8", errors="replace", newline="")


def first_bad_json(path: str) -> tuple[int, str, str] | None:
    """The first line of a JSONL file that is not one JSON object of distinct keys in
    UTF-8: (line, what was expected, what was found).

    Called only when the file has such a line (DuckDB refused it, or kept it as a
    non-object): its own line numbers skip blank lines, so the file is read again to
    name the line exactly.
    """
    import gzip
    import json

    def pairs(items: list[tuple[str, object]]) -> dict[str, object]:
        keys = [k for k, _ in items]
        twice = next((k for k in keys if keys.count(k) > 1), None)
        if twice is not None:
            raise KeyError(twice)
        return dict(items)

    opener = gzip.open if path.lower().endswith(".gz") else open
    try:
        with opener(path, "rb") as f:
            for n, raw in enumerate(f, 1):
                try:
                    line = raw.decode("utf-8")
                except UnicodeDecodeError:
                    return n, "UTF-8 text", "bytes that are not UTF-8"
                if not line.strip():
                    continue
                try:
                    obj = json.loads(line, object_pairs_hook=pairs)
                except KeyError as exc:
                    return n, "each key once in a JSON object", f"{exc.args[0]!r} twice"
                except ValueError:
                    return n, "a JSON object", repr(line.strip()[:40])
                if not isinstance(obj, dict):
                    what = {list: "an array", str: "a string", type(None): "null",
                            bool: "a boolean"}.get(type(obj), "a number")
                    return n, "a JSON object", f"{what} {line.strip()[:40]!r}"
    except OSError:
        return None
    return None


def _csv_header(path: str, delim: str) -> list[str]:
    """The header line's column names; DuckDB's sniffer is not trusted with it.

    The sniffer takes a long row for the header or gives up on a ragged second line;
    with the header read here, DuckDB reads the rest strictly and names the bad line.
    """
    import csv

    try:
        with _open_text(path) as f:
            header = next(csv.reader(f, delimiter=delim), None)
    except (OSError, csv.Error) as exc:
        raise FormatError(path, 1, "a header line", str(exc)) from None
    if not header:
        raise InputError(f"{path}: empty file (no header)")
    # read with errors="replace": a byte that is not UTF-8 is U+FFFD here, and a NUL
    # is no column name either (a binary file)
    if any("\ufffd" in h or "\x00" in h for h in header):
        raise FormatError(path, 1, "a header line of UTF-8 text", "bytes that are not "
                          "UTF-8, or a NUL (a binary file?)")
    names = [h.removeprefix("\ufeff") if i == 0 else h for i, h in enumerate(header)]
    twice = sorted({h for h in names if names.count(h) > 1})
    if twice:
        raise FormatError(path, 1, "distinct column names", f"{twice[0]!r} twice")
    return names


def raw_view(con: duckdb.DuckDBPyConnection, path: str, fmt: LogFormat,
             lists: tuple[str, ...]) -> str:
    """A view of the file's own columns plus ``_row``; text files as VARCHAR."""
    import duckdb

    name = f"relkit_raw_{next(_names)}"
    OPENED.append(path)
    p = _sq(path)
    first = _FIRST_LINE[fmt]
    try:
        if fmt == "parquet":
            con.execute(f"CREATE TEMP VIEW {name} AS SELECT * EXCLUDE (file_row_number), "
                        f"file_row_number + 1 AS _row "
                        f"FROM read_parquet('{p}', file_row_number = true)")
            return name
        table = f"{name}_t"
        if fmt in ("csv", "tsv"):
            delim = "," if fmt == "csv" else "\\t"
            header = _csv_header(path, "," if fmt == "csv" else "\t")
            columns = "{" + ", ".join(f"'{_sq(c)}': 'VARCHAR'" for c in header) + "}"
            con.execute(f"CREATE TEMP TABLE {table} AS SELECT * FROM read_csv('{p}', "
                        f"columns = {columns}, auto_detect = false, header = true, "
                        f"delim = E'{delim}', quote = '\"', escape = '\"', "
                        f"null_padding = false)")  # strict by default: ragged rows fail
        else:
            src = f"read_json_objects('{p}', format = 'newline_delimited')"
            # A line that is an array, a string, a number or null, or an object with a
            # key twice, is read by DuckDB without complaint (as a row of NULLs, or one of
            # the values): found in the scan that lists the keys, named by line below.
            ok = ("json_type(json) = 'OBJECT' AND len(json_keys(json)) = "
                  "len(list_distinct(json_keys(json)))")
            n, keys, bad = con.execute(
                f"SELECT count(*), list_sort(list_distinct(flatten(list(json_keys(json))))), "
                f"bool_or(NOT ({ok})) FROM {src}").fetchone() or (0, [], False)
            if not n:
                raise InputError(f"{path}: empty file (no JSON objects)")
            if bad:
                where = first_bad_json(path)
                if where is not None:
                    raise FormatError(path, *where)
                raise FormatError(path, None, "JSON objects, one per line", "a line that is not")
            if not keys:
                raise FormatError(path, 1, "JSON objects, one per line", "no keys")
            cols = [f"CAST(json -> '{_sq(k)}' AS VARCHAR[]) AS {_q(k)}" if k in lists
                    else f"json ->> '{_sq(k)}' AS {_q(k)}" for k in keys]
            con.execute(f"CREATE TEMP TABLE {table} AS SELECT {', '.join(cols)} FROM {src}")
        con.execute(f"CREATE TEMP VIEW {name} AS SELECT *, rowid + {first} AS _row "
                    f"FROM {table}")
    except duckdb.Error as exc:
        raise _open_error(path, exc, fmt) from None
    return name


def schema_of(con: duckdb.DuckDBPyConnection, view: str, path: str) -> dict[str, str]:
    """The view's columns and their types; ``path`` names the file in an error."""
    try:
        return {c: str(t) for c, t in zip(con.table(view).columns, con.table(view).types,
                                          strict=True)}
    except RuntimeError as exc:
        # DuckDB reads a Parquet column name that is not UTF-8, and its Python binding
        # then cannot make a str of it ("nanobind::str(): conversion error!").
        if "conversion" not in str(exc):
            raise
        raise FormatError(path, None, "column names in UTF-8",
                          "a column name that is not") from None


