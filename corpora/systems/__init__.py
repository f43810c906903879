"""Baseline retrieval systems that turn a collection and topics into TREC runs.

A :class:`System` is a small declarative object: a name, a one-line summary, its
reference, its parameters (:class:`relkit.corpora.systems.params.Param`) and a function
that builds a :class:`Scorer` from an :class:`relkit.corpora.systems.index.Index`. One
module per family registers its systems on import (``bm25``, ``tfidf``, ``ql``);
:func:`get` finds them by name and suggests a close one for a typo, and the CLI's
help and ``relkit systems list`` read names from here, so they cannot drift.

Importing this package is cheap: scipy, scikit-learn and bm25s load only when an
index is built or a system scores.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from relkit.corpora.systems.params import Param, SystemsError, suggest, validate

if TYPE_CHECKING:
    import numpy as np

    from relkit.corpora.systems.index import Index

__all__ = ["FAMILIES", "Param", "Scorer", "System", "SystemsError", "get", "load_all", "names",
           "register"]

# The modules that register systems, one per family.
FAMILIES = ("bm25", "tfidf", "ql")


class Scorer(Protocol):
    """A system prepared on one index: scores the documents matching a query."""

    def score(self, terms: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(document rows, scores) of the documents holding at least one query term.

        ``terms`` are distinct query term ids, ``counts`` their ``c(t, q)``.
        """
        ...


@dataclass(frozen=True)
class System:
    name: str
    summary: str
    reference: str
    params: tuple[Param, ...]
    build: Callable[[Index, dict[str, Any]], Scorer]

    def validate(self, given: Mapping[str, Any]) -> dict[str, Any]:
        return validate(self.name, self.params, given)

    def prepare(self, index: Index, given: Mapping[str, Any] | None = None) -> Scorer:
        """Check ``given`` parameters and build the scorer on ``index``."""
        return self.build(index, self.validate(given or {}))


REGISTRY: dict[str, System] = {}
_loaded = False


def register(*systems: System) -> None:
    for s in systems:
        if s.name in REGISTRY:
            raise ValueError(f"system {s.name!r} registered twice")
        REGISTRY[s.name] = s


def load_all() -> dict[str, System]:
    global _loaded
    if not _loaded:
        for mod in FAMILIES:
            importlib.import_module(f"{__name__}.{mod}")
        _loaded = True
    return REGISTRY


def names() -> list[str]:
    return sorted(load_all())


def get(name: str) -> System:
    """The system called ``name``; an unknown name suggests a close one."""
    reg = load_all()
    if name not in reg:
        raise SystemsError(f"unknown retrieval system {name!r}{suggest(name, list(reg))} "
                           f"(known: {', '.join(sorted(reg))})")
    return reg[name]
