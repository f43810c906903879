"""Sources of TREC text: what a reader is given, as bytes, and its content lines.

A source is a path (``str`` or ``os.PathLike``; ``.gz`` is decompressed), an
open file (text or binary), or literal text (a ``str`` containing a newline).
Every reader of a line-based format (runs, qrels, subtopic qrels, prefs, jg)
takes one, reads it here once, and names it in its errors with
:func:`source_name`; :func:`content_lines` is the checking path's splitter, the one that
names ``file:line`` (see :mod:`relkit.metrics.readers.io`).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO, Any, Union

from relkit.metrics.errors import FormatError

Source = Union[str, "os.PathLike[str]", IO[str], IO[bytes]]

BOM = b"\xef\xbb\xbf"


def _is_text(source: object) -> bool:
    return isinstance(source, str) and ("\n" in source or "\r" in source)


def source_name(source: Source) -> str:
    """A short human name for ``source``, used in error messages."""
    if _is_text(source):
        return "<text>"
    if isinstance(source, (str, os.PathLike)):
        return os.fspath(source)
    return str(getattr(source, "name", "<stream>"))


def path_text(path: str | os.PathLike[str]) -> str:
    """``str(pathlib.Path(path))`` on POSIX, without importing pathlib.

    pathlib brings urllib.parse and ipaddress along: about 2.5 ms of a 0.1 s
    ``relkit eval``, which needs only the file name as pathlib spells it (``./run``
    is ``run``, ``a//b/`` is ``a/b``; ``..`` stays), to name a file as before.
    tests/test_eval_argv.py checks it against pathlib on generated paths.

    >>> path_text("./runs//bm25.txt/")
    'runs/bm25.txt'
    """
    text = os.fspath(path)
    root = "//" if text[:2] == "//" and text[2:3] != "/" else "/" if text[:1] == "/" else ""
    return root + "/".join(p for p in text.split("/") if p and p != ".") or "."


class FileName(os.PathLike[str]):
    """A file's name as the user typed it, as :func:`path_text` spells it: a path
    (``os.PathLike``), so that no reader takes it for inline text (a file name may hold
    a newline; a ``str`` that does is read as TREC lines, :func:`_is_text`), and it
    prints as its text. What ``relkit eval`` passes where it passed a ``pathlib.Path``.
    """

    __slots__ = ("text",)

    def __init__(self, path: str | os.PathLike[str]) -> None:
        self.text = path_text(path)

    def __fspath__(self) -> str:
        return self.text

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"FileName({self.text!r})"


def read_bytes(source: Source) -> bytes:
    """Whole content of ``source`` as bytes, decompressing gzip."""
    if _is_text(source):
        assert isinstance(source, str)
        return source.encode()
    if isinstance(source, (str, os.PathLike)):
        path = path_text(source)
        try:
            with open(path, "rb") as fh:
                data = fh.read()
        except FileNotFoundError:
            raise FormatError(path, None, "an existing file", "no such file") from None
        except IsADirectoryError:
            raise FormatError(path, None, "a file", "a directory") from None
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
        return None        # read_bytes raises the error naming the file


def content_lines(data: bytes, name: str) -> Iterator[tuple[int, list[str]]]:
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
