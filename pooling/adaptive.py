"""Adaptive pooling: the next document depends on the judgments so far.

An :class:`AdaptivePool` drives one registered adaptive strategy over every
topic. The judging store, the TUI or a simulation call :meth:`~AdaptivePool.next`
for a topic, show the document, and :meth:`~AdaptivePool.record` the grade.

* **Deterministic**: each topic has its own random generator seeded from
  ``(seed, strategy, topic)``, so the sequence of a topic does not depend on
  how topics are interleaved, and the same seed gives the same sequence.
* **Idempotent next**: calling ``next(topic)`` twice without recording returns
  the same document (a crash between showing and saving loses nothing).
* **Resumable**: :meth:`~AdaptivePool.resume` replays recorded judgments
  (each through ``next`` then ``record``), so the state, random generators
  included, is exactly where it was; the sequence then continues unchanged.
* A grade at or above ``level`` counts as relevant; graded strategies
  (``rbp-adaptive``) use the grade as a gain of ``grade / max_grade``.
* A document judged out of turn (recorded without being the pending one) is
  marked judged; strategies that learn from every judgment (hedge,
  rbp-adaptive, and the bandit's published policies, which credit every run
  that retrieved it) use it, the others skip it.
* A skipped document (:meth:`~AdaptivePool.skip`) is set aside: never offered
  again, nothing learned from it.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from relkit.pooling.candidates import Candidates, TopicMatrix
from relkit.pooling.errors import PoolingError
from relkit.pooling.strategies import Policy, get


@dataclass(frozen=True)
class Judgment:
    topic: str
    doc: str
    grade: int


@dataclass
class _Topic:
    m: TopicMatrix
    policy: Policy
    judged: np.ndarray
    pending: int | None = None
    count: int = 0


class AdaptivePool:
    """An adaptive strategy over all topics of some candidates.

    Parameters
    ----------
    strategy : a registered adaptive strategy name.
    candidates : the runs' ranked lists (see :class:`relkit.pooling.candidates.Candidates`).
    params : strategy parameters (validated).
    seed : base seed of every topic's generator.
    level : lowest grade that counts as relevant.
    max_grade : grade that counts as full gain (graded strategies).
    """

    def __init__(self, strategy: str, candidates: Candidates,
                 params: Mapping[str, Any] | None = None, *, seed: int = 0, level: int = 1,
                 max_grade: int = 1) -> None:
        self.strategy = get(strategy)
        if self.strategy.kind != "adaptive":
            raise PoolingError(f"{strategy!r} is a static strategy; build its pool with "
                               "relkit.pooling.build.build_pool")
        self.params = self.strategy.validate(params or {})
        self.candidates = candidates
        self.seed = seed
        self.level = level
        self.max_grade = max(max_grade, level, 1)
        self.log: list[Judgment] = []
        self._topics: dict[str, _Topic] = {}

    def _topic(self, topic: str) -> _Topic:
        st = self._topics.get(topic)
        if st is None:
            if topic not in self.candidates.lists:
                raise PoolingError(f"topic {topic!r} has no candidates (no run retrieved "
                                   "anything for it)")
            m = self.candidates.matrix(topic)
            rng = random.Random(f"{self.seed}:{self.strategy.name}:{topic}")
            assert self.strategy.policy is not None
            st = _Topic(m, self.strategy.policy(m, self.params, rng),
                        np.zeros(len(m.docs), dtype=bool))
            self._topics[topic] = st
        return st

    def next(self, topic: str) -> str | None:
        """The next document to judge for ``topic`` (None when all are judged)."""
        st = self._topic(topic)
        if st.pending is None:
            st.pending = st.policy.choose(st.judged)
        return None if st.pending is None else st.m.docs[st.pending]

    def record(self, topic: str, doc: str, grade: int) -> None:
        """Record a judgment; the strategy learns from it."""
        st = self._topic(topic)
        i = st.m.index.get(doc)
        if i is None:
            raise PoolingError(f"document {doc!r} is not a candidate of topic {topic!r}")
        if st.judged[i]:
            raise PoolingError(f"topic {topic!r} document {doc!r} is already judged")
        pulled = st.pending == i
        st.judged[i] = True
        st.pending = None
        st.count += 1
        gain = 0.0 if grade < self.level else min(grade, self.max_grade) / self.max_grade
        st.policy.update(i, gain, pulled)
        self.log.append(Judgment(topic, doc, grade))

    def skip(self, topic: str, doc: str) -> None:
        """Set a document aside unjudged (an assessor skipped it): it is not offered
        again and the strategy learns nothing from it; not counted as a judgment."""
        st = self._topic(topic)
        i = st.m.index.get(doc)
        if i is None:
            raise PoolingError(f"document {doc!r} is not a candidate of topic {topic!r}")
        if st.judged[i]:
            raise PoolingError(f"topic {topic!r} document {doc!r} is already judged")
        st.judged[i] = True
        st.pending = None

    def resume(self, judgments: Iterable[Judgment]) -> None:
        """Replay judgments recorded earlier (in their order) to restore the state."""
        for j in judgments:
            self.next(j.topic)
            self.record(j.topic, j.doc, j.grade)

    def judged_count(self, topic: str) -> int:
        return self._topic(topic).count

    def run(self, topic: str, grade: Callable[[str], int], budget: int) -> list[Judgment]:
        """Judge up to ``budget`` documents of ``topic`` with ``grade(doc)`` as assessor."""
        out = []
        while self._topic(topic).count < budget:
            doc = self.next(topic)
            if doc is None:
                break
            g = grade(doc)
            self.record(topic, doc, g)
            out.append(Judgment(topic, doc, g))
        return out

