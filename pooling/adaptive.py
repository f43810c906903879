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

**Stopping rules** (``stop``, :mod:`relkit.pooling.stopping`; Cormack & Grossman,
SIGIR 2016). Once a topic's rule says stop, :meth:`~AdaptivePool.next` returns
None and :meth:`~AdaptivePool.stopped` says why.

* ``knee``: checked after every judgment of the topic (skips do not count).
* ``target:T`` (``target``: T = 10): the topic starts with a simple random sample
  of its candidates (a generator of its own, seeded from ``(seed, "target",
  topic)``), judged until it holds T relevant documents: the target set. Only
  then does the strategy pick. The sample's judgments are kept from the
  strategy, so its review is independent of the sample, as the method's
  guarantee needs; when the strategy picks a document the sample judged, its
  grade is known: it is recorded at once (not shown again, not a new
  judgment) and the strategy learns from it then. The topic stops when the
  strategy has picked every target document. A sample without any relevant
  document judged every candidate: the topic stops there.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from relkit.pooling.candidates import Candidates, TopicMatrix
from relkit.pooling.errors import PoolingError
from relkit.pooling.stopping import KneeState, StopRule, parse_stop
from relkit.pooling.strategies import Policy, get


@dataclass(frozen=True)
class Judgment:
    topic: str
    doc: str
    grade: int


@dataclass(frozen=True)
class Standing:
    """One topic's progress (``relkit status`` for cal pools).

    ``recall``: the target method's estimate once its sample is complete, the
    fraction of the target set (a random sample of the relevant documents) the
    review has judged; None otherwise (the knee method has no recall estimate).
    """

    judged: int
    relevant: int
    rule: str           # "" without a rule
    state: str
    recall: float | None


