"""A tiny name -> object registry shared by tests, corrections and formats.

Unknown names raise :class:`CompareError` suggesting close matches; help texts
list :meth:`Registry.names`, so option lists cannot drift from the code.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterator
from typing import Generic, Protocol, TypeVar

from relkit.metrics.errors import RelkitError


class CompareError(RelkitError):
    """Systems cannot be compared as asked (unknown test, too few topics...)."""


class Named(Protocol):
    @property
    def name(self) -> str: ...

    @property
    def aliases(self) -> tuple[str, ...]: ...


T = TypeVar("T", bound=Named)


class Registry(Generic[T]):
    """Objects found by name or alias (case-insensitive)."""

    def __init__(self, kind: str) -> None:
        self.kind = kind
        self._by_name: dict[str, T] = {}
        self._lookup: dict[str, T] = {}

    def register(self, obj: T) -> T:
        self._by_name[obj.name] = obj
        for key in (obj.name, *obj.aliases):
            self._lookup[key.lower()] = obj
        return obj

    def get(self, name: str) -> T:
        try:
            return self._lookup[name.lower()]
        except KeyError:
            close = difflib.get_close_matches(name.lower(), list(self._lookup), n=3, cutoff=0.5)
            hint = f"; did you mean {', '.join(close)}?" if close else ""
            raise CompareError(f"unknown {self.kind} {name!r}; expected one of "
                               f"{', '.join(self.names())}{hint}") from None

    def names(self) -> list[str]:
        return list(self._by_name)

    def __iter__(self) -> Iterator[T]:
        return iter(self._by_name.values())
