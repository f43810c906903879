"""Writing a file whole or not at all: through a file beside it, renamed over it.

A command that fails halfway (a full disk, an interrupt, a bad input met late) leaves
the old file, or none, never a part of the new one. Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def replaced(path: str | os.PathLike[str]) -> Iterator[Path]:
    """A temporary path beside ``path`` to write; renamed over ``path`` when the block
    ends without an exception, removed in any case.

    ``path`` that exists and is no regular file (``/dev/stdout``, a pipe) is yielded
    itself: renaming over it would replace it.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from relkit.metrics.core.atomic import replaced
    >>> target = pathlib.Path(tempfile.mkdtemp()) / "out.txt"
    >>> with replaced(target) as tmp:
    ...     _ = tmp.write_text("whole")
    >>> target.read_text(), sorted(p.name for p in target.parent.iterdir())
    ('whole', ['out.txt'])
    """
    path = Path(path)
    if path.exists() and not path.is_file():
        yield path
        return
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


def write_text(path: str | os.PathLike[str], text: str) -> None:
    """``text`` into ``path`` (UTF-8), whole or not at all (:func:`replaced`)."""
    with replaced(path) as tmp:
        tmp.write_text(text, encoding="utf-8")
