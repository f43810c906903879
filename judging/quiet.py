"""``--quiet``: stderr is a sink while a command runs (errors are still shown).

Standard library only: the conventions every command follows
(:mod:`relkit.judging.conventions`) and the CLI root's fast ``relkit eval``
(:mod:`relkit.judging.cli`, without typer) both use it.
"""

from __future__ import annotations

import sys
from typing import IO, Any


class _Sink:
    """stderr under ``--quiet``: swallows diagnostics and progress (the root restores it).

    ``real`` is the stream it stands for: :func:`error_stream` writes an error there.
    """

    def __init__(self, real: Any) -> None:
        self.real = real

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False  # so no progress bar is drawn


def go_quiet(value: bool) -> None:
    """``--quiet``: stderr is a sink until the command ends (errors are printed after)."""
    if value and not isinstance(sys.stderr, _Sink):
        sys.stderr = _Sink(sys.stderr)  # type: ignore[assignment]


def error_stream() -> IO[str]:
    """Where a command writes an error it reports itself: stderr, even under ``--quiet``.

    (Errors raised to the CLI root are printed after the command, never quietly.)
    """
    err = sys.stderr
    return err.real if isinstance(err, _Sink) else err
