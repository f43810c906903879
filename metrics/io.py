"""Readers and writers for TREC run and qrels files.

A source is a path (``str`` or ``os.PathLike``; ``.gz`` is decompressed), an
open file (text or binary), or literal text (a ``str`` containing a newline).

Reading has two paths with one contract:

* a fast path: pyarrow's multithreaded C++ CSV reader, used when every line has
  exactly the expected number of fields separated by one space or one tab and
  there are no comment or blank lines (the common case for large files);
* a checking path: a line-by-line parser that accepts any whitespace, skips
  blank and ``#`` comment lines, ignores extra run fields (as trec_eval does),
  and raises :class:`~relkit.metrics.errors.FormatError` naming ``file:line``.

Whenever the fast path meets anything it does not accept, the checking path
reads the file again, so the result and the errors never depend on the path.
"""

from __future__ import annotations

import gzip
import math
import mmap
import os
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Union

import numpy as np
import pyarrow as pa
import pyarrow.compute  # noqa: F401  (pa.compute below)
import pyarrow.csv as pacsv

from relkit.metrics.errors import FormatError

if TYPE_CHECKING:
    import pandas as pd

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]

RUN_FIELDS = ("query_id", "iteration", "doc_id", "rank", "score", "run_id")
QRELS_FIELDS = ("query_id", "iteration", "doc_id", "relevance")

_RUN_EXPECTED = "6 whitespace-separated fields: qid iter docno rank score runid"
_QRELS_EXPECTED = "4 fields 'qid iter docno grade' (or 3 fields 'qid docno grade')"


def _is_text(source: object) -> bool:
    return isinstance(source, str) and ("\n" in source or "\r" in source)


def source_name(source: Source) -> str:
    """A short human name for ``source``, used in error messages."""
    if _is_text(source):
        return "<text>"
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def _read_bytes(source: Source) -> bytes:
    """Whole content of ``source`` as bytes, decompressing gzip."""
    if _is_text(source):
        assert isinstance(source, str)
        return source.encode()
    if isinstance(source, (str, os.PathLike)):
        path = Path(source)
        try:
            data = path.read_bytes()
        except FileNotFoundError:
            raise FormatError(str(path), None, "an existing file", "no such file") from None
        except IsADirectoryError:
            raise FormatError(str(path), None, "a file", "a directory") from None
    else:
        raw: Any = source.read()
        data = raw.encode() if isinstance(raw, str) else bytes(raw)
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return data


BOM = b"\xef\xbb\xbf"


def _lines(data: bytes, name: str) -> Iterator[tuple[int, list[str]]]:
    """Yield ``(line_number, fields)`` of content lines (not blank, not comment).

    Fields are split on ASCII whitespace only, as trec_eval's C parser does:
    a no-break space or other Unicode space is part of a field.
    """
    if data.startswith(BOM):
        data = data[len(BOM):]
    for number, raw in enumerate(data.splitlines(), start=1):
        parts = raw.split()                  # bytes.split: ASCII whitespace only
        if not parts or parts[0].startswith(b"#"):
            continue
        try:
            yield number, [p.decode("utf-8") for p in parts]
        except UnicodeDecodeError as exc:
            raise FormatError(name, number, "UTF-8 text",
                              f"undecodable byte {exc.object[exc.start]:#04x}") from None


# Bytes that may not appear in a file the fast parser reads with ``delimiter``:
# other ASCII whitespace would be a separator to trec_eval but part of a field
# to pyarrow. (Empty fields, from doubled or edge delimiters, are caught after
# parsing: pyarrow already insists on the exact number of fields per line.)
_FOREIGN = {" ": (b"\t", b"\v", b"\f"), "\t": (b" ", b"\v", b"\f")}


