"""A depth pool kept as arrays until someone asks for its entries.

:func:`relkit.pooling.depth.depth_pool` ends with every (topic, doc, run, rank)
row sorted in pool-file order. Turning 400k of those into :class:`PoolEntry`
objects, then each back into a line of text, was two thirds of ``relkit pool
--strategy depth``'s time on 100 runs (bench/pool_bench.py). A
:class:`Columns` keeps the sorted rows; :class:`relkit.pooling.pool.Pool` builds
entries from it only when they are read, and writes the file straight from it
with Arrow's string kernels: the same bytes as the entry-by-entry writer
(tests/test_pool_fast_path.py holds them identical).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from relkit.pooling.pool import PoolEntry


def _arrow_ints(values: np.ndarray) -> pa.Array:
    # From the buffer, not pa.array: pyarrow's first numpy conversion imports pandas.
    v = np.ascontiguousarray(values, dtype=np.int64)
    return pa.Array.from_buffers(pa.int64(), len(v), [None, pa.py_buffer(v)])


def _strings(values: list[str]) -> pa.Array:
    """Python strings as an Arrow string array, from its buffers (no pa.array: above)."""
    data = [v.encode("utf-8", "surrogateescape") for v in values]
    offsets = np.zeros(len(data) + 1, dtype=np.int32)
    np.cumsum([len(b) for b in data], out=offsets[1:])
    return pa.Array.from_buffers(pa.string(), len(data), [None, pa.py_buffer(offsets),
                                                          pa.py_buffer(b"".join(data))])


def _constant(text: str, n: int) -> pa.Array:
    """``n`` copies of ``text``: the separators of Arrow's join kernels, as an array
    (a Python string there becomes a pa.scalar, whose conversion imports pandas too)."""
    b = text.encode()
    offsets = (np.arange(n + 1, dtype=np.int32) * len(b)).astype(np.int32)
    return pa.Array.from_buffers(pa.string(), n, [None, pa.py_buffer(offsets),
                                                  pa.py_buffer(b * n)])


@dataclass(frozen=True)
class Columns:
    """Sorted pool rows: one per (entry, run that retrieved it), in file order.

    ``starts[i]`` is the first row of entry ``i``; ``topic[i]`` and ``doc[i]`` its
    ids (indices into ``topics`` and ``docs``); each row's run (index into
    ``runs``) and rank.
    """

    topics: list[str]
    docs: list[str]
    runs: list[str]
    topic: np.ndarray
    doc: np.ndarray
    starts: np.ndarray
    run: np.ndarray
    rank: np.ndarray

    def __len__(self) -> int:
        return len(self.starts)

    def best(self) -> np.ndarray:
        return np.minimum.reduceat(self.rank, self.starts) if len(self.starts) else self.rank

    def entries(self) -> tuple[PoolEntry, ...]:
        ends = np.append(self.starts[1:], len(self.rank)).tolist()
        prio = (1.0 / self.best()).tolist()
        prov = list(zip([self.runs[j] for j in self.run.tolist()], self.rank.tolist(),
                        strict=True))
        topic_of = [self.topics[i] for i in self.topic.tolist()]
        doc_of = [self.docs[i] for i in self.doc.tolist()]
        return tuple(PoolEntry(t, d, p, tuple(prov[a:b])) for t, d, p, a, b in
                     zip(topic_of, doc_of, prio, self.starts.tolist(), ends, strict=True))

    def sizes(self) -> dict[str, int]:
        ids, counts = np.unique(self.topic, return_counts=True)
        return {self.topics[i]: int(n) for i, n in zip(ids.tolist(), counts.tolist(),
                                                       strict=True)}

    def lines(self) -> bytes:
        """The pool file's entry lines, each ending in a newline (UTF-8)."""
        if not len(self.starts):
            return b""
        rows, n = len(self.rank), len(self.starts)
        run = _strings(self.runs).take(_arrow_ints(self.run))
        rank = pc.cast(_arrow_ints(self.rank), pa.string())
        items = pc.binary_join_element_wise(run, rank, _constant(":", rows))
        offsets = np.append(self.starts, rows).astype(np.int32)
        prov = pc.binary_join(pa.ListArray.from_arrays(
            pa.Array.from_buffers(pa.int32(), len(offsets), [None, pa.py_buffer(offsets)]),
            items), _constant(",", n))
        best = self.best()
        # repr of the float priority, as the entry writer prints it (reads back exactly):
        # one string per rank up to the largest best rank, no np.unique's sort of every
        # entry. That list is never longer than the pool: a document whose best rank is
        # k comes with the k - 1 documents its run ranked above it, all entries.
        prio = _strings([repr(1.0 / k) if k else "" for k in range(int(best.max()) + 1)]
                        ).take(_arrow_ints(best))
        topic = _strings(self.topics).take(_arrow_ints(self.topic))
        doc = _strings(self.docs).take(_arrow_ints(self.doc))
        tab = _constant("\t", n)
        line = pc.binary_join_element_wise(topic, doc, prio, prov, tab)
        line = pc.binary_join_element_wise(line, _constant("", n), _constant("\n", n))
        if isinstance(line, pa.ChunkedArray):
            line = line.combine_chunks()
        offs = np.frombuffer(line.buffers()[1], dtype=np.int32, count=len(line) + 1,
                             offset=4 * line.offset)
        data: bytes = line.buffers()[2].to_pybytes()
        return data[int(offs[0]):int(offs[-1])]
