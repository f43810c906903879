"""A simulated assessor, to measure how many answers each pair strategy needs.

The assessor knows each document's true grade and answers a pair by it (``left`` or
``right`` for the higher grade, ``equal`` for equal grades above 0, ``neither`` for two
0s); with probability ``noise`` it gives instead one of the four answers uniformly at
random. The graded pre-filter of ``top-k`` costs one graded judgment per document (counted),
each off by one grade (up or down, clipped to the scale) with probability ``noise``.

A topic's top k is *recovered* when the strategy's ranking puts documents of the ideal
grades in the first k places (the grades of its top k, in order, equal the true grades
sorted descending: nDCG@k = 1). *Judgments needed* is the number of answers (plus the
graded judgments) after which the top stays recovered to the end of the run; a topic not
recovered at the end counts as not recovered.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from relkit.metrics.prefs.answers import ANSWERS, Answer
from relkit.pooling.pairs import get


@dataclass(frozen=True, kw_only=True)
class TopicRun:
    """One topic under one strategy."""

    topic: str
    docs: int
    graded: int          # graded judgments (the pre-filter), 0 if none
    answers: int         # pairwise answers until the strategy said done (or the budget)
    needed: int | None   # graded + answers after which the top k stayed recovered
    grades: Mapping[str, float] | None = None  # the pre-filter's (noisy) grades, if any
    asked: tuple[Answer, ...] = ()             # the answers, in the order asked


def true_answer(left: str, right: str, truth: Mapping[str, int]) -> str:
    a, b = truth.get(left, 0), truth.get(right, 0)
    return "left" if a > b else "right" if b > a else "equal" if a > 0 else "neither"


def recovered(ranking: Sequence[str], truth: Mapping[str, int], docs: Sequence[str],
              k: int) -> bool:
    ideal = sorted((truth.get(d, 0) for d in docs), reverse=True)[:k]
    return [truth.get(d, 0) for d in ranking[:k]] == ideal


def run_topic(strategy: str, topic: str, docs: Sequence[str], truth: Mapping[str, int], *,
              noise: float = 0.1, k: int = 10, seed: int = 0, top: int = 4,
              budget: int | None = None) -> TopicRun:
    """Run ``strategy`` on one topic with the simulated assessor."""
    rng = random.Random(f"{seed}|{strategy}|{topic}")
    chooser = get(strategy).make({"k": k} if strategy != "all-pairs" else {}, seed)
    grades: dict[str, float] | None = None
    graded = 0
    if strategy == "top-k":
        grades = {}
        for d in docs:
            g = truth.get(d, 0)
            if rng.random() < noise:
                g = min(top, max(0, g + rng.choice((-1, 1))))
            grades[d] = float(g)
        graded = len(docs)
    n = len(docs)
    budget = budget if budget is not None else n * (n - 1) // 2
    answers: list[Answer] = []
    while len(answers) < budget:
        pair = chooser.next_pair(docs, answers, grades)
        if pair is None:
            break
        left, right = pair
        ans = rng.choice(ANSWERS) if rng.random() < noise else true_answer(left, right, truth)
        answers.append(Answer(topic_id=topic, left=left, right=right, answer=ans,
                              assessor="sim", line=len(answers) + 2))
    needed = judgments_needed(strategy, docs, answers, truth, grades=grades, k=k, seed=seed,
                              graded=graded)
    return TopicRun(topic=topic, docs=n, graded=graded, answers=len(answers), needed=needed,
                    grades=grades, asked=tuple(answers))


def judgments_needed(strategy: str, docs: Sequence[str], answers: Sequence[Answer],
                     truth: Mapping[str, int], *, grades: Mapping[str, float] | None = None,
                     k: int = 10, seed: int = 0, graded: int = 0) -> int | None:
    """``graded`` + the number of ``answers`` (in the order given) after which the
    strategy's ranking keeps the top ``k`` recovered to the end; None if it is not
    recovered after the last. The answers may come from anywhere (the screens: their
    sides do not matter)."""
    chooser = get(strategy).make({"k": k} if strategy != "all-pairs" else {}, seed)
    last_bad = -1
    for i in range(len(answers) + 1):
        if not recovered(chooser.ranking(docs, answers[:i], grades), truth, docs, k):
            last_bad = i
    ok = last_bad < len(answers)
    return graded + last_bad + 1 if ok else None