def _regular(data: bytes | str | os.PathLike[str], delimiter: str) -> bool:
    """True when no byte in ``data`` needs the checking parser (single-byte
    scans, memchr-fast; CR pairs are only counted when a CR is present)."""

    def ok(block: bytes) -> bool:
        if any(b in block for b in _FOREIGN[delimiter]):
            return False
        return b"\r" not in block or block.count(b"\r") == block.count(b"\r\n")

    if isinstance(data, bytes):
        return not data.startswith(BOM) and ok(data)
    with open(data, "rb") as fh:
        if os.fstat(fh.fileno()).st_size == 0:
            return True
        with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as view:
            # mmap.find is memchr-fast and copies nothing
            if view[:3] == BOM or any(view.find(b) >= 0 for b in _FOREIGN[delimiter]):
                return False
            if view.find(b"\r") < 0:
                return True
            return bool(ok(view[:]))   # rare: CR present, count the pairs


def _empty_or_comment(arr: pa.ChunkedArray, first_column: bool) -> bool:
    """Whether a string column holds an empty value (or, for the first column,
    a value starting with '#'), read straight from the Arrow buffers."""
    for chunk in arr.chunks:
        if len(chunk) == 0:
            continue
        _, offs_buf, data_buf = chunk.buffers()
        offsets = np.frombuffer(offs_buf, dtype=np.int32, count=chunk.offset + len(chunk) + 1)
        offsets = offsets[chunk.offset:]
        starts = offsets[:-1]
        if np.any(offsets[1:] == starts):
            return True
        if first_column and data_buf is not None:
            raw = np.frombuffer(data_buf, dtype=np.uint8)
            if np.any(raw[starts] == ord("#")):
                return True
    return False


def _head(source: Source) -> bytes | None:
    """First 64 KiB of an uncompressed file path, else None (read it whole)."""
    if _is_text(source) or not isinstance(source, (str, os.PathLike)):
        return None
    try:
        with open(source, "rb") as fh:
            head = fh.read(65536)
    except OSError:
        return None
    return None if head[:2] == b"\x1f\x8b" else head


def _tail_line(path: str | os.PathLike[str]) -> bytes:
    """Last non-blank line of a file, read from its end."""
    with open(path, "rb") as fh:
        fh.seek(0, os.SEEK_END)
        size = fh.tell()
        block = 4096
        while True:
            fh.seek(max(0, size - block))
            chunk = fh.read(block).rstrip()
            if b"\n" in chunk or block >= size:
                return chunk.rsplit(b"\n", 1)[-1]
            block *= 4


