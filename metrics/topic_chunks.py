"""A large run as runs of whole topics, a group at a time: the working memory's bound.
A large run file read in blocks gives its chunks as its blocks arrive
(:func:`streamed_topic_chunks`).

Measures are per topic, so a run split between topics gives the same values chunk by
chunk. The chunk size is the caller's (:data:`relkit.metrics.evaluator.CHUNK_ROWS`).
"""

from __future__ import annotations

from collections.abc import Generator, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.id_columns import codes_of, distinct

if TYPE_CHECKING:  # type names only
    import pyarrow as pa

    from relkit.metrics.data import Run
    from relkit.metrics.judged import JudgedTopics


def whole_topic_chunks(run: Run, judged: JudgedTopics, size: int
                  ) -> Iterator[tuple[Run, np.ndarray | None]]:
    """Split ``run`` into runs of whole topics with about ``size`` rows each.

    When every topic's rows are contiguous (as systems write runs) the chunks
    are zero-copy slices; otherwise rows are gathered topic by topic.
    """
    n = len(run)
    if n <= size:
        yield run, None
        return
    codes = codes_of(run.column("query_id"), judged.index)
    change = np.flatnonzero(codes[1:] != codes[:-1]) + 1
    contiguous = distinct(codes[np.concatenate(([0], change))])
    if contiguous:
        order = None
        bounds = change
    else:
        order = np.argsort(codes, kind="stable")       # groups topics, keeps input order
        sorted_codes = codes[order]
        bounds = np.flatnonzero(sorted_codes[1:] != sorted_codes[:-1]) + 1
    start = 0
    while start < n:
        at = np.searchsorted(bounds, start + size)
        stop = int(bounds[at]) if at < len(bounds) else n
        if order is None:
            yield run.rows(slice(start, stop)), codes[start:stop]
        else:
            idx = order[start:stop]
            yield run.rows(idx), codes[idx]
        start = stop


def streamed_topic_chunks(blocks: Iterable[pa.Table], judged: JudgedTopics, size: int,
                          source: str, run_id: str
                          ) -> Generator[tuple[Run, np.ndarray], None, None]:
    """Runs of whole topics, about ``size`` rows each, from a run's ``blocks`` in file
    order (:class:`relkit.metrics.readers.run_stream.RunStream`) as they arrive.

    A block's last topic may go on in the next block, so it waits for the next chunk.
    Row ``i`` of the stream is line ``i + 1`` of ``source``. A topic whose rows are
    not contiguous (a judged topic met again after another one) raises
    :class:`~relkit.metrics.readers.run_stream.NotStreamable`: its rows would be in two
    chunks, and :func:`whole_topic_chunks` gathers them.
    """
    import pyarrow as pa

    from relkit.metrics.data import Run
    from relkit.metrics.readers.run_stream import NotStreamable

    seen = np.zeros(len(judged.topics), bool)

    def chunk(table: pa.Table, codes: np.ndarray, start: int) -> tuple[Run, np.ndarray]:
        heads = codes[np.concatenate(([0], np.flatnonzero(codes[1:] != codes[:-1]) + 1))]
        heads = heads[heads >= 0]          # rows of topics without judgments are dropped
        if not distinct(heads) or seen[heads].any():
            raise NotStreamable(source)
        seen[heads] = True
        lines = np.arange(start + 1, start + 1 + table.num_rows, dtype=np.int64)
        return Run(table, source, lines, run_id), codes

    pending: list[pa.Table] = []
    rows = start = 0               # rows pending; the first one's row in the stream
    for block in blocks:
        pending.append(block)
        rows += block.num_rows
        if rows <= size:
            continue
        table = pa.concat_tables(pending)
        codes = codes_of(table.column("query_id"), judged.index)
        bounds = np.flatnonzero(codes[1:] != codes[:-1]) + 1
        at = 0
        # as whole_topic_chunks cuts: at the first topic bound past `size` rows; the
        # rows after the last bound wait (their topic may go on in the next block)
        while rows - at > size and (cut := np.searchsorted(bounds, at + size)) < len(bounds):
            stop = int(bounds[cut])
            yield chunk(table.slice(at, stop - at), codes[at:stop], start)
            start += stop - at
            at = stop
        pending = [table.slice(at)]
        rows -= at
    if rows:
        table = pa.concat_tables(pending)
        yield chunk(table, codes_of(table.column("query_id"), judged.index), start)


def merge_parts(topics: Sequence[str], n_measures: int, codes_list: list[np.ndarray],
                missing_list: list[np.ndarray], values_list: list[list[Any]]
                ) -> tuple[list[str], np.ndarray, np.ndarray, list[Any]]:
    """The per-topic values of a run's parts (chunks, or a Spark job's buckets of
    topics) as one run's, in the qrels' topic order (``topics``, which each part's
    codes index): the topics, their codes, which have no run line, and one value per
    topic of each of the ``n_measures`` measures (an array, a list of strings, or None).
    """
    codes = np.concatenate(codes_list) if codes_list else np.zeros(0, np.int64)
    order = np.argsort(codes, kind="stable")
    merged: list[Any] = []
    for i in range(n_measures):
        parts_i = [vals[i] for vals in values_list]
        if parts_i[0] is None:
            merged.append(None)
        elif isinstance(parts_i[0], list):
            flat = [x for p in parts_i for x in p]
            merged.append([flat[j] for j in order])
        else:
            merged.append(np.concatenate(parts_i)[order])
    missing = (np.concatenate(missing_list) if missing_list else np.zeros(0, bool))[order]
    return [topics[c] for c in codes[order]], codes[order], missing, merged
