"""A large run file parsed a block at a time in a worker thread, while the caller
evaluates the topics of the blocks before: ``relkit eval``'s overlap of reading and
evaluating.

pyarrow's streaming CSV reader parses one 16 MiB block per call and releases the GIL
while it does, and so do the checks of each block (numpy over the Arrow buffers); the
caller's ranking and measures are numpy too. On two cores the reading then costs
little wall time, and only the blocks in flight are held, not the whole table.

The checks are those of the whole-file fast path
(:func:`relkit.metrics.readers.arrow_reader._fast_table`): the whole file's bytes
before (:func:`~relkit.metrics.readers.arrow_reader.fast_delimiter`), each parsed block
after (empty fields, ``#`` ids, UTF-8, NaN scores). Whatever they refuse, or pyarrow
cannot parse, raises :class:`NotStreamable` (possibly after some blocks were given), and
the caller reads the file the usual way, so results and errors never depend on the path.
"""

from __future__ import annotations

import contextlib
import os
import queue
import threading
from collections.abc import Generator, Iterator
from typing import TYPE_CHECKING, Any

from relkit.metrics.readers import io as _io
from relkit.metrics.readers.arrow_reader import (
    _head,
    _regular,
    _tail_line,
    csv_options,
    fast_delimiter,
    irregular_table,
)
from relkit.metrics.readers.io import _ARROW_TYPES, EVAL_FIELDS, RUN_FIELDS, Source, source_name
from relkit.metrics.readers.io import is_large as is_large  # its home before io
from relkit.metrics.readers.sources import _plain_size

if TYPE_CHECKING:
    import pyarrow as pa

# Parsed blocks waiting for the caller: one being evaluated, this many ready (each
# ~0.5M rows of a TREC run, ~30 MiB with the columns evaluation drops).
AHEAD = 2


# Bytes of the file parsed at a time (whole lines): ~1M lines of a TREC run, one chunk
# of the evaluation (:data:`relkit.metrics.evaluator.CHUNK_ROWS`).
BLOCK_BYTES = 32 << 20


def _line_blocks(fh: Any, size: int) -> Iterator[pa.Buffer]:
    """``fh``'s bytes in blocks of whole lines, each at most ``size`` bytes unless a line
    is longer (the last block may end without a newline).

    Every block is read into the same buffer (a fresh one per block faulted in ~8,000
    pages each time): parse a block before asking for the next. pyarrow's CSV reader
    copies the values it parses, so its tables do not refer to the buffer.
    """
    import pyarrow as pa

    pos, total = 0, fh.size()
    buf = pa.allocate_buffer(min(size, max(total, 1)))
    while pos < total:
        fh.seek(pos)
        block = buf.slice(0, fh.readinto(buf))
        if pos + len(block) < total:
            cut = _last_newline(block)
            if cut < 0:                       # a line longer than the block
                buf = pa.allocate_buffer(2 * len(buf))
                continue
            block = block.slice(0, cut + 1)
        pos += len(block)
        yield block


def _last_newline(buf: pa.Buffer) -> int:
    """Offset of the last newline in ``buf`` (-1: none)."""
    view = memoryview(buf)
    step = 1 << 16
    for end in range(len(view), 0, -step):
        at = view[max(0, end - step):end].tobytes().rfind(b"\n")
        if at >= 0:
            return max(0, end - step) + at
    return -1


_END = object()   # the worker's last item


class NotStreamable(Exception):
    """The file needs the whole-file reader (or the checking parser)."""


