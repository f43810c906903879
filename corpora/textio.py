"""Opening a collection's text files: UTF-8, ``.gz`` transparently, never fatal on bytes.

Old test collections are not always valid UTF-8 (CACM has stray Latin-1 bytes), and a
document reader that dies on one byte in a 1 GB file helps nobody: undecodable bytes
become U+FFFD instead. Not silently: each replacement is counted (:func:`replaced`), so
a command that read a file can say how many of its bytes an assessor will not see as
they were (`relkit init` does).
"""

from __future__ import annotations

import codecs
import gzip
import io
import zlib
from pathlib import Path
from typing import IO, Any

_REPLACED = [0]     # undecodable byte sequences read as U+FFFD in this process, so far


def _replace(exc: UnicodeError) -> tuple[str, int]:
    """Python's "replace" error handler for decoding, counted."""
    if not isinstance(exc, UnicodeDecodeError):
        raise exc
    _REPLACED[0] += 1
    return "\ufffd", exc.end


codecs.register_error("relkit-replace", _replace)


def replaced() -> int:
    """How many undecodable byte sequences the files opened by :func:`open_text` have
    had read as U+FFFD so far in this process (a difference before and after reading
    one file is that file's count)."""
    return _REPLACED[0]


class _CheckedGzip(gzip.GzipFile):
    """A gzip stream whose damage (truncated, not gzip) is a FormatError naming the file.

    gzip raises EOFError for a truncated stream, which click takes for end of input and
    reports as "aborted"; the file is read lazily, so the check sits on every read.
    """

    def _checked(self, method: Any, *args: Any) -> Any:
        try:
            return method(*args)
        except (EOFError, gzip.BadGzipFile, zlib.error) as exc:
            from relkit.metrics.core.errors import FormatError

            raise FormatError(str(self.name), None, "a complete gzip stream",
                              str(exc) or type(exc).__name__) from None

    def read(self, size: int | None = -1) -> bytes:
        return bytes(self._checked(super().read, size))

    def read1(self, size: int = -1) -> bytes:
        return bytes(self._checked(super().read1, size))

    def readinto(self, b: Any) -> int:
        return int(self._checked(super().readinto, b))

    def peek(self, n: int) -> bytes:
        return bytes(self._checked(super().peek, n))


def open_text(path: str | Path, newline: str | None = None) -> IO[str]:
    """``path`` opened for reading text (gzip when it ends in ``.gz``)."""
    p = Path(path)
    try:
        if p.suffix == ".gz":
            return io.TextIOWrapper(_CheckedGzip(p, "rb"), encoding="utf-8",
                                    errors="relkit-replace", newline=newline)
        return open(p, encoding="utf-8", errors="relkit-replace", newline=newline)
    except OSError as exc:  # missing, a directory, unreadable: one line naming the file
        from relkit.metrics.core.errors import open_error

        raise open_error(p, exc) from None
