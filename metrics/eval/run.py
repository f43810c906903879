"""The evaluation behind ``relkit eval`` (qrels format), once its options are checked.

Read the qrels, evaluate each run in turn (or all in one Spark job), write each run's
lines as soon as they are computed, then the warnings; the garbage collector is kept
out of it (:func:`_collector_paused`). The options themselves are the CLI's
(:mod:`relkit.metrics.eval.cli`); the tidy formats and the warnings' wording are
:mod:`relkit.metrics.eval.output`'s.
"""

from __future__ import annotations

import atexit
import contextlib
import gc
import os
import sys
from collections.abc import Callable, Iterator, Sequence
from typing import IO, TYPE_CHECKING

from relkit.metrics.core.progress import Bar
from relkit.metrics.eval.output import _tidy, _warnings, _write_tidy

if TYPE_CHECKING:
    from pathlib import Path

    from relkit.metrics.evaluator import Evaluator, Result, ZTable
    from relkit.metrics.readers.run_stream import RunStream


def _load_zscores(path: Path | str) -> dict[tuple[str, str], tuple[float, float]]:
    from relkit.metrics.core.errors import check_utf8, open_error
    from relkit.metrics.errors import FormatError

    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as fh:
            text = fh.read()
    except OSError as exc:
        raise open_error(path, exc) from None
    table: dict[tuple[str, str], tuple[float, float]] = {}
    for number, raw in enumerate(text.splitlines(), start=1):
        check_utf8(str(path), number, raw)
        fields = raw.split()
        if not fields or fields[0].startswith("#"):
            continue
        if len(fields) != 4:
            raise FormatError(str(path), number, "4 fields: qid measure mean stddev", raw)
        if (fields[0], fields[1]) in table:
            raise FormatError(str(path), number, "each topic and measure once",
                              f"{fields[0]} {fields[1]} again")
        try:
            table[(fields[0], fields[1])] = (float(fields[2]), float(fields[3]))
        except ValueError:
            raise FormatError(str(path), number, "numeric mean and stddev", raw) from None
    if not table:
        raise FormatError(str(path), None, "lines 'qid measure mean stddev'", "none")
    return table


@contextlib.contextmanager
def _collector_paused() -> Iterator[None]:
    """Keep Python's cyclic garbage collector out of the evaluation and the exit.

    Importing numpy and relkit allocates hundreds of thousands of objects; the
    collector's automatic passes over them during the command, and its final pass
    over all of them at interpreter exit, each cost ~25 ms of a ~0.2 s command.
    The evaluation makes no reference cycles worth collecting (its data are numpy
    and Arrow buffers), so the collector is paused while it runs (and restored
    after), and at exit every object is frozen (``gc.freeze``) so the final pass
    skips them; memory is handed back by reference counting and by the exit
    itself. The exit hook runs only when the interpreter ends, so a program that
    calls the CLI in-process is not affected before then.
    """
    global _freeze_at_exit
    if not _freeze_at_exit:
        atexit.register(gc.freeze)
        _freeze_at_exit = True
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


_freeze_at_exit = False


