"""Baseline retrieval systems that turn a collection and topics into TREC runs.

A :class:`System` is a small declarative object: a name, a one-line summary, its
reference, its parameters (:class:`relkit.metrics.core.params.Param`) and a function
that builds a :class:`Scorer` from an :class:`relkit.corpora.systems.index.Index`. One
module per family registers its systems on import (``bm25``, ``tfidf``, ``ql``) into
:data:`REGISTRY`; :func:`get` finds them by name and suggests a close one for a typo,
and the CLI's help and ``relkit systems list`` read names from here, so they cannot
drift.

Importing this package is cheap: scipy, scikit-learn and bm25s load only when an
index is built or a system scores.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from relkit.corpora.systems.errors import SystemsError
from relkit.metrics.core.params import Param, parse_assignments, validate
from relkit.metrics.core.registry import Registry

if TYPE_CHECKING:
    import numpy as np

    from relkit.corpora.systems.index import Index

__all__ = ["FAMILIES", "REGISTRY", "Param", "Scorer", "System", "SystemsError", "get",
           "load_all", "names", "parse_params", "register"]

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
        return validate(self.name, self.params, given, SystemsError)

    def prepare(self, index: Index, given: Mapping[str, Any] | None = None) -> Scorer:
        """Check ``given`` parameters and build the scorer on ``index``."""
        return self.build(index, self.validate(given or {}))


REGISTRY: Registry[System] = Registry("retrieval system", SystemsError,
                                     providers=[f"{__name__}.{f}" for f in FAMILIES])


def register(*systems: System) -> None:
    REGISTRY.register(*systems)


def load_all() -> Mapping[str, System]:
    """Every system by name (the registry, loaded)."""
    REGISTRY.load()
    return REGISTRY


def names() -> list[str]:
    return sorted(REGISTRY)


def get(name: str) -> System:
    """The system called ``name``; an unknown name suggests a close one."""
    return REGISTRY.lookup(name)


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """The CLI's ``--param k1=1.2 --param b=0.75`` as ``{"k1": "1.2", "b": "0.75"}``."""
    return parse_assignments(items, "system", SystemsError)
