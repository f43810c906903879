r"""Multi-armed-bandit pooling (Losada, Parapar & Barreiro, IP&M 2017).

Each run is an arm; pulling it judges the run's highest-ranked unjudged
document, and the reward is 1 if that document is relevant. Each arm keeps a
Beta(1 + relevant, 1 + non-relevant) posterior over its rate of relevant
documents.

* ``maxmean`` (MM): pull the arm with the largest posterior mean
  :math:`(1 + rel_s) / (2 + n_s)`; ties broken uniformly at random (seeded).
* ``thompson``: draw :math:`\theta_s \sim \mathrm{Beta}(1 + rel_s, 1 + nonrel_s)`
  for each arm and pull the largest (Thompson 1933).

Only the pulled arm is credited; a document judged via another arm is skipped.
Exhausted arms are never pulled. Reference: D. E. Losada, J. Parapar,
Á. Barreiro, "Multi-armed bandits for adjudicating documents in pooling-based
evaluation of information retrieval systems", IP&M 53(5), 2017 (MM is their
best stationary policy).
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from relkit.metrics.core.params import Param
from relkit.pooling.candidates import TopicMatrix
from relkit.pooling.strategies import Strategy, register
from relkit.pooling.strategies._common import next_in


class Bandit:
    def __init__(self, m: TopicMatrix, params: dict[str, Any], rng: random.Random) -> None:
        self.order = m.order
        self.ptr = [0] * len(m.runs)
        self.rel = [0] * len(m.runs)
        self.n = [0] * len(m.runs)
        self.rng = rng
        self.thompson = params["policy"] == "thompson"
        self.arm: int | None = None

    def choose(self, judged: np.ndarray) -> int | None:
        best: list[int] = []
        top = -1.0
        for j in range(len(self.order)):
            self.ptr[j] = next_in(self.order[j], self.ptr[j], judged)
            if self.ptr[j] >= len(self.order[j]):
                continue
            a, b = 1 + self.rel[j], 1 + self.n[j] - self.rel[j]
            v = self.rng.betavariate(a, b) if self.thompson else a / (a + b)
            if v > top:
                top, best = v, [j]
            elif v == top:
                best.append(j)
        if not best:
            return None
        j = best[0] if len(best) == 1 else self.rng.choice(best)
        self.arm = j
        return int(self.order[j][self.ptr[j]])

    def update(self, i: int, gain: float, pulled: bool) -> None:
        if pulled and self.arm is not None:
            self.n[self.arm] += 1
            self.rel[self.arm] += gain > 0


register(Strategy(
    "bandit", "adaptive",
    (Param("policy", str, "maxmean", "which bandit policy chooses the run",
           choices=("maxmean", "thompson")),),
    "runs as bandit arms rewarded by relevant documents (MaxMean or Thompson sampling)",
    "Losada, Parapar & Barreiro, IP&M 2017",
    policy=Bandit,
))
