"""What the answers say before any model: majority per pair, agreement between
assessors, and intransitive triples per assessor.

* **Majority per pair**: over every answer on an unordered pair (all assessors), the
  most frequent answer, oriented to the pair's sorted order; a tie between the top
  counts is ``None`` ("split").
* **Agreement** of assessors A and B: the share of pairs both answered on which their
  answers are alike (each assessor's *last* answer on a pair counts; a pair and its
  mirror are one pair). An assessor's overall agreement pools the pairs shared with
  every other assessor.
* **Intransitive triple** of one assessor: three documents of a topic whose three pairs
  the assessor answered (last answers) so that no weak order of the three agrees with all
  three answers; ``equal`` and ``neither`` count as "as good as". A strict cycle
  (a > b > c > a) is one; so is a > b, b = c, c = a.
"""

from __future__ import annotations

import itertools
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from relkit.metrics.prefs.answers import Answer

__all__ = ["Agreement", "agreement", "intransitive_triples", "last_answers", "majority"]

PairKey = tuple[str, str, str]          # topic, doc, doc (sorted)


def _key(a: Answer) -> PairKey:
    return (a.topic_id, *a.key())


def majority(answers: Iterable[Answer]) -> dict[PairKey, tuple[str | None, Counter[str]]]:
    """``{(topic, a, b): (majority answer or None, counts)}``, a < b, answers oriented
    so that ``left`` means a better."""
    counts: dict[PairKey, Counter[str]] = {}
    for a in answers:
        counts.setdefault(_key(a), Counter())[a.oriented()] += 1
    out: dict[PairKey, tuple[str | None, Counter[str]]] = {}
    for k, c in counts.items():
        top = c.most_common()
        winner = top[0][0] if len(top) == 1 or top[0][1] > top[1][1] else None
        out[k] = (winner, c)
    return out


def last_answers(answers: Iterable[Answer]) -> dict[str, dict[PairKey, str]]:
    """``{assessor: {pair: oriented answer}}``, the later line winning."""
    out: dict[str, dict[PairKey, str]] = {}
    for a in answers:
        out.setdefault(a.assessor, {})[_key(a)] = a.oriented()
    return out


@dataclass(frozen=True, kw_only=True)
class Agreement:
    """``pairs[(A, B)] = (shared pairs, alike)`` for A < B; ``overall[A]`` the same pooled."""

    pairs: dict[tuple[str, str], tuple[int, int]]
    overall: dict[str, tuple[int, int]]

    def share(self, a: str, b: str | None = None) -> float | None:
        """Share alike for A with B (or with everyone); None when nothing is shared."""
        n, alike = self.overall[a] if b is None else self.pairs[(min(a, b), max(a, b))]
        return alike / n if n else None


def agreement(answers: Iterable[Answer]) -> Agreement:
    """Pairwise and per-assessor agreement (see the module docstring)."""
    last = last_answers(answers)
    names = sorted(last)
    pairs: dict[tuple[str, str], tuple[int, int]] = {}
    overall = {a: (0, 0) for a in names}
    for a, b in itertools.combinations(names, 2):
        shared = last[a].keys() & last[b].keys()
        alike = sum(last[a][k] == last[b][k] for k in shared)
        pairs[(a, b)] = (len(shared), alike)
        for who in (a, b):
            n0, s0 = overall[who]
            overall[who] = (n0 + len(shared), s0 + alike)
    return Agreement(pairs=pairs, overall=overall)


def _rel(answer: str) -> int:
    """+1: first doc better, -1: second better, 0: as good."""
    return 1 if answer == "left" else -1 if answer == "right" else 0


def _consistent(r_ab: int, r_bc: int, r_ac: int) -> bool:
    for ra, rb, rc in itertools.product(range(3), repeat=3):
        def sign(x: int, y: int) -> int:
            return (x > y) - (x < y)
        if sign(ra, rb) == r_ab and sign(rb, rc) == r_bc and sign(ra, rc) == r_ac:
            return True
    return False


def intransitive_triples(answers: Iterable[Answer]) -> dict[str, list[tuple[str, str, str, str]]]:
    """``{assessor: [(topic, a, b, c), ...]}``: every intransitive triple (a < b < c)."""
    out: dict[str, list[tuple[str, str, str, str]]] = {}
    for who, table in last_answers(answers).items():
        by_topic: dict[str, dict[tuple[str, str], int]] = {}
        for (topic, x, y), ans in table.items():
            by_topic.setdefault(topic, {})[(x, y)] = _rel(ans)
        found: list[tuple[str, str, str, str]] = []
        for topic, rel in by_topic.items():
            neighbours: dict[str, set[str]] = {}
            for x, y in rel:
                neighbours.setdefault(x, set()).add(y)
                neighbours.setdefault(y, set()).add(x)
            for x, y in sorted(rel):
                for z in sorted(neighbours[x] & neighbours[y]):
                    if z <= y:
                        continue               # each triple once: x < y < z
                    if not _consistent(rel[(x, y)], rel[(y, z)], rel[(x, z)]):
                        found.append((topic, x, y, z))
        out[who] = found
    return out


def docs_of(answers: Sequence[Answer]) -> list[str]:
    """Documents in first-seen order."""
    return list(dict.fromkeys(d for a in answers for d in (a.left, a.right)))
