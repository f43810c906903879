"""Readers and writers for TREC run and qrels files.

A source is a path (``str`` or ``os.PathLike``; ``.gz`` is decompressed), an
open file (text or binary), or literal text (a ``str`` containing a newline).

Reading has three paths with one contract (the same columns, values, run id and
line numbers, and the same errors):

* a small-input path (inputs up to :data:`SMALL_INPUT_BYTES`): the whole text is
  split once in C (``str.split``) after a vectorised numpy check that every line
  has the expected number of fields; ids come back as lists of ``str`` and pyarrow
  is never imported (importing it costs more than reading a TREC-sized run);
* a fast path for large inputs: pyarrow's multithreaded C++ CSV reader, used when
  every line has exactly the expected number of fields separated by one space or
  one tab and there are no comment or blank lines (the common case);
* a checking path: a line-by-line parser that accepts any whitespace, skips
  blank and ``#`` comment lines, ignores extra run fields (as trec_eval does),
  and raises :class:`~relkit.metrics.errors.FormatError` naming ``file:line``.

Whenever a fast path meets anything it does not accept, the checking path reads
the file again, so the result and the errors never depend on the path.

This module chooses the path and holds the checking parser and the column forms
the paths return. The small-input splitter is :mod:`relkit.metrics.readers.fields`, the
pyarrow path :mod:`relkit.metrics.readers.arrow_reader`, sources (paths, files, text,
gzip) :mod:`relkit.metrics.readers.sources`, writing :mod:`relkit.metrics.readers.writer`; their
names that callers use are importable from here too (``__all__``).
"""

from __future__ import annotations

import math
import os
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.errors import FormatError
from relkit.metrics.readers.arrow_reader import _fast_table, _head, _tail_line
from relkit.metrics.readers.fields import _Fields
from relkit.metrics.readers.sources import (
    BOM,
    Source,
    _plain_size,
    content_lines,
    read_bytes,
    source_name,
)
from relkit.metrics.readers.writer import write_frame

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "BOM", "EVAL_FIELDS", "GRADE_EXPECTED", "GRADE_MAX", "GRADE_MIN", "MAX_ID_BYTES",
    "QRELS_FIELDS", "RUN_FIELDS", "SMALL_INPUT_BYTES", "Columns", "Source", "as_bytes",
    "content_lines", "decode", "read_bytes", "read_qrels_columns", "read_qrels_table",
    "is_large", "read_run_columns", "read_run_table", "source_name", "to_arrow", "write_frame",
]

# Columns of a small input read without pyarrow, all numpy arrays: ids as fixed-width
# bytes (dtype ``S``; UTF-8, no NUL), the score float64, the grade int64.
Columns = dict[str, Any]

# Inputs up to this size take the small-input path (no pyarrow). Around 10 MB the
# pure-Python split and pyarrow's reader plus its import cost about the same; below,
# skipping the ~0.15 s import wins. Tests set it to 0 to force the pyarrow path.
SMALL_INPUT_BYTES = 8 << 20


def is_large(path: str | os.PathLike[str]) -> bool:
    """Whether a file (not ``-``, stdin) takes a large-input path: larger than the
    small-input reader's limit, or compressed (its size unknown until read)."""
    if str(path) == "-":
        return False
    size = _plain_size(path)
    if size is None:
        return os.fspath(path).endswith(".gz")
    return size > SMALL_INPUT_BYTES     # read when called: tests lower it


RUN_FIELDS = ("query_id", "iteration", "doc_id", "rank", "score", "run_id")
QRELS_FIELDS = ("query_id", "iteration", "doc_id", "relevance")

_RUN_EXPECTED = "6 whitespace-separated fields: qid iter docno rank score runid"
_QRELS_EXPECTED = "4 fields 'qid iter docno grade' (or 3 fields 'qid docno grade')"

# Grades are ranked and counted as 32-bit integers (trec_eval reads a C long; a grade of
# 10^23 is a broken file, not a relevance level).
GRADE_MIN, GRADE_MAX = -(2**31), 2**31 - 1
GRADE_EXPECTED = f"an integer grade between {GRADE_MIN} and {GRADE_MAX} in the last field"


# Longest id held as fixed-width bytes (an array of n x this many bytes); inputs with
# longer ones take the Arrow form.
MAX_ID_BYTES = 256


def as_bytes(values: list[str]) -> np.ndarray | None:
    """``values`` as a fixed-width bytes array (numpy ``S``), or None when that
    form cannot hold them exactly (a NUL byte, or an id longer than
    :data:`MAX_ID_BYTES`)."""
    encoded = [v.encode() for v in values]
    if any(len(e) > MAX_ID_BYTES or b"\x00" in e for e in encoded):
        return None
    return np.array(encoded, dtype=f"S{max(map(len, encoded), default=1) or 1}")


