"""The error base of every layer, and the errors of reading and evaluating.

Library code raises these; only the CLI prints them (one line on stderr). Every
layer's own errors (``PoolingError``, ``StoreError``...) subclass :class:`RelkitError`,
so the CLI catches them all in one place.
They subclass ``ValueError`` so that callers who do not know relkit can still
catch them generically (as ``pandas.errors`` does).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import os


class RelkitError(ValueError):
    """Base class of every relkit domain error."""


class FormatError(RelkitError):
    """A line of an input file does not have the expected form.

    Parameters
    ----------
    source
        File name (or ``"<text>"`` / ``"<stream>"``) the line came from.
    line
        1-based line number in that source.
    expected
        What the reader expected, e.g. ``"6 fields: qid iter docno rank score runid"``.
    found
        What it found instead (quoted excerpt of the line).
    """

    def __init__(self, source: str, line: int | None, expected: str, found: str) -> None:
        self.source = source
        self.line = line
        self.expected = expected
        self.found = found
        where = f"{source}:{line}" if line is not None else source
        super().__init__(f"{where}: expected {expected}; found {found}")


class DuplicateDocumentError(RelkitError):
    """The same document appears twice for one topic (run or qrels)."""

    def __init__(self, source: str, line: int | None, query_id: str, doc_id: str) -> None:
        self.source = source
        self.line = line
        self.query_id = query_id
        self.doc_id = doc_id
        where = f"{source}:{line}" if line is not None else source
        super().__init__(
            f"{where}: expected each document at most once per topic; "
            f"found document {doc_id!r} again for topic {query_id!r}"
        )


class MeasureError(RelkitError):
    """An unknown measure name, or a bad parameter for a known one."""


class EvaluationError(RelkitError):
    """The inputs cannot be evaluated together (e.g. no topic in common)."""


class InputError(RelkitError):
    """A file named on the command line cannot be opened (missing, a directory...)."""


def not_a_file(path: str | os.PathLike[str]) -> str:
    """Why ``path``, which is not a regular file, is not read ("no such file" was said
    of a directory and of a pipe alike)."""
    return {"no file": "no such file", "a directory": "is a directory, not a file"}.get(
        found_instead(path), "is not a regular file (a pipe?): give a file")


def found_instead(path: str | os.PathLike[str]) -> str:
    """What is at ``path`` instead of a regular file: "no file", "a directory", "a pipe or
    a device" (as :class:`FormatError`'s *found*)."""
    import os

    if not os.path.exists(path):
        return "no file"
    return "a directory" if os.path.isdir(path) else "a pipe or a device"


def open_error(path: object, exc: OSError) -> InputError:
    """``exc`` (opening ``path``) as one line naming the file."""
    if isinstance(exc, FileNotFoundError):
        return InputError(f"{path}: no such file")
    if isinstance(exc, IsADirectoryError):
        return InputError(f"{path}: is a directory, not a file")
    return InputError(f"{path}: cannot open it ({exc.strerror or exc})")


def check_utf8(source: str, line: int, text: str) -> None:
    """Raise :class:`FormatError` if ``text`` (read with ``errors="surrogateescape"``) had
    bytes that are not UTF-8: the file, the line, the byte and its column."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError as exc:
        bad = ord(text[exc.start]) - 0xDC00
        raise FormatError(source, line, "UTF-8 text",
                          f"byte 0x{bad:02x} at column {exc.start + 1}") from None


def check_output(path: object, option: str = "-o") -> None:
    """Raise :class:`InputError` unless ``path`` can be created as a file (before the work)."""
    import os

    p = os.fspath(path)  # type: ignore[call-overload]
    parent = os.path.dirname(p) or "."
    if os.path.isdir(p):
        raise InputError(f"{option} {p}: is a directory; name a file in it")
    if not os.path.isdir(parent):
        raise InputError(f"{option} {p}: directory {parent} does not exist")


def check_outputs(*given: tuple[object | None, str]) -> None:
    """:func:`check_output` on each (path, option) given a path (not ``None``)."""
    for path, option in given:
        if path is not None:
            check_output(path, option)
