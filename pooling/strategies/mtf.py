"""Move-to-Front pooling (Cormack, Palmer & Clarke, SIGIR 1998).

Runs form a queue (initially in name order). The run at the front gives its
highest-ranked unjudged document; while its documents are relevant it stays
at the front, and the first non-relevant one sends it to the back. A run with
nothing left leaves the queue. A document judged via another run is skipped.

Deterministic without randomness (the seed is not used). Reference:
G. V. Cormack, C. R. Palmer, C. L. A. Clarke, "Efficient construction of large
test collections", SIGIR 1998.
"""

from __future__ import annotations

import random
from collections import deque
from typing import Any

import numpy as np

from relkit.pooling.candidates import TopicMatrix
from relkit.pooling.strategies import Strategy, register
from relkit.pooling.strategies._common import next_in


class MoveToFront:
    def __init__(self, m: TopicMatrix, params: dict[str, Any], rng: random.Random) -> None:
        self.order = m.order
        self.ptr = [0] * len(m.runs)
        self.queue = deque(range(len(m.runs)))
        self.arm: int | None = None

    def choose(self, judged: np.ndarray) -> int | None:
        while self.queue:
            j = self.queue[0]
            self.ptr[j] = next_in(self.order[j], self.ptr[j], judged)
            if self.ptr[j] < len(self.order[j]):
                self.arm = j
                return int(self.order[j][self.ptr[j]])
            self.queue.popleft()
        return None

    def update(self, i: int, gain: float, pulled: bool) -> None:
        if pulled and gain <= 0 and self.queue and self.queue[0] == self.arm:
            self.queue.rotate(-1)


register(Strategy(
    "mtf", "adaptive", (),
    "stay with a run while it gives relevant documents (Move-to-Front)",
    "Cormack, Palmer & Clarke, SIGIR 1998",
    policy=MoveToFront,
))
