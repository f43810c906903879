"""Helpers shared by the pair strategies: the answers so far as a lookup, a seeded order."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

from relkit.metrics.prefs.answers import Answer
from relkit.pooling.errors import PoolingError


def check_docs(docs: Sequence[str]) -> list[str]:
    seen: set[str] = set()
    for d in docs:
        if d in seen:
            raise PoolingError(f"document {d!r} is listed twice among the topic's candidates")
        seen.add(d)
    return list(docs)


def answered(answers: Sequence[Answer]) -> dict[tuple[str, str], int]:
    """``{(a, b): +1 a better, -1 b better, 0 as good}`` for each answered pair, both
    orientations; the latest answer on a pair wins."""
    out: dict[tuple[str, str], int] = {}
    for a in answers:
        v = 1 if a.answer == "left" else -1 if a.answer == "right" else 0
        out[(a.left, a.right)] = v
        out[(a.right, a.left)] = -v
    return out


def seeded_order(items: Sequence[str], seed: int, salt: str = "") -> list[str]:
    """``items`` shuffled deterministically by ``seed`` (and the topic's docs)."""
    rng = random.Random(f"{seed}|{salt}|" + "\x1f".join(sorted(items)))
    out = sorted(items)
    rng.shuffle(out)
    return out


def by_grade(docs: Sequence[str], grades: Mapping[str, float] | None) -> list[str]:
    """Docs by grade descending (ungraded last), then id."""
    g = grades or {}
    return sorted(docs, key=lambda d: (-g[d] if d in g else float("inf"), d))
