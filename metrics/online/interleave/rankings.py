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


@dataclass
class Rankings:
    """``queries[i]`` is row ``i`` of every matrix; ``vocab[c]`` the docno of code ``c``."""

    queries: list[str]
    vocab: pa.Array
    mats: list[np.ndarray]
    names: list[str]


def load_rankings(paths: list[str | os.PathLike[str]], width: int) -> Rankings:
    """Read TREC runs and keep each query's top ``width`` documents as codes.

    Raises the run reader's errors (:class:`~relkit.metrics.errors.FormatError` naming
    file and line; a document twice in a query's kept documents is an error).
    """
    import pyarrow as pa
    import pyarrow.compute as pc

    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.ranking import JudgedTopics, column_values, rank, topic_order

    runs = [Run.read(p) for p in paths]
    topics: set[str] = set()
    for run in runs:
        topics.update(column_values(run.column("query_id")))
    queries = topic_order(list(topics))
    fake = Qrels({"query_id": queries, "doc_id": [""] * len(queries),
                  "relevance": np.zeros(len(queries), dtype=np.int64)})
    judged = JudgedTopics.prepare(fake)
    ranked = [rank(run, judged, max_docs=width, complete=True) for run in runs]
    if all(isinstance(r.source_docs, np.ndarray) for r in ranked):
        # fixed-width bytes (the small-input reader): encode in numpy, decode only the
        # distinct documents
        from relkit.metrics import io as _io

        allb = np.concatenate([r.source_docs[r.rows] for r in ranked])
        uniq, inverse = np.unique(allb, return_inverse=True)
        vocab = pa.array(_io.decode(uniq), pa.string())
        codes = np.asarray(inverse, dtype=np.int64).ravel()
    else:
        docs = [r.docs for r in ranked]
        joined = pa.chunked_array([d.cast(pa.string()) for d in docs], pa.string())
        encoded = pc.dictionary_encode(joined).combine_chunks()
        codes = np.asarray(encoded.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
        vocab = encoded.dictionary
    mats: list[np.ndarray] = []
    start = 0
    Q = len(queries)
    for r in ranked:
        n = len(r.rows)
        counts = np.diff(r.offsets)
        row = np.repeat(np.arange(Q), counts)
        col = np.arange(n) - np.repeat(r.offsets[:-1], counts)
        m = np.full((Q, width), -1, dtype=np.int64)
        m[row, col] = codes[start:start + n]
        mats.append(m)
        start += n
    return Rankings(queries, vocab, mats, [r.run_id for r in ranked])
