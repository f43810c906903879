"""The fast path for large inputs: pyarrow's multithreaded C++ CSV reader.

Used when every line has exactly the expected number of fields separated by one
space or one tab and there are no comment or blank lines (the common case).
:func:`_fast_table` returns None for anything else, and the caller
(:mod:`relkit.metrics.readers.io`) reads the input with the checking parser instead, so
results and errors never depend on the path. pyarrow is imported only here, when
a large input is read.
"""

from __future__ import annotations

import os
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.readers.sources import BOM

if TYPE_CHECKING:
    import pyarrow as pa

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
    import mmap

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


def _irregular_column(arr: pa.ChunkedArray, first_column: bool) -> bool:
    """Whether a string column holds an empty value, a value that is not UTF-8
    (or, for the first column, a value starting with '#'), read straight from the
    Arrow buffers.

    The reader is told not to check UTF-8 (``check_utf8=False``): for ASCII (the
    common case) one ``max`` over each data buffer settles it, which costs less than
    pyarrow's check of every value; a buffer with a byte above 0x7F is checked by
    pyarrow (``validate(full=True)``), so the same files pass as with its own check.
    """
    import pyarrow as pa

    for chunk in arr.chunks:
        if len(chunk) == 0:
            continue
        _, offs_buf, data_buf = chunk.buffers()
        offsets = np.frombuffer(offs_buf, dtype=np.int32, count=chunk.offset + len(chunk) + 1)
        offsets = offsets[chunk.offset:]
        starts = offsets[:-1]
        if np.any(offsets[1:] == starts):
            return True
        if data_buf is None:
            continue
        raw = np.frombuffer(data_buf, dtype=np.uint8)
        if first_column and np.any(raw[starts] == ord("#")):
            return True
        if len(raw) and int(raw.max()) > 0x7F:
            try:
                chunk.validate(full=True)
            except pa.ArrowInvalid:
                return True
    return False


def _head(path: str | os.PathLike[str]) -> bytes:
    """First 64 KiB of a file."""
    with open(path, "rb") as fh:
        return fh.read(65536)


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


def _arrow_owned(data: bytes) -> pa.Buffer:
    """A copy of ``data`` in memory Arrow allocated.

    pyarrow's reader threads may drop their last reference to the input after
    ``read_csv`` has returned. A buffer wrapping a Python object must take the GIL
    to be released, and a thread that asks for the GIL while the interpreter shuts
    down is ended in a way that aborts the process (SIGABRT). Arrow's own memory is
    released without Python.
    """
    import pyarrow as pa

    buf = pa.allocate_buffer(len(data))
    if data:
        np.frombuffer(buf, dtype=np.uint8)[:] = np.frombuffer(data, dtype=np.uint8)
    return buf


def fast_delimiter(data: bytes | str | os.PathLike[str], head: bytes, *,
                   scan: bool = True) -> str | None:
    """The delimiter pyarrow's reader may split ``data`` on (one space or one tab, as
    its first line shows), or None when the checking parser must read it (a comment
    first, a byte that is whitespace to trec_eval but not to pyarrow, a lone CR).
    ``scan=False``: the head only; the caller runs :func:`_regular` on the whole."""
    first = head.split(b"\n", 1)[0]
    if b"\t" in first and b" " not in first.strip():
        delimiter = "\t"
    elif b"\t" not in first:
        delimiter = " "
    else:
        return None
    if not head or head.lstrip()[:1] == b"#" or scan and not _regular(data, delimiter):
        return None
    return delimiter


def csv_options(pa: ModuleType, names: tuple[str, ...], types: dict[str, str], delimiter: str,
                ) -> dict[str, Any]:
    """The keyword arguments of pyarrow's CSV readers for the strict fast path: no
    quoting, no empty lines, no nulls, UTF-8 left to :func:`_irregular_column`."""
    import pyarrow.csv as pacsv

    return {
        "read_options": pacsv.ReadOptions(column_names=list(names), block_size=1 << 24),
        "parse_options": pacsv.ParseOptions(
            delimiter=delimiter,
            quote_char=False,
            double_quote=False,
            escape_char=False,
            ignore_empty_lines=False,
        ),
        "convert_options": pacsv.ConvertOptions(
            column_types={c: getattr(pa, t)() for c, t in types.items()},
            null_values=[],
            strings_can_be_null=False,
            quoted_strings_can_be_null=False,
            check_utf8=False,     # checked after parsing, ASCII by one max per buffer
        ),
    }


def irregular_table(table: pa.Table | pa.RecordBatch, names: tuple[str, ...]) -> bool:
    """Whether a parsed table needs the checking parser: an empty field (doubled or
    edge delimiter), a '#' id (a comment) or bytes that are not UTF-8 in any string
    column."""
    import pyarrow as pa

    for col in names:
        arr = table.column(col)
        if isinstance(arr, pa.Array):
            arr = pa.chunked_array([arr])
        if pa.types.is_string(arr.type) and _irregular_column(arr, col == "query_id"):
            return True
    return False


def _fast_table(
    data: bytes | str | os.PathLike[str], head: bytes, names: tuple[str, ...],
    types: dict[str, str], include: list[str] | None = None,
) -> pa.Table | None:
    """Parse with pyarrow, or return None when the strict fast path does not apply.

    ``types`` maps each column to ``"string"``, ``"float64"`` or ``"int64"``.
    """
    delimiter = fast_delimiter(data, head)
    if delimiter is None:
        return None
    from relkit.metrics.readers._arrow import import_pyarrow

    pa = import_pyarrow()
    import pyarrow.csv as pacsv

    src = pa.BufferReader(_arrow_owned(data)) if isinstance(data, bytes) else os.fspath(data)
    try:
        table = pacsv.read_csv(src, **csv_options(pa, names, types, delimiter))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
        return None
    # Every column is checked, then only the requested ones are kept.
    if irregular_table(table, names):
        return None
    return table.select(include) if include is not None else table
