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

    from relkit.metrics import io as _io

    if isinstance(column, np.ndarray):
        return pa.array(_io.decode(column), pa.string())
    if isinstance(column, pa.ChunkedArray):
        column = column.combine_chunks()
    arr = column.cast(pa.string()) if isinstance(column, pa.Array) else pa.array(column)
    return arr.dictionary_decode() if pa.types.is_dictionary(arr.type) else arr


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

    from relkit.metrics._arrow import to_np
    from relkit.metrics.data import Run
    from relkit.metrics.errors import DuplicateDocumentError
    from relkit.metrics.ranking import _order

    if runs is None:
        runs = [Run.read(p) for p in paths]
    # topics: one dictionary over every run, in byte order (C code, no Python loop)
    qcols = [_strings(r.column("query_id")) for r in runs]
    enc = pc.dictionary_encode(pa.concat_arrays(qcols))
    sort = np.asarray(pc.array_sort_indices(enc.dictionary).to_numpy(), dtype=np.int64)
    rank_of = np.empty(len(sort), dtype=np.int64)
    rank_of[sort] = np.arange(len(sort))
    q_all = rank_of[np.asarray(enc.indices.to_numpy(zero_copy_only=False), dtype=np.int64)]
    queries = enc.dictionary.take(pa.array(sort))
    Q = len(queries)
    kept_docs: list[pa.Array] = []
    kept: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    start = 0
    for run, qc in zip(runs, qcols, strict=True):
        n = len(qc)
        q = q_all[start:start + n]
        start += n
        scores = np.asarray(to_np(run.column("score")), dtype=np.float64)
        docs = run.column("doc_id")
        # score descending, ties by docno descending: trec_eval's order (relkit eval's)
        order = _order(q, scores, docs)
        qs = q[order]
        counts = np.bincount(qs, minlength=Q)
        first = np.concatenate(([0], np.cumsum(counts)[:-1]))
        at = np.arange(len(qs)) - first[qs]
        keep = at < width
        rows = order[keep]
        kept.append((qs[keep], at[keep], rows))
        kept_docs.append(_strings(docs).take(pa.array(rows)))
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
