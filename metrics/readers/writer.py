"""Writing runs and qrels as TREC text: space-separated, one line per row.

A target is a path (``.gz`` is compressed) or an open text file, which is left
open. Reading is :mod:`relkit.metrics.readers.io`'s.
"""

from __future__ import annotations

import os
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd


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