@dataclass
class _Topic:
    m: TopicMatrix
    policy: Policy
    judged: np.ndarray
    pending: int | None = None
    count: int = 0
    relevant: int = 0
    knee: KneeState | None = None
    # The target method: its sample order and position, the sample's gains
    # (hidden from the strategy), the target set and the target documents the
    # strategy has not picked yet; sampling until ``left`` is set.
    sample: list[int] | None = None
    at: int = 0
    sampled: dict[int, float] | None = None
    left: set[int] | None = None
    targets: int = 0
    stopped: str | None = None


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
    stop : a stopping rule: ``"knee"``, ``"target"``, ``"target:T"`` (see the module doc).
    """

    def __init__(self, strategy: str, candidates: Candidates,
                 params: Mapping[str, Any] | None = None, *, seed: int = 0, level: int = 1,
                 max_grade: int = 1, stop: str | StopRule | None = None) -> None:
        self.strategy = get(strategy)
        if self.strategy.kind != "adaptive":
            raise PoolingError(f"{strategy!r} is a static strategy; build its pool with "
                               "relkit.pooling.build.build_pool")
        self.params = self.strategy.validate(params or {})
        self.candidates = candidates
        self.seed = seed
        self.level = level
        self.max_grade = max(max_grade, level, 1)
        self.stop = parse_stop(stop)
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
            if self.stop is not None and self.stop.method == "knee":
                st.knee = KneeState()
            elif self.stop is not None:
                st.sample = list(range(len(m.docs)))
                random.Random(f"{self.seed}:target:{topic}").shuffle(st.sample)
                st.sampled = {}
            self._topics[topic] = st
        return st

    def _relevant(self, grade: int) -> bool:
        return grade >= self.level

    def _gain(self, grade: int) -> float:
        return 0.0 if grade < self.level else min(grade, self.max_grade) / self.max_grade

    def _sampling(self, st: _Topic) -> bool:
        """In the target method's sample? Ends it when the target set is complete."""
        if st.sample is None or st.left is not None:
            return False
        assert self.stop is not None and st.sampled is not None
        while st.at < len(st.sample) and (st.judged[st.sample[st.at]]
                                          or st.sample[st.at] in st.sampled):
            st.at += 1  # judged out of turn or skipped: not sampled again
        if st.targets < self.stop.target and st.at < len(st.sample):
            return True
        st.left = {i for i, g in st.sampled.items() if g > 0}
        if not st.left:
            st.stopped = (f"target:{self.stop.target}: the sample judged all {st.count} "
                          "candidates and found nothing relevant")
        return False

    def next(self, topic: str) -> str | None:
        """The next document to judge for ``topic`` (None when all are judged or the
        stopping rule says stop)."""
        st = self._topic(topic)
        if st.pending is None and st.stopped is None:
            if self._sampling(st):
                assert st.sample is not None
                st.pending = st.sample[st.at]
            else:
                st.pending = self._choose(st)
        return None if st.pending is None else st.m.docs[st.pending]

    def ahead(self, topic: str) -> None:
        """Let the strategy prepare its pick after the pending document off the key
        path (``cal``: the next batch's training in a background thread). Changes no
        pick: the strategy uses what it prepared only where it equals what it would
        compute then. Strategies without this step ignore it."""
        st = self._topic(topic)
        step = getattr(st.policy, "ahead", None)
        if step is None or st.pending is None or st.stopped is not None:
            return
        if st.sample is not None and st.left is None:
            return  # the target method's sample: the strategy does not see these
        step(st.judged, st.pending)

    def upcoming(self, topic: str) -> str | None:
        """The document offered after the pending one *whatever its grade*, when the
        strategy knows it already (``cal``: the next of its batch); None otherwise (the
        pick depends on the grade, or the strategy does not say). A forecast for the
        judging screen to prepare that document while this one is read: :meth:`next`
        still decides (in the target method's review a document the sample judged is
        passed over there), and nothing changes here."""
        st = self._topic(topic)
        step = getattr(st.policy, "upcoming", None)
        if step is None or st.pending is None or st.stopped is not None:
            return None
        if st.sample is not None and st.left is None:
            return None   # the target method's sample: its next is the sample's
        i = step(st.judged, st.pending)
        return None if i is None else st.m.docs[i]

    def _choose(self, st: _Topic) -> int | None:
        while st.stopped is None:
            i = st.policy.choose(st.judged)
            if i is None or st.sampled is None or i not in st.sampled:
                return i
            # A document the target sample judged: its grade is known, the strategy
            # learns it now (as if it had just been judged) and picks again.
            st.judged[i] = True
            st.policy.update(i, st.sampled[i], True)
            assert st.left is not None and self.stop is not None
            st.left.discard(i)
            if not st.left:
                st.stopped = (f"target:{self.stop.target}: every target document found "
                              f"after {st.count} judgments")
        return None

    def stopped(self, topic: str) -> str | None:
        """Why the stopping rule stopped ``topic`` (None: it has not, or there is no rule)."""
        st = self._topic(topic)
        if st.stopped is None and st.pending is None and st.sample is not None:
            # The target method decides on the next pick: in the sample (it may end
            # it) and in the review (documents the sample judged are skipped there,
            # which may complete the targets). A replay of the history ends on a
            # record, not a pick, so the verdict is only known after this one.
            self.next(topic)
        return st.stopped

    def standing(self, topic: str) -> Standing:
        """Where ``topic`` stands: judged, relevant found, the rule's state and, for
        the target method's review, its recall estimate (see :class:`Standing`)."""
        st = self._topic(topic)
        why = self.stopped(topic)
        rule = "" if self.stop is None else str(self.stop)
        recall = None
        if st.left is not None and st.targets:
            # the target set is a simple random sample of the relevant documents: the
            # fraction of it the review has reached estimates the review's recall
            recall = (st.targets - len(st.left)) / st.targets
        if why is not None:
            state = f"stopped: {why}"
        elif self.stop is None:
            state = "no rule"
        elif st.knee is not None:
            rho = st.knee.ratio()
            state = (f"knee: slope ratio {'-' if rho is None else format(rho, '.1f')}, "
                     f"needs {st.knee.required():g} from {st.knee.min_judged} judged")
        elif st.left is None:
            state = (f"{rule}: sampling, {st.targets} of {self.stop.target} target "
                     "documents found")
        else:
            state = (f"{rule}: reviewing, {st.targets - len(st.left)} of {st.targets} "
                     "target documents reached")
        return Standing(st.count, st.relevant, rule, state, recall)

    def stopped_after(self, topic: str) -> int | None:
        """Judgments of ``topic`` when its rule said stop (None: it has not)."""
        st = self._topic(topic)
        if self.stopped(topic) is None:
            return None
        return st.knee.stopped_at if st.knee is not None else st.count

    def record(self, topic: str, doc: str, grade: int) -> None:
        """Record a judgment; the strategy learns from it."""
        st = self._topic(topic)
        i = st.m.index.get(doc)
        if i is None:
            raise PoolingError(f"document {doc!r} is not a candidate of topic {topic!r}")
        if st.judged[i] or (st.sampled is not None and i in st.sampled):
            raise PoolingError(f"topic {topic!r} document {doc!r} is already judged")
        pulled = st.pending == i
        st.pending = None
        st.count += 1
        st.relevant += self._relevant(grade)
        gain = self._gain(grade)
        if self._sampling(st):
            # The target sample: kept from the strategy until it picks this document.
            assert st.sampled is not None
            st.sampled[i] = gain
            st.targets += self._relevant(grade)
        else:
            st.judged[i] = True
            st.policy.update(i, gain, pulled)
        if st.knee is not None and st.knee.add(self._relevant(grade)) and st.stopped is None:
            st.stopped = f"knee: slope ratio reached after {st.knee.stopped_at} judgments"
        self.log.append(Judgment(topic, doc, grade))

    def skip(self, topic: str, doc: str) -> None:
        """Set a document aside unjudged (an assessor skipped it): it is not offered
        again and the strategy learns nothing from it; not counted as a judgment."""
        st = self._topic(topic)
        i = st.m.index.get(doc)
        if i is None:
            raise PoolingError(f"document {doc!r} is not a candidate of topic {topic!r}")
        if st.judged[i] or (st.sampled is not None and i in st.sampled):
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

