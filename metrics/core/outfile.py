"""An output file named on the command line (``-o``), opened or refused in one line.

Standard library only, like the rest of :mod:`relkit.metrics.core`: library code that
writes a file the user named (``relkit pool -o``'s work) opens it here, without the
CLI's modules.
"""

from __future__ import annotations

from typing import IO

from relkit.metrics.core.errors import InputError, check_output


def open_output(path: object, option: str = "-o") -> IO[str]:
    """``path`` opened for writing text, or :class:`InputError` saying why it cannot be
    (a directory, a missing parent, no permission), naming ``option``."""
    import os

    check_output(path, option)
    p: str = os.fspath(path)  # type: ignore[call-overload]
    try:
        return open(p, "w", encoding="utf-8")
    except OSError as exc:
        raise InputError(f"{option} {path}: cannot write it ({exc.strerror or exc})") from None