def _evaluate(qrels: os.PathLike[str] | str, runs: Sequence[os.PathLike[str] | str],
              measures: list[str], *,
              query: bool,
              no_summary: bool, complete: bool, level: int, max_docs: int | None,
              judged_only: bool, num_docs: int, zscores: Path | str | None, compat: int,
              fmt: str, output: Path | str | None, warn: Callable[[str], None] | None = None,
              engine: str = "local", spark_master: str | None = None,
              labels: list[str] | None = None) -> None:
    """The evaluation behind ``relkit eval`` (qrels format), once its options are checked.

    ``warn`` (None: quiet) hears, once, about topics that score 0 for every run.
    ``labels`` (``--names``, ``--name-from-file``; :mod:`relkit.metrics.commands.run_names`) name
    the runs, in order, instead of their run tags.
    ``engine="spark"``: the runs are evaluated in one Spark job
    (:mod:`relkit.metrics.spark`); what is printed is built by the same code.
    """
    from relkit.metrics.readers import _arrow

    if output:    # (the fast path's options skip modes.py's check): before the work
        from relkit.metrics.core.errors import check_output

        check_output(output)
    # trec output never needs pandas: if a large input brings pyarrow in, spare
    # its optional pandas probe (~0.3 s)
    _arrow.SKIP_PANDAS_PROBE = fmt == "trec"
    from relkit.metrics.data import Qrels
    from relkit.metrics.errors import DuplicateDocumentError
    from relkit.metrics.eval.streamed import early_stream
    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.readers.io import is_large
    from relkit.metrics.trec_eval.format import labelled, lines

    if engine == "local" and any(is_large(p) for p in [qrels, *runs]):
        from relkit.metrics.eval.heap import keep_freed_memory

        keep_freed_memory()     # numpy's freed temporaries reused, not faulted in again
    # a large first run starts parsing while the qrels are read and prepared
    early = early_stream(runs[0], engine=engine, complete=complete) if runs else None
    try:
        if engine != "local":
            from relkit.metrics.core.engines import engine as engine_named

            q = engine_named(engine).read_qrels(qrels, spark_master)   # hdfs://, s3a://
        else:
            q = Qrels.read(sys.stdin.buffer if str(qrels) == "-" else qrels)  # '-': stdin
        try:
            ev = Evaluator(q, measures, level=level, judged_only=judged_only,
                           max_docs=max_docs, complete=complete, num_docs=num_docs,
                           compat=compat, engine=engine,   # type: ignore[arg-type]
                           spark_master=spark_master)
        except DuplicateDocumentError as exc:
            from relkit.metrics.diversity.subtopics import as_plain_qrels_error

            raise as_plain_qrels_error(q, exc) from None   # subtopic qrels given as plain
        z = _load_zscores(zscores) if zscores else None
    except BaseException:   # (a bad -Z too: the reader thread must not wait forever)
        if early is not None:
            early.close()
        raise
    frames = []
    evaluated: set[str] = set()
    run_ids: dict[str, list[str]] = {}
    with contextlib.ExitStack() as stack:
        if early is not None:
            stack.callback(early.close)     # the worker thread ends with the command
        out: IO[str] = sys.stdout
        if output and fmt == "trec":
            out = stack.enter_context(open(output, "w", encoding="utf-8"))
        pairs = _results(ev, runs, z, early)
        several = len(runs) > 1
        if ev.engine == "spark":     # all at once; a quoted glob may have become many runs
            pairs = iter(done := list(pairs))
            several = len(done) > 1
            if labels is not None and len(labels) != len(done):
                from relkit.metrics.core.options import OptionError

                raise OptionError("--names", f"the {len(runs)} RUN arguments became "
                                  f"{len(done)} runs (a glob); give the files one by one "
                                  "to name them")
        for i, (path, res) in enumerate(pairs):
            if labels is not None:
                res = relabel(res, labels[i])
            evaluated.update(res.topics)
            run_ids.setdefault(res.run_id, []).append(str(path))
            if fmt == "trec":
                block = lines(res, per_query=query, summary=not no_summary,
                              compat=compat, zscores=z is not None)
                # one run: trec_eval's output exactly; several: each block names its run
                out.writelines(labelled(block, res.run_id) if several else block)
            else:
                frames.append(_tidy(res, query, not no_summary))
    if fmt != "trec":
        _write_tidy(frames, fmt, output)
    if warn is not None:
        from relkit.metrics.commands.grade_checks import inverted_grades

        for msg in _warnings(ev.zero_topics().among(evaluated), run_ids, qrels):
            warn(msg)
        inverted = inverted_grades(q)     # grades that look as if 1 were the best
        if inverted is not None:
            warn(inverted)


def relabel(res: Result, label: str) -> Result:
    """``res`` named ``label``: its run id and its ``runid`` measure's value."""
    summary = [label if m.output == "runid" else s
               for m, s in zip(res.measures, res.summary, strict=True)]
    return res.replace(run_id=label, summary=summary)


def _results(ev: Evaluator, runs: Sequence[os.PathLike[str] | str], z: ZTable | None,
             early: RunStream | None = None
             ) -> Iterator[tuple[os.PathLike[str] | str, Result]]:
    """Each run's result, in order: one at a time here, or all from one Spark job
    (``early``: the first run's stream, parsing already)."""
    if ev.engine != "local":
        from pathlib import Path

        for label, res in ev.door.evaluate(ev, [str(r) for r in runs], z):
            yield Path(label) if "://" not in label else label, res
        return
    from relkit.metrics.data import Run
    from relkit.metrics.eval.streamed import compute_streamed

    for i, path in enumerate(runs):
        # the bar is closed (and erased) before this run's lines are written
        with Bar(f"evaluating {path}") as bar:
            if str(path) == "-":                                     # '-': stdin
                res = ev.compute(Run.read(sys.stdin.buffer, eval_only=True), z, bar.update)
            else:   # a large file: read while evaluated, if it is regular
                streamed = compute_streamed(ev, path, z, bar.update, early if i == 0 else None)
                res = streamed if streamed is not None else \
                    ev.compute(Run.read(path, eval_only=True), z, bar.update)
        yield path, res
