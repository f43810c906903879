"""Per-evaluation arrays shared by all measures, computed once and lazily.

Every measure is vectorised over all topics at once. Rows are the ranked
documents of all evaluated topics back to back (topic ``t`` owns rows
``offsets[t]:offsets[t+1]``), so per-topic sums are ``np.bincount`` over the
row's topic index: it adds in row order, which is rank order, so sums match
trec_eval's C loops bit for bit.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np
import numpy.typing as npt

from relkit.metrics.core.record import Record
from relkit.metrics.ranking import JudgedTopics, Ranked

# Integer arrays (row and topic positions, counts), of any width. Typed as such, numpy's
# stubs resolve `values[positions]` to an array; an untyped index array gives Any.
Ints = npt.NDArray[np.integer]


def segment_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Cumulative sum restarting at each segment, summed sequentially.

    A global cumsum minus each segment's base would be cheaper but not exact;
    sequential sums keep results identical to trec_eval's running totals.

    Parameters
    ----------
    values : numpy.ndarray
        The rows of every segment, back to back.
    offsets : numpy.ndarray
        Segment ``t`` is ``values[offsets[t]:offsets[t + 1]]``; ``offsets[0] == 0``
        and ``offsets[-1] == len(values)``.

    Returns
    -------
    numpy.ndarray
        Same length as ``values``: the running total within each segment.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.measures.context import segment_cumsum
    >>> segment_cumsum(np.array([1.0, 2.0, 3.0, 4.0, 5.0]), np.array([0, 2, 5]))
    array([ 1.,  3.,  3.,  7., 12.])
    """
    n = np.diff(offsets)
    total = len(values)
    if total == 0:
        return values.astype(np.float64, copy=True)
    width = int(n.max())
    if len(n) * width == total:          # every segment equally long: a plain reshape
        return np.cumsum(values.reshape(len(n), width), axis=1).ravel()
    if len(n) * width <= 4 * total + 1024:
        grid = np.zeros((len(n), width), dtype=values.dtype)
        mask = np.arange(width)[None, :] < n[:, None]
        grid[mask] = values
        return np.cumsum(grid, axis=1)[mask]
    out = np.empty_like(values)
    for t in range(len(n)):
        a, b = offsets[t], offsets[t + 1]
        np.cumsum(values[a:b], out=out[a:b])
    return out


