"""Opening a collection's text files: UTF-8, ``.gz`` transparently, never fatal on bytes.

Old test collections are not always valid UTF-8 (CACM has stray Latin-1 bytes), and a
document reader that dies on one byte in a 1 GB file helps nobody: undecodable bytes
become U+FFFD instead.
"""

from __future__ import annotations

from pathlib import Path
from typing import IO


def open_text(path: str | Path, newline: str | None = None) -> IO[str]:
    """``path`` opened for reading text (gzip when it ends in ``.gz``)."""
    p = Path(path)
    try:
        if p.suffix == ".gz":
            import gzip

            return gzip.open(p, "rt", encoding="utf-8", errors="replace", newline=newline)
        return open(p, encoding="utf-8", errors="replace", newline=newline)
    except OSError as exc:  # missing, a directory, unreadable: one line naming the file
        from relkit.metrics.core.errors import open_error

        raise open_error(p, exc) from None
