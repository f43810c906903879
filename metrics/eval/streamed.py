"""``relkit eval`` on a large run file read while it is evaluated.

The run's blocks are parsed in a worker thread
(:mod:`relkit.metrics.readers.run_stream`) and its topics evaluated as their rows
are complete (:func:`relkit.metrics.topic_chunks.streamed_topic_chunks`): the same
chunks of whole topics, ranking and measures as :meth:`Evaluator.compute
<relkit.metrics.evaluator.Evaluator.compute>` after reading the whole file, so every
value is the same. Whatever the stream refuses (an irregular line, a topic in two
places) is left to that path: :func:`compute_streamed` returns None and nothing it did
is kept, so results and errors never depend on the path.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING

from relkit.metrics.readers.io import is_large

if TYPE_CHECKING:

    from relkit.metrics.evaluator import Evaluator, Result, ZTable
    from relkit.metrics.readers.run_stream import RunStream


def early_stream(path: os.PathLike[str] | str, *, engine: str, complete: bool) -> RunStream | None:
    """The stream of a run ``compute_streamed`` will read, already parsing (while the
    qrels are read and prepared), or None when it will not stream that run."""
    if engine != "local" or complete or not is_large(path):
        return None     # (and the stream's module, its threads and queues, not imported)
    from relkit.metrics.readers.run_stream import open_run_stream

    stream = open_run_stream(path)
    if stream is not None:
        stream.start()
    return stream


def compute_streamed(ev: Evaluator, path: os.PathLike[str] | str, zscores: ZTable | None = None,
                     progress: Callable[[int, int], None] | None = None,
                     stream: RunStream | None = None) -> Result | None:
    """``ev.compute(Run.read(path, eval_only=True), zscores, progress)``, reading while
    evaluating (``stream``: ``path``'s, from :func:`early_stream`); None when ``path``
    must be read whole first (``-c``, which adds the qrels topics the run lacks, is left
    to that path too)."""
    if ev.engine != "local" or ev.complete or not is_large(path):
        return None
    from relkit.metrics.readers.run_stream import NotStreamable, open_run_stream

    if stream is None:
        stream = open_run_stream(path)
    if stream is None:
        return None
    from relkit.metrics.errors import EvaluationError
    from relkit.metrics.evaluator import CHUNK_ROWS
    from relkit.metrics.topic_chunks import streamed_topic_chunks

    blocks = iter(stream)
    chunks = streamed_topic_chunks(blocks, ev.judged, CHUNK_ROWS, stream.source,
                                   stream.run_id)
    try:
        topics, _codes, missing, values = ev.per_chunk(
            chunks, stream.run_id, single=False, progress=progress,
            total=stream.rows_estimate, release=False)   # (61-64k page faults, not 80-90k)
    except NotStreamable:
        return None
    finally:
        chunks.close()
        blocks.close()     # the reader thread is joined here, not when collected
    if not topics:
        raise EvaluationError(
            f"{stream.source}: no topic has both run lines and judgments in {ev.qrels.source}")
    return ev.finish(stream.run_id, topics, missing, values, zscores)
