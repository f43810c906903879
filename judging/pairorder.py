"""Which pair the pairs screen asks next: a tiny interface and its built-in default.

``NextPair``: ``next_pair(docs, answered) -> (left, right) | None``, where ``docs`` are the
topic's documents (its pool, as given to the assessor) and ``answered`` the unordered
pairs answered so far (``frozenset({a, b})``); ``None`` when nothing is left to ask.
The side each document is shown on is part of the answer: the screen is blind to the
systems, so the default puts each pair's documents on sides drawn from the seed.

The default, :func:`all_pairs`: every pair of the pool once, in an order shuffled by
``random.Random(f"{seed}:{topic}")`` (a string seed: the same order on every platform
and Python), each pair's sides by a coin from the same generator.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Collection, Sequence
from itertools import combinations

Pair = tuple[str, str]
NextPair = Callable[[Sequence[str], Collection[frozenset[str]]], "Pair | None"]


def all_pairs(seed: int, topic: str) -> NextPair:
    """Every pair of the pool, in a seeded random order with seeded sides."""
    cache: dict[tuple[str, ...], list[Pair]] = {}

    def order(docs: Sequence[str]) -> list[Pair]:
        key = tuple(docs)
        if key not in cache:
            rng = random.Random(f"{seed}:{topic}")
            pairs = [(a, b) if rng.random() < 0.5 else (b, a)
                     for a, b in combinations(sorted(set(docs)), 2)]
            rng.shuffle(pairs)
            cache[key] = pairs
        return cache[key]

    def next_pair(docs: Sequence[str], answered: Collection[frozenset[str]]) -> Pair | None:
        for left, right in order(docs):
            if frozenset((left, right)) not in answered:
                return left, right
        return None

    return next_pair
