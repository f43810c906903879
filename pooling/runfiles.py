"""Run files as the pooling commands take them: chosen by group, read in parallel.

``relkit pool`` and the ``pool-*`` commands read their runs here: each run is named by
its file stem, the files are read by a few threads when they are large, and a rank
column that disagrees with the scores is reported (scores decide, as in trec_eval).
Moved out of :mod:`relkit.pooling.cli` so that library code (``relkit pool``'s work,
:mod:`relkit.judging.poolruns`) reads runs without importing Typer.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from relkit.metrics.core.errors import not_a_file


def read_runs(paths: Sequence[Path],
              warn: Callable[[str], None] | None = None) -> dict:  # type: ignore[type-arg]
    """Read runs named by file stem; ``warn`` (if given) is told when a rank column
    disagrees with the scores."""
    from relkit.metrics.core.progress import Bar
    from relkit.metrics.data import Run
    from relkit.pooling.candidates import rank_disagreements
    from relkit.pooling.depth import run_name
    from relkit.pooling.errors import PoolingError

    loaded = {}
    for path in paths:
        if not path.is_file():
            raise PoolingError(f"{path}: {not_a_file(path)}")
    names = [run_name(p) for p in paths]
    seen: set[str] = set()
    for name in names:
        if name in seen:
            raise PoolingError(f"two runs are named {name!r} (file stems must differ)")
        seen.add(name)
    from concurrent.futures import ThreadPoolExecutor

    with Bar("reading runs", len(paths), unit="runs") as bar, _arrow_reader(paths) as big:
        # pyarrow's reader releases the GIL: threads read 100 runs in ~60% of the time
        # (bench/pool_bench.py). Results, warnings and the first error come in
        # command-line order either way.
        pool = ThreadPoolExecutor(4 if big else 1)

        def read(path: Path) -> tuple[Run, list[str]]:
            # The rank check in the worker too: in the main thread it waited for the GIL.
            run = _read_run(path)
            return run, rank_disagreements(run) if warn is not None else []

        try:
            for done, (path, name, (run, bad)) in enumerate(
                    zip(paths, names, pool.map(read, paths), strict=True), start=1):
                loaded[name] = run
                bar.update(done)
                if warn is not None and bad:
                    warn(f"relkit: warning: {path}: the rank column disagrees with the "
                         f"scores on {len(bad)} topic(s) (first: {bad[0]}); scores decide, "
                         "as in trec_eval")
        finally:
            pool.shutdown(cancel_futures=True)
            from relkit.metrics.readers._arrow import release_unused_memory

            release_unused_memory()     # once for the batch (see _read_run)
    return loaded


def _read_run(path: Path) -> Any:
    """:meth:`Run.read` without handing Arrow's freed memory back to the system after
    each file: the next file's parse would fault it in again (100 runs x 50,000
    lines: ~0.4 s of system time and 4x the page faults). :func:`read_runs`
    releases it once, after the batch."""
    from relkit.metrics.data import Run
    from relkit.metrics.readers import io as _io
    from relkit.metrics.readers import shapes

    if shapes.is_parquet(path):
        return Run.read(path)
    table, lines, name, run_id = _io.read_run_columns(path, _io.RUN_FIELDS)
    return Run(table, name, lines, run_id)


@contextmanager
def _arrow_reader(paths: Sequence[Path]) -> Iterator[bool]:
    """Read with pyarrow's reader when the runs together are large.

    The readers' small-input path skips pyarrow's ~0.15 s import, a win for one
    small file; over many runs pyarrow is loaded anyway (pooling uses it) and
    reads each file 3x faster (100 runs x 50,000 lines: ~6 s -> ~2 s;
    bench/pool_bench.py). ``SMALL_INPUT_BYTES`` is the readers' own switch.
    """
    from relkit.metrics.readers import io as _io

    total = sum(p.stat().st_size for p in paths)
    old = _io.SMALL_INPUT_BYTES
    big = total > old
    if big:
        _io.SMALL_INPUT_BYTES = 0
    try:
        yield big
    finally:
        _io.SMALL_INPUT_BYTES = old


def select_run_files(paths: Sequence[Path], group_file: Path | None, prefix: str | None,
                     per_group: int | None,
                     say: Callable[[str], None] = lambda _: None) -> list[Path]:
    """``relkit pool --groups/--group-prefix --runs-per-group``: the run files pooled.

    The selection rule is :func:`relkit.pooling.groups.select_runs`'s; ``say`` is
    told how many runs and groups were kept.
    """
    from relkit.metrics.core.options import OptionError
    from relkit.pooling.depth import run_name
    from relkit.pooling.groups import prefix_groups, read_groups, select_runs

    if group_file is not None and prefix is not None:
        raise OptionError("--group-prefix", "give --groups FILE or --group-prefix, not both")
    if group_file is None and prefix is None:
        if per_group is not None:
            raise OptionError("--runs-per-group", "needs --groups FILE or --group-prefix SEP")
        return list(paths)
    if per_group is not None and per_group < 1:
        raise OptionError("--runs-per-group", f"must be an int >= 1; got {per_group}")
    names = [run_name(p) for p in paths]
    groups = read_groups(group_file) if group_file is not None else prefix_groups(
        names, prefix or "")
    keep = set(select_runs(names, groups, per_group))
    out = [p for p, n in zip(paths, names, strict=True) if n in keep]
    n_groups = len({groups.group[n] for n in names})
    say(f"relkit: pooling {len(out)} of {len(paths)} runs "
         f"({per_group or 'all'} per group, {n_groups} groups)")
    return out
