"""A large run as runs of whole topics, a group at a time: the working memory's bound.

Measures are per topic, so a run split between topics gives the same values chunk by
chunk. The chunk size is the caller's (:data:`relkit.metrics.evaluator.CHUNK_ROWS`).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.id_columns import codes_of, distinct

if TYPE_CHECKING:  # type names only
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
