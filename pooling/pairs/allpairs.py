"""``all-pairs``: every pair of the topic's documents once, in a seeded random order.

n documents need n(n-1)/2 answers. The order is random so that no document is
always seen first and fatigue does not fall on the same documents; the side each
document is shown on is random as well (both by ``seed``). The ranking is
Bradley–Terry's (:mod:`relkit.metrics.prefs.bt`).
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Mapping, Sequence
from typing import Any

from relkit.metrics.prefs.answers import Answer
from relkit.pooling.pairs import Pair, PairStrategy, register
from relkit.pooling.pairs._common import answered, check_docs, seeded_order
from relkit.pooling.pairs.ranking import bt_ranking


class AllPairs:
    def __init__(self, seed: int) -> None:
        self.seed = seed

    def order(self, docs: Sequence[str]) -> list[Pair]:
        docs = seeded_order(check_docs(docs), self.seed, "all-pairs")
        rng = random.Random(f"{self.seed}|sides|{len(docs)}")
        pairs = []
        for a, b in itertools.combinations(docs, 2):
            pairs.append((a, b) if rng.random() < 0.5 else (b, a))
        rng.shuffle(pairs)
        return pairs

    def next_pair(self, docs: Sequence[str], answers: Sequence[Answer],
                  grades: Mapping[str, float] | None = None) -> Pair | None:
        known = answered(answers)
        return next((p for p in self.order(docs) if p not in known), None)

    def ranking(self, docs: Sequence[str], answers: Sequence[Answer],
                grades: Mapping[str, float] | None = None) -> list[str]:
        return bt_ranking(docs, answers, grades)


def _build(params: dict[str, Any], seed: int) -> AllPairs:
    return AllPairs(seed)


register(PairStrategy(
    "all-pairs", "every pair of the topic's documents once, in a seeded random order",
    "exhaustive pairwise judging (e.g. Carterette et al., ECIR 2008)", "n(n-1)/2",
    (), _build))
