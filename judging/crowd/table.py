"""The input of every aggregation method: a label table as integer codes.

One row per label given: (item, worker, label). Items are (topic, doc) pairs,
workers are names, labels are integer grades. A worker who labelled the same
item twice gives two rows, each counted as a vote (as crowd-kit counts them).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from relkit.judging.crowd.errors import CrowdError

if TYPE_CHECKING:
    import pandas as pd

__all__ = ["CrowdError", "LabelTable"]


@dataclass(frozen=True)
class LabelTable:
    """Labels as codes: ``item[r]``, ``worker[r]``, ``label[r]`` for each row ``r``.

    Attributes
    ----------
    item, worker, label
        ``(n,)`` int64 codes into ``topics/docs``, ``workers`` and ``classes``.
    topics, docs
        ``(items,)`` the (topic, doc) pair of each item code, as str objects.
    workers
        ``(workers,)`` worker names, sorted.
    classes
        ``(k,)`` the label values seen, ascending; class code ``c`` is ``classes[c]``.
    """

    item: np.ndarray
    worker: np.ndarray
    label: np.ndarray
    topics: np.ndarray
    docs: np.ndarray
    workers: np.ndarray
    classes: np.ndarray

    @property
    def n_items(self) -> int:
        return len(self.topics)

    @property
    def n_workers(self) -> int:
        return len(self.workers)

    @property
    def k(self) -> int:
        return len(self.classes)

    def __len__(self) -> int:
        return len(self.item)

    @classmethod
    def from_columns(cls, topics: Sequence[str] | np.ndarray, docs: Sequence[str] | np.ndarray,
                     workers: Sequence[str] | np.ndarray, labels: Sequence[int] | np.ndarray
                     ) -> LabelTable:
        """Code the columns of a long table (one entry per label given)."""
        import pandas as pd

        n = len(labels)
        if not (len(topics) == len(docs) == len(workers) == n):
            raise CrowdError("topic, doc, worker and label columns differ in length")
        if n == 0:
            raise CrowdError("no labels to aggregate")
        t_codes, t_names = pd.factorize(np.asarray(topics, dtype=object), sort=True)
        d_codes, d_names = pd.factorize(np.asarray(docs, dtype=object), sort=True)
        key = t_codes.astype(np.int64) * len(d_names) + d_codes
        uniq, item = np.unique(key, return_inverse=True)
        w_codes, w_names = pd.factorize(np.asarray(workers, dtype=object), sort=True)
        classes, label = np.unique(np.asarray(labels, dtype=np.int64), return_inverse=True)
        return cls(item.astype(np.int64), w_codes.astype(np.int64), label.astype(np.int64),
                   np.asarray(t_names, dtype=object)[uniq // len(d_names)],
                   np.asarray(d_names, dtype=object)[uniq % len(d_names)],
                   np.asarray(w_names, dtype=object), classes)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame) -> LabelTable:
        """From a long frame with ``assessor, topic, doc, grade`` columns."""
        missing = [c for c in ("assessor", "topic", "doc", "grade") if c not in frame.columns]
        if missing:
            raise CrowdError(f"the labels need columns assessor, topic, doc, grade; "
                             f"missing {missing}")
        return cls.from_columns(frame["topic"].to_numpy(), frame["doc"].to_numpy(),
                                frame["assessor"].to_numpy(), frame["grade"].to_numpy())

    def counts(self) -> np.ndarray:
        """``(items, k)`` how many labels of each class each item got."""
        flat = np.bincount(self.item * self.k + self.label, minlength=self.n_items * self.k)
        return flat.reshape(self.n_items, self.k).astype(np.float64)
