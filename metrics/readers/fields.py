"""The small-input path's splitter: every field of a TREC text as numpy columns.

For inputs up to :data:`relkit.metrics.readers.io.SMALL_INPUT_BYTES` the fields of every
line are found in one vectorised numpy pass (two ``flatnonzero`` calls when they
are separated by exactly one space or tab); ids are taken straight from the bytes
as fixed-width byte strings (numpy ``S``), numbers parsed in numpy exactly as
``float()`` and ``int()`` parse them. No Python object is made per line, and
pyarrow is never imported. Anything irregular gives None, and the checking parser
decides (see :mod:`relkit.metrics.readers.io`).
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np

from relkit.metrics.readers.sources import BOM

# What str.split() splits on besides ASCII whitespace (every c with c.isspace()):
# text containing one of these is left to the checking parser.
_OTHER_SPACE = "[\x1c-\x1f\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]"
# 10**k is exact in float64 up to k = 22
_POW10 = 10.0 ** np.arange(23)


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

    def column(self, i: int, limit: int) -> np.ndarray | None:
        """Field ``i`` as fixed-width bytes (None if one is longer than ``limit``,
        the readers' :data:`~relkit.metrics.readers.io.MAX_ID_BYTES`, looked up when they
        read so that it stays one setting)."""
        a, b = self._bounds(i)
        if len(a) and int((b - a).max()) > limit:
            return None
        rows, _, _ = self._window(i, limit)
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
