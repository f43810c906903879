r"""Multi-armed-bandit pooling (Losada, Parapar & Barreiro, SAC 2016 and IP&M 2017).

Each run s is an arm. Pulling it judges the run's highest-ranked unjudged
document d; the reward is :math:`r = 1` if d is relevant, 0 if not. Each arm
keeps relevance evidence :math:`rel_s` and non-relevance evidence
:math:`nrel_s`, i.e. a :math:`\mathrm{Beta}(1 + rel_s, 1 + nrel_s)` posterior
over its rate of relevant documents (uniform prior).

**Crediting, as published** (``mm``, ``mm-ns``, ``ts``, ``ts-ns``): a
document is judged once, and its judgment is evidence about *every* run that
retrieved it, so every such run s is updated, not only the pulled one; each
run's pointer then moves past d (it is never offered again). A judgment made
out of turn (recorded without having been proposed) credits the runs too.

* ``mm`` (MaxMean, MM): pull the arm with the largest posterior mean

  .. math:: \hat\theta_s = \frac{1 + rel_s}{2 + rel_s + nrel_s}

  with :math:`rel_s, nrel_s` the counts of relevant and non-relevant judged
  documents among the run's (stationary: every judgment weighs the same).
* ``mm-ns`` (MaxMean non-stationary, MM-NS; the papers' best method): the
  same choice, but a run's relevance rate declines as its pointer moves down
  its ranking, so older evidence is forgotten. On each judgment of a document
  the run retrieved, with reward :math:`r \in \{0, 1\}` and forgetting rate
  :math:`\gamma` (parameter ``rate``):

  .. math:: rel_s \leftarrow \gamma\, rel_s + r, \qquad
            nrel_s \leftarrow \gamma\, nrel_s + (1 - r)

  and :math:`\hat\theta_s` as for MM. :math:`\gamma = 1` is MM. This is the
  discounted (exponential-forgetting) Beta update of non-stationary Bayesian
  bandits, which is how we read the papers' non-stationary variant; the
  papers were not at hand when this was written, so the form above (not an
  equation number of theirs) is what is implemented, and the default
  :math:`\gamma` is ours (chosen in the simulation of ``docs/pooling.md``).
* ``ts`` / ``ts-ns`` (Bayesian Learning Automaton / Thompson sampling, the
  papers' BLA): draw :math:`\theta_s \sim \mathrm{Beta}(1 + rel_s, 1 + nrel_s)`
  per arm and pull the largest, with the stationary or forgetting evidence.

* ``mm-ns-pulled``: MM-NS's forgetting with only the pulled run credited, so a
  run's evidence is the sequence of its own judgments down its ranking and
  "recent" means "near its pointer", the situation the non-stationary update
  models. In ``bench/bandit_sim.py`` forgetting helps only in this form (1-3
  points over ``maxmean`` at 5-20% of the pool); with every retrieving run
  credited, ``mm`` beats ``mm-ns`` and every pulled-only policy
  (docs/pooling.md, "Bandits as published").

**Today's variant, kept under its own name** (``maxmean`` and ``thompson``,
also spelt ``maxmean-pulled`` and ``thompson-pulled``): only the pulled arm is
credited, and a document judged via another arm is skipped; MaxMean or
Thompson choice as above with stationary counts. Pools stored with these
names replay unchanged.

Ties of the choice are broken uniformly at random (the topic's seeded
generator); exhausted arms are never pulled.

References
----------
D. E. Losada, J. Parapar, Á. Barreiro, "Feeling lucky? Multi-armed bandits for
ordering judgements in pooling-based evaluation", ACM SAC 2016; D. E. Losada,
J. Parapar, Á. Barreiro, "Multi-armed bandits for adjudicating documents in
pooling-based evaluation of information retrieval systems", IP&M 53(5), 2017.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np

from relkit.metrics.core.params import Param
from relkit.pooling.candidates import TopicMatrix
from relkit.pooling.strategies import Strategy, register
from relkit.pooling.strategies._common import next_in

# policy -> (thompson draw?, credit every run that retrieved the document?, forget?)
POLICIES: dict[str, tuple[bool, bool, bool]] = {
    "mm-ns": (False, True, True),
    "mm": (False, True, False),
    "ts": (True, True, False),
    "ts-ns": (True, True, True),
    "mm-ns-pulled": (False, False, True),
    "maxmean": (False, False, False),
    "thompson": (True, False, False),
    "maxmean-pulled": (False, False, False),
    "thompson-pulled": (True, False, False),
}


class Bandit:
    """One topic's arms: evidence per run, a pointer per run into its ranking."""

    def __init__(self, m: TopicMatrix, params: dict[str, Any], rng: random.Random) -> None:
        self.order = m.order
        self.ranks = m.ranks
        self.ptr = [0] * len(m.runs)
        # ints for the pulled variants, so their arithmetic (and hence the Thompson
        # draws) is exactly what it was before the published variants existed
        self.rel: list[float] = [0] * len(m.runs)
        self.non: list[float] = [0] * len(m.runs)
        self.rng = rng
        self.thompson, self.credit_all, forget = POLICIES[params["policy"]]
        self.rate = params["rate"] if forget else 1.0
        self.arm: int | None = None

    def choose(self, judged: np.ndarray) -> int | None:
        best: list[int] = []
        top = -1.0
        for j in range(len(self.order)):
            self.ptr[j] = next_in(self.order[j], self.ptr[j], judged)
            if self.ptr[j] >= len(self.order[j]):
                continue
            a, b = 1 + self.rel[j], 1 + self.non[j]
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
        r = 1 if gain > 0 else 0
        if self.credit_all:
            for j in np.flatnonzero(self.ranks[i]).tolist():
                self.rel[j] = self.rate * self.rel[j] + r
                self.non[j] = self.rate * self.non[j] + (1 - r)
        elif pulled and self.arm is not None and self.rate != 1.0:
            j = self.arm            # mm-ns-pulled: the pulled run's own clock
            self.rel[j] = self.rate * self.rel[j] + r
            self.non[j] = self.rate * self.non[j] + (1 - r)
        elif pulled and self.arm is not None:
            self.rel[self.arm] += r
            self.non[self.arm] += 1 - r


register(Strategy(
    "bandit", "adaptive",
    (Param("policy", str, "mm", "which bandit policy chooses the run: mm-ns/mm/ts/ts-ns "
           "credit every run that retrieved the judged document (as published); "
           "maxmean/thompson (= maxmean-pulled/thompson-pulled) and mm-ns-pulled only "
           "the pulled run",
           choices=tuple(POLICIES)),
     Param("rate", float, 0.9, "forgetting rate gamma of the non-stationary policies "
           "(mm-ns, ts-ns, mm-ns-pulled): evidence <- gamma * evidence + reward; 1 is "
           "stationary",
           low=0, high=1, open_low=True)),
    "runs as bandit arms rewarded by relevant documents, credited to every run that "
    "retrieved them (MaxMean by default; MM-NS, Thompson; maxmean/thompson: pulled run only)",
    "Losada, Parapar & Barreiro, SAC 2016; IP&M 2017",
    policy=Bandit,
))
