"""Presentation order: in what order an assessor sees a topic's documents.

* ``docno``: by document id (NIST practice: no hint of any system's ranking);
* ``random``: shuffled with a seed per assessor and topic, so two assessors
  judging the same topic see different orders and a rerun gives the same one;
* ``priority``: the pool's priority descending (ties by docno), e.g. the
  order an adaptive or fusion strategy chose.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Literal, TypeVar, get_args

from relkit.metrics.core.registry import did_you_mean
from relkit.pooling.errors import PoolingError

Ordering = Literal["docno", "random", "priority"]
ORDERINGS: tuple[str, ...] = get_args(Ordering)

T = TypeVar("T")


def seed_key(seed: int | str, assessor: str, topic: str) -> str:
    """The generator seed of one assessor's topic (a string: stable across runs)."""
    return f"{seed}:{assessor}:{topic}"


def present(items: Sequence[tuple[T, float]], ordering: str, *, docno: Callable[[T], str],
            seed: str = "0") -> list[T]:
    """Order ``(item, priority)`` pairs for presentation; ``docno(item)`` gives the id.

    ``random`` first sorts by docno, then shuffles with ``random.Random(seed)``,
    so the result depends only on the set of documents and the seed.
    """
    if ordering == "docno":
        return [d for d, _ in sorted(items, key=lambda e: docno(e[0]))]
    if ordering == "priority":
        return [d for d, _ in sorted(items, key=lambda e: (-e[1], docno(e[0])))]
    if ordering == "random":
        docs = sorted((d for d, _ in items), key=docno)
        random.Random(seed).shuffle(docs)
        return docs
    raise PoolingError(f"unknown presentation order {ordering!r}"
                       f"{did_you_mean(ordering, ORDERINGS)} (known: {', '.join(ORDERINGS)})")
