"""Runs as matrices of document codes: the input of the interleaving methods.

Each run is read by relkit's run reader and put into trec_eval's order
(:func:`relkit.metrics.ranking.rank`: score descending, ties by docno descending), the
order ``relkit eval`` scores, so the list interleaved is the list evaluated. The top
``width`` documents of every query become a row of a ``(queries, width)`` matrix of
codes into one shared vocabulary (``-1`` pads; a query missing from a run has an empty
row there). pyarrow and numpy do the work: no Python loop over queries or rows.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

    from relkit.metrics.data import Run


@dataclass
class Rankings:
    """``queries[i]`` is row ``i`` of every matrix; ``vocab[c]`` the docno of code ``c``."""

    queries: pa.Array
    vocab: pa.Array
    mats: list[np.ndarray]
    names: list[str]


def _strings(column: object) -> pa.Array:
    """A run's string column as one Arrow string array."""
    import pyarrow as pa

    from relkit.metrics.readers import io as _io

    if isinstance(column, np.ndarray):
        return pa.array(_io.decode(column), pa.string())
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    arr = column.cast(pa.string()) if isinstance(column, pa.Array) else pa.array(column)
    return arr.dictionary_decode() if pa.types.is_dictionary(arr.type) else arr


@dataclass
class Blocks:
    """A run's rows as blocks of equal topic ids: first row, size, topic code."""

    starts: np.ndarray
    sizes: np.ndarray
    codes: np.ndarray

    def row_codes(self) -> np.ndarray:
        """Each row's topic code."""
        return np.repeat(self.codes, self.sizes)


