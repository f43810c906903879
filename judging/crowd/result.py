"""What an aggregation method returns: a label and a distribution per item, worker estimates."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relkit.judging.crowd.table import LabelTable


def argmax_low(probas: np.ndarray) -> np.ndarray:
    """Per row, the first (lowest) class with the highest value: ties go to the lower grade."""
    return np.asarray(np.argmax(probas, axis=1), dtype=np.int64)


@dataclass(frozen=True)
class Aggregate:
    """An aggregation of a :class:`LabelTable`.

    Attributes
    ----------
    method
        The method's name (``dawid-skene``...).
    table
        The labels aggregated.
    probas
        ``(items, k)`` each item's distribution over ``table.classes``.
    codes
        ``(items,)`` each item's class code (the most probable; ties low).
    skills
        ``(workers,)`` the method's worker parameter where it has one: Wawa's and
        majority's agreement with the aggregate, GLAD's alpha, MACE's probability
        of not spamming, the Dawid-Skene accuracy ``sum_k prior_k * pi[k, k]``.
    confusion
        ``(workers, k, k)`` Dawid-Skene's ``pi[w, true, given]`` (rows sum to 1),
        or ``None``.
    iterations
        EM iterations run (0 for the closed-form methods).
    """

    method: str
    table: LabelTable
    probas: np.ndarray
    codes: np.ndarray
    skills: np.ndarray | None = None
    confusion: np.ndarray | None = None
    iterations: int = 0

    @property
    def labels(self) -> np.ndarray:
        """``(items,)`` each item's label value."""
        return np.asarray(self.table.classes[self.codes])

    def rows(self) -> list[tuple[str, str, int]]:
        """``(topic, doc, label)`` per item, in the table's item order."""
        return [(str(t), str(d), int(g)) for t, d, g in
                zip(self.table.topics, self.table.docs, self.labels, strict=True)]