class RunStream:
    """A run file's blocks of :data:`~relkit.metrics.readers.io.EVAL_FIELDS`, as Arrow
    tables in file order (row ``i`` of the file is line ``i + 1``: the fast path has no
    comment or blank lines); :func:`open_run_stream` makes one.

    Iterate once. The worker thread starts with the iteration (or :meth:`start`) and is
    joined when the iteration ends, or is abandoned, or :meth:`close` is called: no
    thread outlives the stream's use.
    """

    def __init__(self, path: str | os.PathLike[str], delimiter: str, run_id: str,
                 rows_estimate: int) -> None:
        self.path = os.fspath(path)
        self.source = source_name(path)
        self.run_id = run_id
        self.rows_estimate = rows_estimate
        self._delimiter = delimiter
        self._worker: threading.Thread | None = None
        self._ready: queue.Queue[Any] = queue.Queue()
        self._stop = threading.Event()

    def _batches(self) -> Iterator[pa.Table]:
        """Parse and check each block (in the worker thread).

        The file is cut into blocks of whole lines here, each parsed by ``read_csv``:
        pyarrow's own streaming reader reads the whole file ahead into memory.
        """
        from relkit.metrics.readers._arrow import import_pyarrow

        pa = import_pyarrow()
        import pyarrow.compute as pc
        import pyarrow.csv as pacsv

        types = {f: _ARROW_TYPES.get(f, "string") for f in RUN_FIELDS}
        options = csv_options(pa, RUN_FIELDS, types, self._delimiter)
        if not _regular(self.path, self._delimiter):   # here, while the qrels are read
            raise NotStreamable(self.path)
        try:
            # Arrow reads into its own memory: nothing needs the GIL to free it
            with pa.OSFile(self.path) as fh:
                for block in _line_blocks(fh, BLOCK_BYTES):
                    table = pacsv.read_csv(pa.BufferReader(block), **options)
                    del block
                    if irregular_table(table, RUN_FIELDS) or pc.any(
                            pc.is_nan(table.column("score"))).as_py():
                        raise NotStreamable(self.path)
                    yield table.select(list(EVAL_FIELDS))
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            raise NotStreamable(self.path) from None

    def start(self) -> None:
        """Start parsing (the first blocks wait for the caller): before the qrels are
        read, say. Iterating starts it too; :meth:`close` ends it."""
        if self._worker is not None:
            return
        # imported here, not in the worker: import_pyarrow hides pandas from every thread
        # for a moment (sys.meta_path), which a pandas import on this thread must not meet
        from relkit.metrics.readers._arrow import import_pyarrow

        import_pyarrow()
        import pyarrow.csv  # noqa: F401

        ready: queue.Queue[Any] = queue.Queue(maxsize=AHEAD)
        stop = threading.Event()

        def produce() -> None:
            try:
                for table in self._batches():
                    if stop.is_set():
                        return
                    ready.put(table)
                ready.put(_END)
            except BaseException as exc:   # handed to the caller's thread
                ready.put(exc)

        self._ready, self._stop = ready, stop
        self._worker = threading.Thread(target=produce, name="relkit-run-reader", daemon=True)
        self._worker.start()

    def close(self) -> None:
        """Stop the worker thread (if it runs) and wait for it."""
        if self._worker is None:
            return
        self._stop.set()
        while self._worker.is_alive():           # unblock a put, then wait for the end
            with contextlib.suppress(queue.Empty):
                self._ready.get(timeout=0.05)
        self._worker.join()

    def __iter__(self) -> Generator[pa.Table, None, None]:
        self.start()
        rows = 0
        try:
            while True:
                item = self._ready.get()
                if item is _END:
                    break
                if isinstance(item, BaseException):
                    raise item
                rows += item.num_rows
                yield item
            if rows == 0:
                raise NotStreamable(self.path)   # the usual reader names the empty file
        finally:
            self.close()


def open_run_stream(source: Source) -> RunStream | None:
    """A :class:`RunStream` of ``source``, or None when it must be read whole: not a
    plain file path, not larger than :data:`~relkit.metrics.readers.io.SMALL_INPUT_BYTES`,
    or refused by the fast path's checks of its head or last line (its bytes are
    checked in the worker thread, before the first block)."""
    if not isinstance(source, (str, os.PathLike)):
        return None
    size = _plain_size(source)
    if size is None or size <= _io.SMALL_INPUT_BYTES:   # read when called: tests lower it
        return None
    head = _head(source)
    delimiter = fast_delimiter(source, head, scan=False)   # the bytes: in the worker
    if delimiter is None:
        return None
    last = _tail_line(source).split()
    if len(last) < 6:
        return None
    try:
        run_id = last[5].decode()
    except UnicodeDecodeError:
        return None                     # the checking parser names the line
    lines_in_head = max(head.count(b"\n"), 1)
    return RunStream(source, delimiter, run_id, size * lines_in_head // len(head))
