"""Workarounds that use another library's private names, and how each one steps aside.

relkit reaches into Textual, textual-serve, Typer and PySpark in a few places (listed in
docs/maintaining.md, "Borrowed internals") to plug a leak or save start-up time. A
private name may move in any release; pyproject.toml pins those libraries to the minor
versions the tests ran on, and each use is guarded: when a name it needs is missing the
workaround is switched off with one :class:`BorrowedInternalWarning` naming the library,
its version and the workaround, and relkit goes on without it (slower, or leaking, never
broken). ``make canary`` runs the tests marked ``private_api`` against the newest releases.
"""

from __future__ import annotations

import warnings

__all__ = ["BorrowedInternalWarning", "give_up", "missing"]


class BorrowedInternalWarning(RuntimeWarning):
    """A library no longer has a private name relkit borrowed: a workaround is off."""


# The workarounds already switched off in this process (one warning each).
_given_up: set[str] = set()


def _version(library: str) -> str:
    from importlib import metadata  # (only when a warning is due: it costs start-up time)

    try:
        return metadata.version(library)
    except metadata.PackageNotFoundError:
        return "(version unknown)"


def give_up(library: str, name: str, workaround: str) -> None:
    """Say once per process that ``workaround`` is off: ``library`` has no ``name``."""
    if workaround in _given_up:
        return
    _given_up.add(workaround)
    warnings.warn(f"relkit: {library} {_version(library)} has no {name}, so {workaround} is "
                  "off (relkit is tested with the versions its pyproject.toml pins)",
                  BorrowedInternalWarning, stacklevel=3)


def missing(owner: object, *names: str) -> str | None:
    """The first of ``names`` that ``owner`` lacks, or ``None`` when it has them all."""
    for name in names:
        if not hasattr(owner, name):
            return name
    return None
