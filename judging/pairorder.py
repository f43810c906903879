"""Which pair the pairs screen asks next: a pair strategy of :mod:`relkit.pooling.pairs`,
fed from the judging store.

:func:`pair_order` builds, for one assessor and topic, the screen's ``next_pair(docs,
answers) -> (left, right) | None`` from a registered strategy (``all-pairs`` by default,
``relkit judge --pairs --pair-strategy NAME``). The strategy replays its procedure over
the answers given (the assessor's current answers of the topic), so the order after a
restart is the order before it. Strategies with a graded pre-filter (``top-k``) get the
assessor's own grades of the topic's documents (``relkit judge`` without ``--pairs``);
with none, :attr:`PairOrder.missing` says so in one line and no pair is asked.

Blind to the systems: the strategies see document ids, answers and grades only, never
runs or ranks. Which side a document is shown on is the screen's own coin, one per pair
from the assignment's seed (``random.Random(f"{seed}|{topic}|{a}|{b}")``, a, b in id
order): the same on every restart, and never "the incumbent on the left" (top-k) or
"the better-scored on the left" (adaptive). The strategies' counts do not depend on
sides (they read an answer either way round).
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from relkit.metrics.prefs.answers import Answer
from relkit.pooling.pairs import PairChooser, get

Pair = tuple[str, str]
DEFAULT = "all-pairs"
# Strategies that need graded judgments before any pair (their pre-filter).
NEEDS_GRADES = frozenset({"top-k"})


def shown_sides(pair: Pair, seed: int, topic: str) -> Pair:
    """The pair with its documents on the sides the assignment's seed draws."""
    a, b = sorted(pair)
    return (a, b) if random.Random(f"{seed}|{topic}|{a}|{b}").random() < 0.5 else (b, a)


@dataclass
class PairOrder:
    """One topic's pair order on the screen (build with :func:`pair_order`)."""

    strategy: str
    seed: int
    topic: str
    chooser: PairChooser
    grades: Mapping[str, float] | None = None
    missing: str | None = None   # why no pair can be asked yet (one line), else None
    _sides: dict[frozenset[str], Pair] = field(default_factory=dict)

    def next_pair(self, docs: Sequence[str], answers: Sequence[Answer]) -> Pair | None:
        """The next pair to show (its sides drawn), or None: the strategy is done."""
        if self.missing is not None:
            return None
        pair = self.chooser.next_pair(docs, answers, self.grades)
        if pair is None:
            return None
        key = frozenset(pair)
        if key not in self._sides:
            self._sides[key] = shown_sides(pair, self.seed, self.topic)
        return self._sides[key]

    def needed(self, docs: Sequence[str]) -> int | None:
        """How many answers the strategy needs for these documents, when known in advance
        (all-pairs: n(n-1)/2); None when it depends on the answers."""
        n = len(docs)
        return n * (n - 1) // 2 if self.strategy == "all-pairs" else None


def pair_order(strategy: str, seed: int, topic: str,
               grades: Mapping[str, float] | None = None) -> PairOrder:
    """The screen's pair order for one topic: ``strategy`` (a registered name) made with
    the assignment's ``seed``; ``grades`` the assessor's grades of the topic (used by the
    strategies in :data:`NEEDS_GRADES`). An unknown name raises PoolingError (did you mean)."""
    chooser = get(strategy).make({}, seed)
    missing = None
    if strategy in NEEDS_GRADES:
        if not grades:
            missing = (f"{strategy} needs graded judgments of this topic first (its "
                       f"pre-filter): grade it with relkit judge (without --pairs)")
    else:
        grades = None
    return PairOrder(strategy, seed, topic, chooser, grades, missing)


def to_answers(topic: str, answered: Mapping[frozenset[str], tuple[str, str, str]],
               assessor: str = "") -> list[Answer]:
    """The screen's answers (pair -> (left, right, answer)) as :class:`Answer` records."""
    return [Answer(topic_id=topic, left=left, right=right, answer=answer, assessor=assessor)
            for left, right, answer in answered.values()]
