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
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Iterator
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, Union

import numpy as np

from relkit.metrics.errors import FormatError

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]

# Columns of a small input read without pyarrow, all numpy arrays: ids as fixed-width
# bytes (dtype ``S``; UTF-8, no NUL), the score float64, the grade int64.
Columns = dict[str, Any]

# Inputs up to this size take the small-input path (no pyarrow). Around 10 MB the
# pure-Python split and pyarrow's reader plus its import cost about the same; below,
# skipping the ~0.15 s import wins. Tests set it to 0 to force the pyarrow path.
SMALL_INPUT_BYTES = 8 << 20

RUN_FIELDS = ("query_id", "iteration", "doc_id", "rank", "score", "run_id")
QRELS_FIELDS = ("query_id", "iteration", "doc_id", "relevance")

_RUN_EXPECTED = "6 whitespace-separated fields: qid iter docno rank score runid"
_QRELS_EXPECTED = "4 fields 'qid iter docno grade' (or 3 fields 'qid docno grade')"

# Grades are ranked and counted as 32-bit integers (trec_eval reads a C long; a grade of
# 10^23 is a broken file, not a relevance level).
GRADE_MIN, GRADE_MAX = -(2**31), 2**31 - 1
GRADE_EXPECTED = f"an integer grade between {GRADE_MIN} and {GRADE_MAX} in the last field"


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
        import gzip
        import zlib

        try:
            data = gzip.decompress(data)
        except (EOFError, OSError, zlib.error) as exc:
            # gzip's magic bytes but no valid stream: truncated download, or not gzip.
            raise FormatError(source_name(source), None, "a complete gzip stream "
                              "(the file starts with gzip's magic bytes)",
                              f"a broken one ({exc})") from None
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


def _plain_size(source: Source) -> int | None:
    """Size of ``source`` when it is an uncompressed file path, else None."""
    if _is_text(source) or not isinstance(source, (str, os.PathLike)):
        return None
    try:
        with open(source, "rb") as fh:
            if fh.read(2) == b"\x1f\x8b":
                return None
            return os.fstat(fh.fileno()).st_size
    except OSError:
        return None        # _read_bytes raises the error naming the file


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


def _fast_table(
    data: bytes | str | os.PathLike[str], head: bytes, names: tuple[str, ...],
    types: dict[str, str], include: list[str] | None = None,
) -> pa.Table | None:
    """Parse with pyarrow, or return None when the strict fast path does not apply.

    ``types`` maps each column to ``"string"``, ``"float64"`` or ``"int64"``.
    """
    first = head.split(b"\n", 1)[0]
    if b"\t" in first and b" " not in first.strip():
        delimiter = "\t"
    elif b"\t" not in first:
        delimiter = " "
    else:
        return None
    if not head or head.lstrip()[:1] == b"#" or not _regular(data, delimiter):
        return None
    from relkit.metrics._arrow import import_pyarrow

    pa = import_pyarrow()
    import pyarrow.csv as pacsv

    src = pa.BufferReader(_arrow_owned(data)) if isinstance(data, bytes) else os.fspath(data)
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
                column_types={c: getattr(pa, t)() for c, t in types.items()},
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


# What str.split() splits on besides ASCII whitespace (every c with c.isspace()):
# text containing one of these is left to the checking parser.
_OTHER_SPACE = "[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
# 10**k is exact in float64 up to k = 22
_POW10 = 10.0 ** np.arange(23)
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


