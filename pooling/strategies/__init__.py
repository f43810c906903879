"""The strategy registry: one module per strategy, found by name.

A :class:`Strategy` is a small declarative object: its name, whether it is
``static`` (a priority order fixed before any judgment) or ``adaptive`` (the
next document depends on the judgments so far), its parameters
(:class:`relkit.metrics.core.params.Param`), and a function that builds it. Every
module in this package registers its strategies on import; :data:`REGISTRY`
imports them all the first time it is read, so ``--help`` and the docs list names
from here and cannot drift.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, Protocol

from relkit.metrics.core.params import Param, parse_assignments, validate
from relkit.metrics.core.registry import Registry
from relkit.pooling.errors import PoolingError

if TYPE_CHECKING:
    import numpy as np

    from relkit.pooling.candidates import Candidates, TopicMatrix

Kind = Literal["static", "adaptive"]

# What every strategy looks at: each run's top DEPTH documents per topic (the
# candidates, `relkit.pooling.candidates.Candidates`). `relkit pool --depth` defaults to
# this spec's default (a test checks it), and each strategy's summary states it, so the
# listing cannot drift from what the pool command does. Fusion and RBP weights in
# particular change with it: over whole runs RRF orders pairs differently.
CANDIDATE_DEPTH = Param("depth", int, 100, "each run's top DEPTH documents per topic are "
                        "the candidates every strategy chooses from (relkit pool --depth)",
                        low=1)


class Policy(Protocol):
    """An adaptive strategy's choice rule for one topic; ``judged`` is shared with
    the driver (:class:`relkit.pooling.adaptive.AdaptivePool`)."""

    def choose(self, judged: np.ndarray) -> int | None:
        """Index of the next document to judge (None: nothing left)."""

    def update(self, i: int, gain: float, pulled: bool) -> None:
        """Learn from the judgment of document ``i`` (``pulled``: it was chosen)."""


# static: (candidates, params) -> {topic: [(doc, priority), ...]} in judging order
StaticOrder = Callable[["Candidates", dict[str, Any]], dict[str, list[tuple[str, float]]]]
# adaptive: (topic matrix, params, rng) -> a per-topic policy
PolicyFactory = Callable[["TopicMatrix", dict[str, Any], Any], Policy]


@dataclass(frozen=True)
class Strategy:
    """A registered strategy; ``what`` says what it does, :attr:`summary` adds what it
    looks at (the candidate depth, from :data:`CANDIDATE_DEPTH`)."""

    name: str
    kind: Kind
    params: tuple[Param, ...]
    what: str
    reference: str
    order: StaticOrder | None = None
    policy: PolicyFactory | None = None

    @property
    def summary(self) -> str:
        k = CANDIDATE_DEPTH.default
        return f"{self.what}; looks at each run's top {k} per topic (--depth, default {k})"

    def validate(self, given: Mapping[str, Any]) -> dict[str, Any]:
        return validate(self.name, self.params, given, PoolingError)


# Every module of this package but the private helpers registers strategies.
REGISTRY: Registry[Strategy] = Registry(
    "pooling strategy", PoolingError,
    providers=[f"{__name__}.{name}" for name in sorted(m.name for m in pkgutil.iter_modules(
        __path__)) if not name.startswith("_")])


def register(*strategies: Strategy) -> None:
    for s in strategies:
        if (s.kind == "static") != (s.order is not None) or (s.kind == "adaptive") != (
                s.policy is not None):
            raise ValueError(f"strategy {s.name!r}: a static strategy has an order, "
                             "an adaptive one a policy")
        REGISTRY.register(s)


def load_all() -> Mapping[str, Strategy]:
    """Every strategy by name (the registry, loaded)."""
    REGISTRY.load()
    return REGISTRY


def names(kind: Kind | None = None) -> list[str]:
    return sorted(n for n, s in REGISTRY.items() if kind is None or s.kind == kind)


def get(name: str) -> Strategy:
    """The strategy called ``name``; an unknown name suggests a close one."""
    return REGISTRY.lookup(name)


def parse_params(items: Sequence[str]) -> dict[str, str]:
    """The CLI's ``--param k=60 --param method=rrf`` as ``{"k": "60", "method": "rrf"}``."""
    return parse_assignments(items, "strategy", PoolingError)