def decode(values: np.ndarray) -> list[str]:
    """A fixed-width bytes array back to ``str``."""
    return [v.decode() for v in values.tolist()]



_ARROW_TYPES = {"score": "float64", "relevance": "int64"}   # every other column: string


def to_arrow(columns: Columns) -> pa.Table:
    """An Arrow table of columns read by the small-input or checking path."""
    from relkit.metrics.readers._arrow import import_pyarrow

    arrow = import_pyarrow()

    def array(name: str, values: Any) -> pa.Array:
        kind = _ARROW_TYPES.get(name, "string")
        if kind == "string" and isinstance(values, np.ndarray):
            values = decode(values)
        return arrow.array(values, type=getattr(arrow, kind)())

    return arrow.table({f: array(f, v) for f, v in columns.items()})


def _id_columns(cols: Columns) -> Columns | pa.Table:
    """The checking parser's lists of ids as fixed-width bytes, as the small-input
    reader gives them (an Arrow table when an id does not fit that form)."""
    out: Columns = {}
    for name, values in cols.items():
        if isinstance(values, list):
            as_b = as_bytes(values)
            if as_b is None:
                return to_arrow(cols)
            values = as_b
        out[name] = values
    return out


def _parse_score(text: str, name: str, number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(name, number, "a numeric score in field 5", repr(text)) from None
    if math.isnan(value):
        raise FormatError(name, number, "a numeric score in field 5", "NaN") from None
    return value


EVAL_FIELDS = ("query_id", "doc_id", "score")


def _small_run(data: bytes, columns: tuple[str, ...]
               ) -> tuple[Columns, np.ndarray | None, str] | None:
    """The small-input path for a run (None: the checking parser decides)."""
    fields = _Fields.split(data, (6,))
    if fields is None:
        return None
    scores = fields.floats(4)
    if scores is None:
        return None
    cols: Columns = {}
    for f in columns:
        col = scores if f == "score" else fields.column(RUN_FIELDS.index(f), MAX_ID_BYTES)
        if col is None:
            return None
        cols[f] = col
    return cols, fields.lines, fields.last()


def read_run_columns(source: Source, columns: tuple[str, ...] = RUN_FIELDS
                     ) -> tuple[Columns | pa.Table, np.ndarray | None, str, str]:
    """Read a TREC run: its ``columns``, as :data:`Columns` (small inputs) or an
    Arrow table (large ones; strings and a float score).

    Returns the columns, the 1-based source line of each row (``None`` when row
    ``i`` is line ``i + 1``), the source name and the run id of the last line.
    """
    name = source_name(source)
    size = _plain_size(source)
    data: bytes | None = None
    types = {f: _ARROW_TYPES.get(f, "string") for f in RUN_FIELDS}
    if size is None or size <= SMALL_INPUT_BYTES:
        data = read_bytes(source)
        if len(data) <= SMALL_INPUT_BYTES:
            small = _small_run(data, columns)
            if small is not None:
                return small[0], small[1], name, small[2]
            return _checked_run(data, name, columns, arrow=False)
    path_or_data: bytes | str | os.PathLike[str]
    if data is None:
        path_or_data = source                      # type: ignore[assignment]  # a path
        head = _head(source)                       # type: ignore[arg-type]
    else:
        path_or_data, head = data, data[:65536]
    table = _fast_table(path_or_data, head, RUN_FIELDS, types, list(columns))
    if table is not None:
        import pyarrow.compute as pc

        if pc.any(pc.is_nan(table["score"])).as_py():
            table = None
    if table is not None:
        if table.num_rows == 0:
            raise FormatError(name, None, "at least one run line", "an empty file")
        last = (path_or_data.rstrip().rsplit(b"\n", 1)[-1] if isinstance(path_or_data, bytes)
                else _tail_line(path_or_data)).split()
        if len(last) >= 6:
            return table, None, name, last[5].decode()
    if data is None:
        data = read_bytes(source)
    return _checked_run(data, name, columns, arrow=True)


def _checked_run(data: bytes, name: str, columns: tuple[str, ...], *, arrow: bool
                 ) -> tuple[Columns | pa.Table, np.ndarray | None, str, str]:
    """The checking path for a run (``arrow``: return an Arrow table)."""
    cols: dict[str, list[Any]] = {f: [] for f in RUN_FIELDS}
    lines: list[int] = []
    for number, fields in content_lines(data, name):
        if len(fields) < 6:
            raise FormatError(name, number, _RUN_EXPECTED,
                              f"{len(fields)} field(s): {' '.join(fields)!r}")
        cols["query_id"].append(fields[0])
        cols["iteration"].append(fields[1])
        cols["doc_id"].append(fields[2])
        cols["rank"].append(fields[3])
        cols["score"].append(_parse_score(fields[4], name, number))
        cols["run_id"].append(fields[5])
        lines.append(number)
    if not lines:
        raise FormatError(name, None, "at least one run line", "no content lines")
    out: Columns = {f: (np.asarray(cols[f], dtype=np.float64) if f == "score" else cols[f])
                    for f in columns}
    return (to_arrow(out) if arrow else _id_columns(out)), np.asarray(lines, dtype=np.int64), \
        name, cols["run_id"][-1]


def read_run_table(source: Source, columns: tuple[str, ...] = RUN_FIELDS
                   ) -> tuple[pa.Table, np.ndarray | None, str, str]:
    """:func:`read_run_columns`, always as an Arrow table."""
    cols, lines, name, run_id = read_run_columns(source, columns)
    return (to_arrow(cols) if isinstance(cols, dict) else cols), lines, name, run_id


def _small_qrels(data: bytes) -> tuple[Columns, np.ndarray | None] | None:
    """The small-input path for qrels (None: the checking parser decides)."""
    fields = _Fields.split(data, (4, 3))
    if fields is None:
        return None
    width = fields.width
    grades = fields.ints(width - 1)
    if grades is None:
        return None
    qid, doc = fields.column(0, MAX_ID_BYTES), fields.column(width - 2, MAX_ID_BYTES)
    it = fields.column(1, MAX_ID_BYTES) if width == 4 else np.full(len(grades), b"0", dtype="S1")
    if qid is None or doc is None or it is None:
        return None
    return {"query_id": qid, "iteration": it, "doc_id": doc, "relevance": grades}, fields.lines


def read_qrels_columns(source: Source) -> tuple[Columns | pa.Table, np.ndarray | None, str]:
    """Read TREC qrels (4 fields, or the 3-field ``qid docid grade`` form), as
    :data:`Columns` (small inputs) or an Arrow table (large ones).

    Grades must be integers; negative grades mean "pooled but not judged".
    """
    name = source_name(source)
    size = _plain_size(source)
    types = {"query_id": "string", "iteration": "string", "doc_id": "string",
             "relevance": "int64"}
    data: bytes | None = None
    if size is not None and size > SMALL_INPUT_BYTES:
        table = _fast_table(source, _head(source), QRELS_FIELDS, types)  # type: ignore[arg-type]
        if table is not None:
            return table, None, name
    else:
        data = read_bytes(source)
        if len(data) <= SMALL_INPUT_BYTES:
            small = _small_qrels(data)
            if small is not None:
                return small[0], small[1], name
        else:
            table = _fast_table(data, data[:65536], QRELS_FIELDS, types)
            if table is not None:
                return table, None, name
    if data is None:
        data = read_bytes(source)
    cols: dict[str, list[Any]] = {f: [] for f in QRELS_FIELDS}
    lines: list[int] = []
    width: int | None = None
    for number, fields in content_lines(data, name):
        if width is None and len(fields) in (3, 4):
            width = len(fields)
        if len(fields) != width:
            expected = _QRELS_EXPECTED if width is None else (
                f"{width} fields like the first line of the file")
            raise FormatError(name, number, expected,
                              f"{len(fields)} field(s): {' '.join(fields)!r}")
        grade = fields[-1]
        try:
            value = int(grade)
        except ValueError:
            raise FormatError(name, number, "an integer grade in the last field",
                              repr(grade)) from None
        if not GRADE_MIN <= value <= GRADE_MAX:
            raise FormatError(name, number, GRADE_EXPECTED, repr(grade))
        cols["query_id"].append(fields[0])
        cols["iteration"].append(fields[1] if width == 4 else "0")
        cols["doc_id"].append(fields[-2])
        cols["relevance"].append(value)
        lines.append(number)
    out: Columns = {**cols, "relevance": np.asarray(cols["relevance"], dtype=np.int64)}
    arrays = to_arrow(out) if len(data) > SMALL_INPUT_BYTES else _id_columns(out)
    return arrays, np.asarray(lines, dtype=np.int64), name


def read_qrels_table(source: Source) -> tuple[pa.Table, np.ndarray | None, str]:
    """:func:`read_qrels_columns`, always as an Arrow table."""
    cols, lines, name = read_qrels_columns(source)
    return (to_arrow(cols) if isinstance(cols, dict) else cols), lines, name