def _fast_table(
    data: bytes | str | os.PathLike[str], head: bytes, names: tuple[str, ...],
    types: dict[str, pa.DataType], include: list[str] | None = None,
) -> pa.Table | None:
    """Parse with pyarrow, or return None when the strict fast path does not apply."""
    first = head.split(b"\n", 1)[0]
    if b"\t" in first and b" " not in first.strip():
        delimiter = "\t"
    elif b"\t" not in first:
        delimiter = " "
    else:
        return None
    if not head or head.lstrip()[:1] == b"#" or not _regular(data, delimiter):
        return None
    src = pa.BufferReader(data) if isinstance(data, bytes) else os.fspath(data)
    try:
        table = pacsv.read_csv(
            src,
            read_options=pacsv.ReadOptions(column_names=list(names), block_size=1 << 24),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter,
                quote_char=False,
                double_quote=False,
                escape_char=False,
                ignore_empty_lines=False,
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=types,
                null_values=[],
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    # An empty field (doubled or edge delimiter) makes a line malformed; so do
    # '#' ids (comments) -- the checking parser decides those. Every column is
    # checked, then only the requested ones are kept.
    for col in names:
        if pa.types.is_string(table[col].type) and _empty_or_comment(
                table[col], col == "query_id"):
            return None
    return table.select(include) if include is not None else table


_ID = pa.string()


def _parse_score(text: str, name: str, number: int) -> float:
    try:
        value = float(text)
    except ValueError:
        raise FormatError(name, number, "a numeric score in field 5", repr(text)) from None
    if math.isnan(value):
        raise FormatError(name, number, "a numeric score in field 5", "NaN") from None
    return value


EVAL_FIELDS = ("query_id", "doc_id", "score")


def read_run_table(source: Source, columns: tuple[str, ...] = RUN_FIELDS
                   ) -> tuple[pa.Table, np.ndarray | None, str, str]:
    """Read a TREC run into an Arrow table of ``columns`` (strings and a float score).

    Returns the table, the 1-based source line of each row (``None`` when row
    ``i`` is line ``i + 1``), the source name and the run id of the last line.
    """
    name = source_name(source)
    head = _head(source)
    data: bytes | str | os.PathLike[str]
    if head is None:
        data = _read_bytes(source)
        head = data[:65536]
    else:
        data = source  # type: ignore[assignment]  # a path: let pyarrow read it
    types = {f: (pa.float64() if f == "score" else _ID) for f in RUN_FIELDS}
    table = _fast_table(data, head, RUN_FIELDS, types, list(columns))
    if table is not None and pa.compute.any(pa.compute.is_nan(table["score"])).as_py():
        table = None
    if table is not None:
        if table.num_rows == 0:
            raise FormatError(name, None, "at least one run line", "an empty file")
        last = (data.rstrip().rsplit(b"\n", 1)[-1] if isinstance(data, bytes)
                else _tail_line(data)).split()
        if len(last) >= 6:
            return table, None, name, last[5].decode()
    if not isinstance(data, bytes):
        data = _read_bytes(source)
    cols: dict[str, list[Any]] = {f: [] for f in RUN_FIELDS}
    lines: list[int] = []
    for number, fields in _lines(data, name):
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
    table = pa.table({f: pa.array(cols[f], type=types[f]) for f in columns})
    return table, np.asarray(lines, dtype=np.int64), name, cols["run_id"][-1]


def read_qrels_table(source: Source) -> tuple[pa.Table, np.ndarray | None, str]:
    """Read TREC qrels (4 fields, or the 3-field ``qid docid grade`` form).

    Grades must be integers; negative grades mean "pooled but not judged".
    """
    name = source_name(source)
    data = _read_bytes(source)
    types = {"query_id": _ID, "iteration": _ID, "doc_id": _ID, "relevance": pa.int64()}
    table = _fast_table(data, data[:65536], QRELS_FIELDS, types)
    if table is not None:
        return table, None, name
    cols: dict[str, list[Any]] = {f: [] for f in QRELS_FIELDS}
    lines: list[int] = []
    width: int | None = None
    for number, fields in _lines(data, name):
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
        cols["query_id"].append(fields[0])
        cols["iteration"].append(fields[1] if width == 4 else "0")
        cols["doc_id"].append(fields[-2])
        cols["relevance"].append(value)
        lines.append(number)
    table = pa.table({
        "query_id": pa.array(cols["query_id"], pa.string()),
        "iteration": pa.array(cols["iteration"], pa.string()),
        "doc_id": pa.array(cols["doc_id"], pa.string()),
        "relevance": pa.array(cols["relevance"], pa.int64()),
    })
    return table, np.asarray(lines, dtype=np.int64), name


def _open_out(target: str | os.PathLike[str] | IO[str]) -> tuple[IO[str], bool]:
    if isinstance(target, (str, os.PathLike)):
        path = os.fspath(target)
        if path.endswith(".gz"):
            return gzip.open(path, "wt", encoding="utf-8"), True
        return open(path, "w", encoding="utf-8"), True
    return target, False


def write_frame(frame: pd.DataFrame, columns: tuple[str, ...],
                target: str | os.PathLike[str] | IO[str]) -> None:
    """Write ``columns`` of ``frame`` space-separated, one line per row."""
    out, close = _open_out(target)
    try:
        cols = [frame[c].astype(str).tolist() for c in columns]
        for row in zip(*cols, strict=True):
            out.write(" ".join(row))
            out.write("\n")
    finally:
        if close:
            out.close()
