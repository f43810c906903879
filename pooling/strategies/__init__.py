"""The strategy registry: one module per strategy, found by name.

A :class:`Strategy` is a small declarative object: its name, whether it is
``static`` (a priority order fixed before any judgment) or ``adaptive`` (the
next document depends on the judgments so far), its parameters
(:class:`relkit.pooling.params.Param`), and a function that builds it. Every module
in this package registers its strategies on import; :func:`get` loads them all
the first time, so ``--help`` and the docs list names from here and cannot drift.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal

from relkit.pooling.params import Param, PoolingError, suggest, validate

if TYPE_CHECKING:
    from relkit.pooling.adaptive import Policy
    from relkit.pooling.candidates import Candidates, TopicMatrix

Kind = Literal["static", "adaptive"]
# static: (candidates, params) -> {topic: [(doc, priority), ...]} in judging order
StaticOrder = Callable[["Candidates", dict[str, Any]], dict[str, list[tuple[str, float]]]]
# adaptive: (topic matrix, params, rng) -> a per-topic policy
PolicyFactory = Callable[["TopicMatrix", dict[str, Any], Any], "Policy"]


@dataclass(frozen=True)
class Strategy:
    name: str
    kind: Kind
    params: tuple[Param, ...]
    summary: str
    reference: str
    order: StaticOrder | None = None
    policy: PolicyFactory | None = None

    def validate(self, given: Mapping[str, Any]) -> dict[str, Any]:
        return validate(self.name, self.params, given)


REGISTRY: dict[str, Strategy] = {}
_loaded = False


def register(*strategies: Strategy) -> None:
    for s in strategies:
        if s.name in REGISTRY:
            raise ValueError(f"strategy {s.name!r} registered twice")
        if (s.kind == "static") != (s.order is not None) or (s.kind == "adaptive") != (
                s.policy is not None):
            raise ValueError(f"strategy {s.name!r}: a static strategy has an order, "
                             "an adaptive one a policy")
        REGISTRY[s.name] = s


def load_all() -> dict[str, Strategy]:
    global _loaded
    if not _loaded:
        for mod in sorted(m.name for m in pkgutil.iter_modules(__path__)):
            importlib.import_module(f"{__name__}.{mod}")
        _loaded = True
    return REGISTRY


def names(kind: Kind | None = None) -> list[str]:
    return sorted(n for n, s in load_all().items() if kind is None or s.kind == kind)


def get(name: str) -> Strategy:
    """The strategy called ``name``; an unknown name suggests a close one."""
    reg = load_all()
    if name not in reg:
        raise PoolingError(f"unknown pooling strategy {name!r}{suggest(name, list(reg))} "
                           f"(known: {', '.join(sorted(reg))})")
    return reg[name]