class Ctx(Record):
    """Evaluation context: one run against prepared qrels with options."""

    ranked: Ranked
    judged: JudgedTopics
    level: int = 1                 # -l: minimum grade that counts as relevant
    num_docs: int = 0              # -N: documents in the collection
    compat: int = 10               # 10 or 9: trec_eval version to match

    @property
    def T(self) -> int:
        return len(self.ranked.topics)

    @property
    def offsets(self) -> Ints:
        return self.ranked.offsets

    @property
    def rel(self) -> np.ndarray:
        return self.ranked.rel

    @cached_property
    def n(self) -> Ints:
        """Documents retrieved per topic (after -M and -J)."""
        return np.diff(self.offsets)

    @cached_property
    def starts(self) -> Ints:
        return self.offsets[:-1]

    @cached_property
    def tid(self) -> Ints:
        """Topic index of each row."""
        return np.repeat(np.arange(self.T, dtype=np.int32), self.n)

    @cached_property
    def pos(self) -> Ints:
        """0-based rank of each row within its topic."""
        pos = np.arange(len(self.rel), dtype=np.int64)
        pos -= self.starts[self.tid]
        return pos

    @cached_property
    def rank(self) -> np.ndarray:
        return (self.pos + 1).astype(np.float64)

    @property
    def codes(self) -> Ints:
        """Per evaluated topic: its index in ``judged.topics``."""
        return self.ranked.topic_codes

    @cached_property
    def levels(self) -> Ints:
        """Per evaluated topic: counts of qrels documents at each grade >= 0."""
        return self.judged.levels[self.codes]

    @cached_property
    def R(self) -> Ints:
        """num_rel: judged documents with grade >= level."""
        return self.judged.num_rel(self.level)[self.codes]

    @cached_property
    def num_nonrel(self) -> Ints:
        """Judged documents with 0 <= grade < level."""
        below: Ints = self.levels[:, : max(self.level, 0)].sum(axis=1)  # stubs: Any
        return below

    @cached_property
    def is_rel(self) -> np.ndarray:
        return self.rel >= self.level

    @cached_property
    def rel_prefix(self) -> Ints:
        """Padded global prefix count of relevant rows (``[0] + cumsum``)."""
        return np.concatenate(([0], np.cumsum(self.is_rel, dtype=np.int64)))

    @cached_property
    def cum_rel(self) -> Ints:
        """Relevant rows at or above each row, within its topic."""
        p = self.rel_prefix
        return p[1:] - p[self.starts][self.tid]

    @cached_property
    def num_rel_ret(self) -> Ints:
        p = self.rel_prefix
        return p[self.offsets[1:]] - p[self.starts]

    def rel_in_top(self, k: int | np.ndarray) -> np.ndarray:
        """Relevant documents among the first ``k`` of each topic."""
        depth = np.minimum(k, self.n)
        p = self.rel_prefix
        return p[self.starts + depth] - p[self.starts]

    def count_in_top(self, mask: np.ndarray, k: int) -> np.ndarray:
        """Rows with ``mask`` among the first ``k`` of each topic."""
        sel = mask & (self.pos < k)
        return np.bincount(self.tid[sel], minlength=self.T)

    def topic_sum(self, values: np.ndarray, where: np.ndarray | None = None) -> np.ndarray:
        """Per-topic sum, accumulated in rank order."""
        if where is None:
            return np.bincount(self.tid, weights=values, minlength=self.T)
        return np.bincount(self.tid[where], weights=values[where], minlength=self.T)

    def at_depth(self, cumulative: np.ndarray, depth: np.ndarray) -> np.ndarray:
        """Per topic, a row-wise cumulative value after ``depth`` rows (0 if 0)."""
        depth = np.minimum(depth, self.n)
        idx = self.starts + depth - 1
        out = np.zeros(self.T)
        ok = depth > 0
        out[ok] = cumulative[idx[ok]]
        return out

    @cached_property
    def rel_rows(self) -> Ints:
        """Indices of the relevant rows, in rank order."""
        return np.flatnonzero(self.is_rel)

    @cached_property
    def rel_tid(self) -> Ints:
        return self.tid[self.rel_rows]

    def count_through(self, mask: np.ndarray, rows: Ints) -> np.ndarray:
        """For each of ``rows``: rows of its topic up to and including it with ``mask``."""
        p = np.concatenate(([0], np.cumsum(mask, dtype=np.int64)))
        return p[rows + 1] - p[self.starts[self.tid[rows]]]

    @cached_property
    def precision_at_rel(self) -> np.ndarray:
        """Precision at each relevant row, in row order (rel rows only)."""
        rows = self.rel_rows
        return self.cum_rel[rows] / (self.pos[rows] + 1.0)


def seq_sum(values: np.ndarray | list[float]) -> float:
    """Left-to-right float sum, as C's ``sum += x`` loop computes it.

    ``np.sum`` sums pairwise and ``math.fsum`` compensates; either can differ
    from trec_eval in the last bit, which may flip a 4th decimal. ``np.cumsum``
    accumulates one element at a time.

    Parameters
    ----------
    values : numpy.ndarray or list of float

    Returns
    -------
    float
        The sum; 0.0 for no values.

    Examples
    --------
    >>> import math
    >>> from relkit.metrics.measures.context import seq_sum
    >>> seq_sum([0.1, 0.2, 0.3]), math.fsum([0.1, 0.2, 0.3])
    (0.6000000000000001, 0.6)
    >>> seq_sum([])
    0.0
    """
    arr = np.asarray(values, dtype=np.float64)
    return float(np.cumsum(arr)[-1]) if arr.size else 0.0


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """``num / den`` with 0 where ``den`` is 0 (trec_eval's convention).

    Parameters
    ----------
    num, den : numpy.ndarray
        Broadcastable arrays.

    Returns
    -------
    numpy.ndarray
        float64 quotients, 0 where ``den == 0``.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.measures.context import safe_div
    >>> safe_div(np.array([1, 2, 0]), np.array([4, 0, 0]))
    array([0.25, 0.  , 0.  ])
    """
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape)
    np.divide(num, den, out=out, where=den != 0)
    return out
