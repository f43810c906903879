"""Qrels prepared once for many runs, and the grade of each ranked row.

Relevance per ranked row: the qrels grade, :data:`NONPOOL` (-1) for a document
not in the qrels, :data:`UNJUDGED` (-2) for a negative qrels grade ("unjudged in
pool"). The order of the rows is :mod:`relkit.metrics.ranking`'s.

The hashing helpers are called through their module (``pairs.pair_hash``), so that a
test swapping in a hash that collides on purpose reaches every lookup.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics import pairs
from relkit.metrics.data import Qrels
from relkit.metrics.errors import DuplicateDocumentError, EvaluationError, FormatError
from relkit.metrics.id_columns import (
    Strings,
    _value,
    codes_of,
    column_values,
    id_strings,
    topic_order,
)
from relkit.metrics.readers import io as _io
from relkit.metrics.readers._arrow import to_np
from relkit.metrics.readers.grades import is_judged

if TYPE_CHECKING:
    import pyarrow as pa

# Codes of a ranked row, not qrels grades: outside the qrels, and in it without a
# judgment (a grade that is not one by the rule of relkit.metrics.readers.grades).
NONPOOL = -1
UNJUDGED = -2

# Cap on the topics x grades table of counts (8 bytes each: 256 MiB).
MAX_LEVEL_CELLS = 2**25


class JudgedTopics:
    """Qrels prepared once for many runs (trec_eval's per-topic REL_INFO).

    A plain class, not a dataclass: generating a dataclass's methods costs a
    millisecond at import, on a command that starts in about 0.15 s.
    """

    def __init__(self, qrels: Qrels, topics: list[str], index: dict[str, int],
                 q: np.ndarray, docs: Strings, rel: np.ndarray, levels: np.ndarray) -> None:
        self.qrels = qrels
        self.topics = topics             # strcmp order
        self.index = index
        self.q = q                       # int32 topic code of each qrels row
        self.docs = docs                 # docno of each qrels row
        self.rel = rel                   # int64 grade of each qrels row
        self.levels = levels             # T x (max_level + 1) counts of non-negative grades

    def __repr__(self) -> str:
        return f"JudgedTopics({len(self.topics)} topics, {len(self.q)} judgments)"

    @classmethod
    def prepare(cls, qrels: Qrels) -> JudgedTopics:
        qid = id_strings(qrels.column("query_id"))
        topics = topic_order(column_values(qid))
        index = {t: i for i, t in enumerate(topics)}
        q = codes_of(qid, index)
        docs = id_strings(qrels.column("doc_id"))
        # (Keeping these hashes for the lookup keys would save ~0.15 s CPU at 2M
        # judgments, but holding them while a 10M-line run is read raised the peak RSS
        # by ~100 MiB, to the 1 GiB limit: they are recomputed in _sorted_keys.)
        dup = pairs._first_duplicate(q, docs)
        if dup is not None:
            row = dup[1]
            raise DuplicateDocumentError(qrels.source, qrels.line_of(row), topics[q[row]],
                                         _value(docs, row))
        rel = np.asarray(to_np(qrels.column("relevance")), dtype=np.int64)
        bad = np.flatnonzero((rel < _io.GRADE_MIN) | (rel > _io.GRADE_MAX))
        if len(bad):   # a frame or dict built in Python, not read from a file
            row = int(bad[0])
            raise FormatError(qrels.source, qrels.line_of(row), _io.GRADE_EXPECTED,
                              repr(str(rel[row])))
        top = int(rel.max()) if len(rel) and rel.max() > 0 else 0
        if len(topics) * (top + 1) > MAX_LEVEL_CELLS:
            # Measures count judged documents per topic and grade (ideal DCG needs them):
            # a table of topics x (top grade + 1) cells. Grades are levels (0-4, 0-100):
            # refuse what would take gigabytes rather than be killed for memory.
            raise EvaluationError(
                f"{qrels.source}: grades up to {top} over {len(topics)} topics need "
                f"{len(topics) * (top + 1):,} counts; relkit supports up to "
                f"{MAX_LEVEL_CELLS:,} (grades are relevance levels, such as 0-4)")
        ok = rel >= 0
        # counts per (topic, grade) cell: bincount over the flat cell index (a quarter
        # of np.add.at's time on 2M judgments; the same integers)
        cells = q[ok].astype(np.int64) * (top + 1) + rel[ok]
        levels = np.bincount(cells, minlength=len(topics) * (top + 1)).astype(
            np.int64, copy=False).reshape(len(topics), top + 1)
        return cls(qrels, topics, index, q, docs, rel, levels)

    @cached_property
    def table(self) -> pa.Table:
        """``q`` (topic code), ``d`` (docno), ``rel``: what an Arrow run joins against."""
        import pyarrow as pa

        docs = self.docs
        if isinstance(docs, np.ndarray):
            docs = pa.array(_io.decode(docs), pa.string())
        return pa.table({"q": self.q, "d": docs, "rel": self.rel})

    @cached_property
    def _bytes_docs(self) -> np.ndarray | None:
        """The docnos as fixed-width bytes (None if that form cannot hold them)."""
        if isinstance(self.docs, np.ndarray):
            return self.docs
        return _io.as_bytes(self.docs.to_pylist())

    @cached_property
    def _exact(self) -> dict[tuple[int, str], int]:
        """``(topic code, docno) -> grade``, for the rare lookups hashes cannot settle."""
        docs = self.docs if not isinstance(self.docs, np.ndarray) else None
        names = _io.decode(self.docs) if docs is None else docs.to_pylist()
        return dict(zip(zip(self.q.tolist(), names, strict=True), self.rel.tolist(),
                        strict=True))

    def _sorted_keys(self, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The qrels docnos at ``width`` bytes, their
        :func:`~relkit.metrics.pairs._topic_keys` sorted, and the order that sorts
        them (cached per width)."""
        cache = self.__dict__.setdefault("_key_cache", {})
        if width not in cache:
            assert self._bytes_docs is not None
            mine = self._bytes_docs.astype(f"S{width}", copy=False)
            h = pairs.pair_hash(mine, self.q)
            order = pairs.grouped_order(h, self.q)
            if order is None:
                order = np.argsort(pairs._topic_keys(self.q, h, len(self.topics)))
            keys = pairs._topic_keys(self.q[order], h[order], len(self.topics))
            cache[width] = mine, keys, order
        found: tuple[np.ndarray, np.ndarray, np.ndarray] = cache[width]
        return found

    def grades_and_duplicate(self, q: np.ndarray, docs: np.ndarray, source: np.ndarray
                             ) -> tuple[np.ndarray, tuple[int, int] | None]:
        """For ranked rows of a bytes column (``q`` non-decreasing): the relevance
        of each ``(q, doc)`` for ranking (the qrels grade, :data:`UNJUDGED` for a
        negative one, :data:`NONPOOL` if not in the qrels), and the first repeated
        pair as rows of ``source`` (see :func:`~relkit.metrics.pairs._first_duplicate`).

        One hash per pair and one sort per topic serve both: repeated pairs are
        neighbours in that order, and its keys, ascending, are looked up in the
        qrels' own sorted keys.
        """
        out = np.full(len(q), NONPOOL, dtype=np.int64)
        if not len(q):
            return out, None
        mine = self._bytes_docs
        if mine is not None:
            width = max(mine.dtype.itemsize, docs.dtype.itemsize)
            docs = docs.astype(f"S{width}", copy=False)
        h = pairs.pair_hash(docs, q)
        order = pairs.grouped_order(h, q)           # ranked rows: one block per topic
        assert order is not None
        hs = h[order]
        dup = pairs._repeated_pair(q, docs, order, hs, source)
        if mine is None:                             # qrels ids bytes cannot hold
            unsettled = np.arange(len(q))
        else:
            mine, keys, q_order = self._sorted_keys(width)
            unsettled = np.zeros(0, np.int64)
            if len(keys):
                wanted = pairs._topic_keys(q[order], hs, len(self.topics))     # ascending
                # only the keys between the first and last wanted one can be found
                # (a chunk's topics are a slice of the qrels' keys): the same
                # positions, from a shorter search
                lo = int(np.searchsorted(keys, wanted[0]))
                hi = int(np.searchsorted(keys, wanted[-1], side="right"))
                at = np.minimum(np.searchsorted(keys[lo:hi], wanted) + lo, len(keys) - 1)
                cand = np.flatnonzero(keys[at] == wanted)
                rows, j = order[cand], q_order[at[cand]]
                ok = (self.q[j] == q[rows]) & (mine[j] == docs[rows])
                g = self.rel[j[ok]]
                out[rows[ok]] = np.where(is_judged(g), g, UNJUDGED)
                unsettled = rows[~ok]                # a key shared with another pair
        if len(unsettled):
            exact = self._exact
            for r in unsettled.tolist():
                g = exact.get((int(q[r]), _value(docs, r)))
                if g is not None:
                    out[r] = g if is_judged(g) else UNJUDGED
        return out, dup

    @cached_property
    def _by_topic(self) -> tuple[np.ndarray, np.ndarray]:
        """Row order grouping the qrels by topic, and each topic's offsets."""
        order = np.argsort(self.q, kind="stable")
        offsets = np.concatenate(([0], np.cumsum(np.bincount(self.q,
                                                              minlength=len(self.topics)))))
        return order, offsets

    def for_topics(self, codes: np.ndarray) -> pa.Table:
        """The judgments of the topics ``codes`` only (what a chunk joins against)."""
        import pyarrow as pa

        codes = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(self.topics)))
        if len(codes) == len(self.topics):
            return self.table
        order, offsets = self._by_topic
        lens = offsets[codes + 1] - offsets[codes]
        start = np.repeat(offsets[codes] - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        rows = order[start + np.arange(int(lens.sum()))]
        return self.table.take(pa.array(rows))

    def num_rel(self, level: int) -> np.ndarray:
        """Per topic: qrels documents with grade >= ``level`` (negatives never count)."""
        lo = max(level, 0)
        counts: np.ndarray = self.levels[:, lo:].sum(axis=1)
        return counts
