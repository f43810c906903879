r"""``adaptive``: ask the pair whose answer is most likely to change the top of the ranking.

Rule. Fit Bradley–Terry with ties to the answers so far (with the prior of
:mod:`relkit.pooling.pairs.ranking`, so sparse answers give finite scores and standard
errors). Among the pairs not yet answered with at least one document in the current top
k + 1, ask the one most likely to be in the wrong order,

.. math::

    \arg\max_{(i,j)} \Phi\!\left(-\frac{|\theta_i - \theta_j|}{\sqrt{se_i^2 + se_j^2}}\right),

i.e. the pair whose answer would most probably swap two documents of the top (an
answer can only move the ranking much where the current order is a coin toss). Equal
probabilities go to the pair closest together in the ranking, then nearer the top. Done
when that probability is below ``stop`` (default 0.05) or no such pair is left.
Grades, when given, break ties in the ranking before any answer exists.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from relkit.metrics.core.params import Param
from relkit.metrics.prefs.answers import Answer
from relkit.pooling.pairs import Pair, PairStrategy, register
from relkit.pooling.pairs._common import answered, check_docs
from relkit.pooling.pairs.ranking import bt_fit, bt_ranking


def _flip(d: float, s: float) -> float:
    return 0.5 * math.erfc(abs(d) / (s * math.sqrt(2.0))) if s > 0 else float(d == 0.0) * 0.5


class Adaptive:
    def __init__(self, k: int, stop: float) -> None:
        self.k, self.stop = k, stop

    def _state(self, docs: Sequence[str], answers: Sequence[Answer],
               grades: Mapping[str, float] | None) -> tuple[list[str], Pair | None]:
        listed = check_docs(docs)
        if len(listed) < 2:
            return listed, None
        fit = bt_fit(listed, answers)
        rank = bt_ranking(listed, answers, grades, fit)
        pos = {d: r for r, d in enumerate(rank)}
        theta, se = fit.scores(), dict(zip(fit.docs, fit.se.tolist(), strict=True))
        known = answered(answers)
        best: tuple[float, int, int] | None = None
        choice: Pair | None = None
        for a in rank[:self.k + 1]:
            for b in rank:
                if a == b or (a, b) in known or (pos[b] <= self.k and pos[b] < pos[a]):
                    continue        # each pair inside the top once, from its better end
                p = _flip(theta[a] - theta[b], math.hypot(se[a], se[b]))
                key = (-p, abs(pos[a] - pos[b]), min(pos[a], pos[b]))
                if best is None or key < best:
                    best, choice = key, (a, b)
        if best is None or -best[0] < self.stop:
            return rank, None
        return rank, choice

    def next_pair(self, docs: Sequence[str], answers: Sequence[Answer],
                  grades: Mapping[str, float] | None = None) -> Pair | None:
        return self._state(docs, answers, grades)[1]

    def ranking(self, docs: Sequence[str], answers: Sequence[Answer],
                grades: Mapping[str, float] | None = None) -> list[str]:
        return bt_ranking(docs, answers, grades) if docs else []


def _build(params: dict[str, Any], seed: int) -> Adaptive:
    return Adaptive(params["k"], params["stop"])


register(PairStrategy(
    "adaptive", "the unanswered pair touching the top k+1 whose Bradley-Terry order is "
    "most likely wrong", "this module's rule (uncertainty sampling on Bradley-Terry "
    "with ties)", "measured: see docs/preferences.md",
    (Param("k", int, 10, "the size of the top the answers should settle", low=1),
     Param("stop", float, 0.05, "done when no pair is this likely to be in the wrong order",
           low=0.0, high=0.5)),
    _build))