class _Fields:
    """The fields of a small input whose every content line has the same number
    of fields (see :meth:`split`), taken out one column at a time as numpy
    arrays: ids as fixed-width bytes (``S``), numbers as float64/int64. No
    Python object is made per line.

    Attributes
    ----------
    width : fields per line.
    lines : 1-based line number of each content line, None when every line has
        content.
    """

    def __init__(self, raw: np.ndarray, width: int, lines: np.ndarray | None,
                 bounds: Any) -> None:
        self.raw, self.width, self.lines = raw, width, lines
        self._bounds = bounds          # field i -> (first byte, byte after), per line

    @classmethod
    def split(cls, data: bytes, widths: tuple[int, ...]) -> _Fields | None:
        """The fields of ``data`` when every content line has the same number of
        fields and that number is one of ``widths``; else None (the checking
        parser decides, and names the line).

        A line break is ``\n`` or ``\r\n``; a lone ``\r``, a BOM, a NUL byte, a
        comment line, invalid UTF-8 or a space ``str.split`` knows but trec_eval
        does not all give None.
        """
        if not data or data.startswith(BOM) or b"\x00" in data:
            return None
        if not data.isascii():
            try:
                text = data.decode("utf-8")
            except UnicodeDecodeError:
                return None
            if re.search(_OTHER_SPACE, text):       # compiled only for non-ASCII input
                return None
        elif any(c in data for c in (b"\x1c", b"\x1d", b"\x1e", b"\x1f")):
            return None
        raw = np.frombuffer(data, dtype=np.uint8)
        if not any(c in data for c in (b"\r", b"\x0b", b"\x0c")):
            for delimiter, other in ((b" ", b"\t"), (b"\t", b" ")):
                if other not in data:
                    fields = cls._single(data, raw, widths, delimiter[0])
                    if fields is not None:
                        return fields
        if b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
            return None
        return cls._general(data, raw, widths)

    @classmethod
    def _single(cls, data: bytes, raw: np.ndarray, widths: tuple[int, ...],
                delimiter: int) -> _Fields | None:
        """Lines of non-empty fields separated by one ``delimiter``, the only
        whitespace besides line feeds; None for anything else (blank or comment
        lines, empty fields: :meth:`_general` decides)."""
        seps = np.flatnonzero(raw == delimiter)
        ends = np.flatnonzero(raw == 10)
        if not data.endswith(b"\n"):
            ends = np.append(ends, len(raw))
        per_line = np.diff(np.searchsorted(seps, ends), prepend=0)
        width = int(per_line[0]) + 1
        if width not in widths or np.any(per_line != width - 1):
            return None
        grid = seps.reshape(len(ends), width - 1)
        starts = np.concatenate(([0], ends[:-1] + 1))

        def bounds(i: int) -> tuple[np.ndarray, np.ndarray]:
            a = starts if i == 0 else grid[:, i - 1] + 1
            b = ends if i == width - 1 else grid[:, i]
            return a, b

        # an empty field: a doubled delimiter, or one at the start or end of a line
        if width > 1 and (np.any(grid[:, 0] <= starts) or np.any(ends <= grid[:, -1] + 1)
                          or np.any(np.diff(grid, axis=1) <= 1)):
            return None
        if np.any(raw[starts] == ord("#")):          # a comment line
            return None
        return cls(raw, width, None, bounds)

    @classmethod
    def _general(cls, data: bytes, raw: np.ndarray, widths: tuple[int, ...]
                 ) -> _Fields | None:
        """Any ASCII whitespace between fields, blank lines allowed."""
        space = (raw == 32) | ((raw >= 9) & (raw <= 13))
        edge = space[1:] != space[:-1]
        starts = np.flatnonzero(edge & space[:-1]) + 1     # first byte of a field
        ends = np.flatnonzero(edge & ~space[:-1]) + 1      # the byte after one
        if not space[0]:
            starts = np.concatenate(([0], starts))
        if not space[-1]:
            ends = np.append(ends, len(raw))
        breaks = np.flatnonzero(raw == 10)
        if not data.endswith(b"\n"):
            breaks = np.append(breaks, len(raw))
        before = np.searchsorted(starts, breaks)          # fields before each line end
        per_line = np.diff(before, prepend=0)
        content = per_line > 0
        counts = per_line[content]
        if not len(counts) or counts[0] not in widths or np.any(counts != counts[0]):
            return None
        if np.any(raw[starts[(before - per_line)[content]]] == ord("#")):
            return None                                    # a comment line
        width = int(counts[0])
        lines = None if content.all() else (np.flatnonzero(content) + 1).astype(np.int64)

        def bounds(i: int) -> tuple[np.ndarray, np.ndarray]:
            return starts[i::width], ends[i::width]

        return cls(raw, width, lines, bounds)

    def __len__(self) -> int:
        return len(self._bounds(0)[0])

    def _window(self, i: int, limit: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """Field ``i`` of each line as a zero-padded row of ``min(longest, limit)``
        bytes, with the start and length of each field."""
        a, b = self._bounds(i)
        length = b - a
        w = max(min(int(length.max()), limit), 1)
        raw = self.raw
        if int(length.min()) == w and int(a[-1]) + w <= len(raw):
            # every field equally long (common for docnos): no padding to clear
            return np.lib.stride_tricks.sliding_window_view(raw, w)[a], a, length
        if len(raw) < w:
            raw = np.concatenate((raw, np.zeros(w, np.uint8)))
        view = np.lib.stride_tricks.sliding_window_view(raw, w)
        rows = view[np.minimum(a, len(raw) - w)]     # a copy, one row per line
        tail = np.flatnonzero(a > len(raw) - w)       # fields near the end of the input
        for r in tail.tolist():
            piece = raw[a[r]:a[r] + w]
            rows[r] = np.concatenate((piece, np.zeros(w - len(piece), np.uint8)))
        rows[np.arange(w)[None, :] >= length[:, None]] = 0
        return rows, a, length

    def _token(self, a: int, length: int) -> str:
        return self.raw[a:a + length].tobytes().decode()

    def column(self, i: int) -> np.ndarray | None:
        """Field ``i`` as fixed-width bytes (None if one is longer than
        :data:`MAX_ID_BYTES`)."""
        a, b = self._bounds(i)
        if len(a) and int((b - a).max()) > MAX_ID_BYTES:
            return None
        rows, _, _ = self._window(i, MAX_ID_BYTES)
        return rows.view(f"S{rows.shape[1]}").ravel()

    def last(self) -> str:
        """The last field of the input."""
        a, b = self._bounds(self.width - 1)
        return self._token(int(a[-1]), int(b[-1] - a[-1]))

    def _decimals(self, i: int, point_ok: bool
                  ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """The plain decimals of field ``i``: digits as an integer, digits after the
        point, sign, and which fields are plain (see :meth:`floats`)."""
        rows, a, length = self._window(i, 24)
        w = rows.shape[1]
        inside = np.arange(w)[None, :] < length[:, None]
        d = rows - np.uint8(48)                          # digits -> 0..9 (uint8 wraps)
        digit = d < 10                                   # (padding is 0: not a digit)
        point = rows == 46
        signed = (rows[:, 0] == 45) | (rows[:, 0] == 43)
        known = digit | point | ~inside
        known[:, 0] |= signed
        ndig = np.count_nonzero(digit, axis=1)
        npoint = np.count_nonzero(point, axis=1)
        plain = known.all(axis=1) & (ndig >= 1) & (ndig <= 15) & (length <= w)
        plain &= npoint <= (1 if point_ok else 0)
        # every character after the point of a plain decimal is a digit
        decimals = np.where(npoint > 0, length - 1 - np.argmax(point, axis=1), 0)
        m = np.zeros(len(a), dtype=np.int64)
        for j in range(w):
            m = np.where(digit[:, j], m * 10 + d[:, j], m)
        negative = rows[:, 0] == 45
        return m, decimals, negative, plain & (decimals <= 22), a

    def floats(self, i: int) -> np.ndarray | None:
        """Field ``i`` as float64, exactly as ``float()`` converts it; None when a
        field is not a number or is NaN.

        Plain decimals (optional sign, digits, one optional point, at most 15
        digits and 22 decimals) are converted in numpy: the digits make an integer
        below 2**53 and 10**k is exact, so one IEEE division gives the correctly
        rounded value, which is what ``float()`` returns. The rest (exponents,
        longer numbers, ``inf``) go through ``float()`` itself.
        """
        m, decimals, negative, plain, a = self._decimals(i, point_ok=True)
        value = m / _POW10[np.minimum(decimals, 22)]
        out = np.where(negative, -value, value)
        if not plain.all():
            _, b = self._bounds(i)
            for r in np.flatnonzero(~plain).tolist():
                try:
                    out[r] = float(self._token(int(a[r]), int(b[r] - a[r])))
                except ValueError:
                    return None
        if np.isnan(out).any():
            return None
        return out  # type: ignore[no-any-return]  # numpy view of pyarrow buffers

    def ints(self, i: int) -> np.ndarray | None:
        """Field ``i`` as int64, as ``int()`` converts it; None if one is not an
        integer (or does not fit)."""
        m, _, negative, plain, a = self._decimals(i, point_ok=False)
        out = np.where(negative, -m, m)
        if not plain.all():
            _, b = self._bounds(i)
            for r in np.flatnonzero(~plain).tolist():
                try:
                    out[r] = int(self._token(int(a[r]), int(b[r] - a[r])))
                except (ValueError, OverflowError):
                    return None
        return out


_ARROW_TYPES = {"score": "float64", "relevance": "int64"}   # every other column: string


def to_arrow(columns: Columns) -> pa.Table:
    """An Arrow table of columns read by the small-input or checking path."""
    from relkit.metrics._arrow import import_pyarrow

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
        col = scores if f == "score" else fields.column(RUN_FIELDS.index(f))
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
        data = _read_bytes(source)
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
        data = _read_bytes(source)
    return _checked_run(data, name, columns, arrow=True)


def _checked_run(data: bytes, name: str, columns: tuple[str, ...], *, arrow: bool
                 ) -> tuple[Columns | pa.Table, np.ndarray | None, str, str]:
    """The checking path for a run (``arrow``: return an Arrow table)."""
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
    qid, doc = fields.column(0), fields.column(width - 2)
    it = fields.column(1) if width == 4 else np.full(len(grades), b"0", dtype="S1")
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
        data = _read_bytes(source)
        if len(data) <= SMALL_INPUT_BYTES:
            small = _small_qrels(data)
            if small is not None:
                return small[0], small[1], name
        else:
            table = _fast_table(data, data[:65536], QRELS_FIELDS, types)
            if table is not None:
                return table, None, name
    if data is None:
        data = _read_bytes(source)
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


def _open_out(target: str | os.PathLike[str] | IO[str]) -> tuple[IO[str], bool]:
    if isinstance(target, (str, os.PathLike)):
        path = os.fspath(target)
        if path.endswith(".gz"):
            import gzip

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
