"""Pair strategies: which pair of documents to ask an assessor about next.

A :class:`PairStrategy` is registered by name like pooling's strategies
(:mod:`relkit.pooling.strategies`); :meth:`PairStrategy.make` builds a
:class:`PairChooser` for one topic. The chooser's one question,
``next_pair(docs, answers, grades=None)``, is answered from the answers so far alone
(each strategy replays its procedure over them and returns the first pair it has no
answer for), so a screen can ask it after every judgment, restart, or share it between
assessors; ``None`` means the strategy is done. ``ranking(...)`` is its current order.
"""

from __future__ import annotations

import pkgutil
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from relkit.metrics.core.params import Param, validate
from relkit.metrics.core.registry import Registry
from relkit.metrics.prefs.answers import Answer
from relkit.pooling.errors import PoolingError

__all__ = ["REGISTRY", "PairChooser", "PairStrategy", "get", "names", "register"]

Pair = tuple[str, str]


class PairChooser(Protocol):
    """One topic's choice of pairs."""

    def next_pair(self, docs: Sequence[str], answers: Sequence[Answer],
                  grades: Mapping[str, float] | None = None) -> Pair | None:
        """The next ``(left, right)`` to ask, or None when done."""

    def ranking(self, docs: Sequence[str], answers: Sequence[Answer],
                grades: Mapping[str, float] | None = None) -> list[str]:
        """The documents best first, as the strategy sees them now."""


@dataclass(frozen=True)
class PairStrategy:
    """A registered pair strategy: ``build(params, seed) -> PairChooser``; ``judgments``
    says how many answers it needs for n documents (measured in docs/preferences.md)."""

    name: str
    what: str
    reference: str
    judgments: str
    params: tuple[Param, ...]
    build: Callable[[dict[str, Any], int], PairChooser]

    def make(self, params: Mapping[str, Any] | None = None, seed: int = 0) -> PairChooser:
        return self.build(validate(self.name, self.params, dict(params or {}), PoolingError),
                          seed)


REGISTRY: Registry[PairStrategy] = Registry(
    "pair strategy", PoolingError,
    providers=[f"{__name__}.{name}" for name in sorted(m.name for m in pkgutil.iter_modules(
        __path__)) if not name.startswith("_") and name not in ("simulate", "ranking")])


def register(*strategies: PairStrategy) -> None:
    REGISTRY.register(*strategies)


def names() -> list[str]:
    return list(REGISTRY)


def get(name: str) -> PairStrategy:
    """The strategy called ``name``; an unknown name suggests a close one."""
    return REGISTRY.lookup(name)