def _bools(flags: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """An Arrow boolean array as numpy, by unpacking its bit buffer (pyarrow's
    ``to_numpy`` of booleans costs a hundred times more: seconds for ten million)."""
    import pyarrow as pa

    arr = flags.combine_chunks() if isinstance(flags, pa.ChunkedArray) else flags
    if arr.null_count:      # not from two string columns without nulls: the plain way
        return np.asarray(arr.to_numpy(zero_copy_only=False), dtype=bool)
    bits = np.frombuffer(arr.buffers()[1], dtype=np.uint8)
    return np.unpackbits(bits, bitorder="little")[arr.offset:arr.offset + len(arr)].view(bool)


def _topic_codes(columns: list[object]) -> tuple[pa.Array, list[Blocks]]:
    """The topics of every run in byte order (trec_eval's), and each run's blocks.

    Runs keep a topic's rows together: only the first row of each block of equal ids
    is hashed and sorted (a million topics of a hundred rows each: a million strings,
    not a hundred million), then the codes are repeated over the blocks. Blocks of
    the same topic (a run that is not grouped) get the same code.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    heads: list[pa.Array] = []
    sizes: list[np.ndarray] = []
    firsts: list[np.ndarray] = []
    for column in columns:
        col = _strings(column) if isinstance(column, np.ndarray) else column
        n = len(col)  # type: ignore[arg-type]
        if n > 1:
            diff = pc.not_equal(col.slice(1), col.slice(0, n - 1))  # type: ignore[union-attr]
            flags = _bools(diff)
            starts = np.concatenate(([0], np.flatnonzero(flags) + 1))
        else:
            starts = np.zeros(min(n, 1), dtype=np.int64)
        head = col.take(pa.array(starts, pa.int64()))  # type: ignore[union-attr]
        heads.append(head.combine_chunks() if isinstance(head, pa.ChunkedArray) else head)
        sizes.append(np.diff(np.append(starts, n)))
        firsts.append(starts)
    joined = pa.concat_arrays([_strings(h) for h in heads])
    enc = pc.dictionary_encode(joined)
    sort = np.asarray(pc.array_sort_indices(enc.dictionary).to_numpy(), dtype=np.int64)
    rank_of = np.empty(len(sort), dtype=np.int64)
    rank_of[sort] = np.arange(len(sort))
    head_code = rank_of[np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)]
    blocks, start = [], 0
    for head, size, first in zip(heads, sizes, firsts, strict=True):
        blocks.append(Blocks(first, size, head_code[start:start + len(head)]))
        start += len(head)
    return enc.dictionary.take(pa.array(sort)), blocks


def _top_rows(blocks: Blocks, scores: np.ndarray, width: int, n_topics: int
              ) -> tuple[np.ndarray, np.ndarray, np.ndarray] | None:
    """(topic code, rank - 1, row) of each kept row without sorting, when the file's
    order is already trec_eval's: each topic in one block, scores strictly
    decreasing within it (as systems write runs). None otherwise (a topic split in
    two blocks, a score out of order, a tie the docno must break)."""
    if len(blocks.codes) and np.bincount(blocks.codes, minlength=n_topics).max() > 1:
        return None
    start = np.zeros(len(scores), dtype=bool)
    start[blocks.starts] = True
    if not np.all((scores[1:] < scores[:-1]) | start[1:]):
        return None
    k = np.minimum(blocks.sizes, width)
    at = np.arange(int(k.sum())) - np.repeat(np.cumsum(k) - k, k)
    return np.repeat(blocks.codes, k), at, np.repeat(blocks.starts, k) + at


def load_rankings(paths: list[str | os.PathLike[str]], width: int,
                  runs: list[Run] | None = None) -> Rankings:
    """Read TREC runs and keep each query's top ``width`` documents as codes.

    Queries are in trec_eval's order (byte order of their ids). Raises the run reader's
    errors (:class:`~relkit.metrics.errors.FormatError` naming file and line) and
    :class:`~relkit.metrics.errors.DuplicateDocumentError` for a document twice in a
    query's kept documents, as ``relkit eval`` does.
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from relkit.metrics.data import Run
    from relkit.metrics.errors import DuplicateDocumentError
    from relkit.metrics.ranking import row_order
    from relkit.metrics.readers._arrow import to_np

    if runs is None:
        runs = [Run.read(p, eval_only=True) for p in paths]   # the three columns used
    queries, blocks = _topic_codes([r.column("query_id") for r in runs])
    Q = len(queries)
    kept_docs: list[pa.Array] = []
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    for run, blk in zip(runs, blocks, strict=True):
        scores = np.asarray(to_np(run.column("score")), dtype=np.float64)
        docs = run.column("doc_id")
        fast = _top_rows(blk, scores, width, Q)
        if fast is not None:
            kept.append(fast)
            rows = fast[2]
        else:
            q = blk.row_codes()
            # score descending, ties by docno descending: trec_eval's order (relkit eval's)
            order = row_order(q, scores, docs)
            qs = q[order]
            counts = np.bincount(qs, minlength=Q)
            first = np.concatenate(([0], np.cumsum(counts)[:-1]))
            at = np.arange(len(qs)) - first[qs]
            keep = at < width
            rows = order[keep]
            kept.append((qs[keep], at[keep], rows))
        # take the kept rows first: only they are copied into one string array; when
        # every row is kept in file order (runs no deeper than width), no copy at all
        every = len(rows) == len(docs) and np.array_equal(rows, np.arange(len(docs)))
        kept_docs.append(_strings(docs if every else docs[rows] if isinstance(docs, np.ndarray)
                                  else docs.take(pa.array(rows))))
    denc = pc.dictionary_encode(pa.concat_arrays(kept_docs))
    codes = np.asarray(denc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    mats: list[np.ndarray] = []
    start = 0
    for run, (qk, ak, rows) in zip(runs, kept, strict=True):
        m = np.full((Q, width), -1, dtype=np.int64)
        c = codes[start:start + len(rows)]
        start += len(rows)
        m[qk, ak] = c
        # a document twice in a query's kept rows: sort each row, compare neighbours
        srt = np.sort(m, axis=1)
        dup = (srt[:, 1:] == srt[:, :-1]) & (srt[:, 1:] >= 0)
        if dup.any():
            qi, j = np.argwhere(dup)[0]
            doc = int(srt[qi, j + 1])
            hit = rows[(qk == qi) & (c == doc)]
            line = run.line_of(int(np.sort(hit)[1]))
            raise DuplicateDocumentError(run.source, line, str(queries[qi]),
                                         str(denc.dictionary[doc]))
        mats.append(m)
    return Rankings(queries, denc.dictionary, mats, [r.name for r in runs])
