"""``Evaluator(..., engine="spark")``: many runs in one Spark job, the same numbers.

The driver prepares the qrels and the measures once (as on one machine) and broadcasts
them; Spark groups the run lines by (run, topic bucket) and each group is evaluated by
:func:`relkit.metrics.spark.task.evaluate_group` - relkit's own per-topic code, thousands
of topics per call. The per-topic values come back to the driver, which puts them in
trec_eval's topic order and hands them to :meth:`Evaluator.finish`, the code that sums
the means on one machine. So the per-topic values are the single-machine path's
(bit for bit: the same function on the same topics) and so is every printed digit.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import uuid
import warnings
from collections.abc import Iterator
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.core.errors import (
    DuplicateDocumentError,
    EvaluationError,
    FormatError,
    RelkitError,
)

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import SparkSession

    from relkit.metrics.evaluator import Evaluator, Result, ZTable
    from relkit.metrics.spark.inputs import RunInput

# Topics per bucket when the caller does not say: a bucket is one Python call, so it
# should hold thousands of topics (the per-call cost is paid once per bucket), and there
# should be buckets enough to keep executors busy when there are few runs.
TOPICS_PER_BUCKET = 2000


class SparkJobError(RelkitError):
    """The Spark job failed for a reason the data does not explain (an executor lost,
    a worker without relkit installed...)."""


# A relkit error raised inside a task reaches the driver as the Python worker's
# traceback text; its last line names the error class and carries relkit's message.
_TASK_ERROR = re.compile(r"^\s*relkit\.[\w.]+(?:Error|Exception): (?P<message>.+)$")


def _task_error(exc: BaseException) -> str | None:
    """relkit's own message from inside a failed task, if that is what failed."""
    found = [m.group("message") for m in map(_TASK_ERROR.match, str(exc).splitlines()) if m]
    return found[-1].strip() if found else None


@contextlib.contextmanager
def quiet_pandas() -> Iterator[None]:
    """PySpark warns that it does not fully support pandas >= 3 when its pandas glue
    loads. relkit hands Spark Arrow tables only (``applyInArrow``, ``toArrow``): no
    pandas frame crosses, Arrow-backed strings included, so the warning does not apply."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pandas >= 3", category=FutureWarning)
        yield


def _kinds(ev: Evaluator) -> list[str | None]:
    """Per measure: "num" (an array per topic), "str" (relstring) or None (runid, num_q),
    found by evaluating an empty ranking of no topics."""
    from relkit.metrics.ranking import Ranked

    empty = Ranked(topics=[], topic_codes=np.zeros(0, np.int64),
                   offsets=np.zeros(1, np.int64), rel=np.zeros(0, np.int32),
                   missing=np.zeros(0, bool), run_id="", source_docs=[],
                   rows=np.zeros(0, np.int64))
    return [None if v is None else "str" if isinstance(v, list) else "num"
            for v in ev.compute_all(empty)]


def spark_compute(ev: Evaluator, runs: list[Any], zscores: ZTable | None = None, *,
                  session: SparkSession | None = None, buckets: int | None = None
                  ) -> list[Result]:
    """The results of :func:`spark_compute_labelled`, without the labels."""
    return [res for _label, res in spark_compute_labelled(ev, runs, zscores, session=session,
                                                          buckets=buckets)]


def spark_compute_labelled(ev: Evaluator, runs: list[Any], zscores: ZTable | None = None,
                           *, session: SparkSession | None = None,
                           buckets: int | None = None) -> list[tuple[str, Result]]:
    """Evaluate ``runs`` (paths Spark reads) with ``ev``'s qrels, measures and options.

    Parameters
    ----------
    ev
        The prepared evaluator (its qrels and options are the single-machine ones).
    runs
        Paths or globs: TREC text (``.gz`` too) or Parquet; local, ``hdfs://``,
        ``s3a://``. Each file is one run.
    zscores
        trec_eval ``-Z``'s table, applied on the driver as on one machine.
    session
        A Spark session (default: :func:`relkit.metrics.spark.session.get_session`
        with ``ev.spark_master``).
    buckets
        Topic buckets per run (default: one per :data:`TOPICS_PER_BUCKET` qrels topics).

    Returns
    -------
    list of (str, Result)
        Each run's label (the path as typed, or the file a glob matched) and result.

    Raises
    ------
    FormatError, DuplicateDocumentError, EvaluationError
        As the single-machine path raises them for the first run (in order) that has
        one, naming the same file and line.
    """
    from relkit.metrics.spark.inputs import expand, run_rows
    from relkit.metrics.spark.session import get_session
    from relkit.metrics.spark.task import SCHEMA, Plan, evaluate_group, evaluator_for, qrels_ipc

    for run in runs:
        if not isinstance(run, (str, os.PathLike)):
            raise EvaluationError("engine='spark' evaluates runs that Spark reads: give "
                                  f"paths (TREC text or Parquet), not a {type(run).__name__}")
    if session is None:
        with quiet_pandas():
            session = get_session(ev.spark_master)
    inputs = expand(session, [os.fspath(r) for r in runs])
    if not inputs:
        return []
    if buckets is None:
        buckets = max(1, math.ceil(len(ev.judged.topics) / TOPICS_PER_BUCKET))
    kinds = _kinds(ev)
    plan = Plan(qrels_ipc(ev.qrels.table), ev.qrels.source, list(ev.measures),
                {"level": ev.level, "judged_only": ev.judged_only, "max_docs": ev.max_docs,
                 "num_docs": ev.num_docs, "compat": ev.compat},   # -c: on the driver
                [r.label for r in inputs], kinds)
    shared = session.sparkContext.broadcast(plan)
    key = uuid.uuid4().int     # names this evaluation in the workers' cache

    def task(group: pa.Table) -> pa.Table:
        return evaluate_group(group, evaluator_for(key, shared.value), plan=shared.value)

    rows = run_rows(session, inputs, buckets)
    with quiet_pandas():
        grouped = rows.groupBy("run", "bucket").applyInArrow(task, SCHEMA)
        try:
            table = grouped.toArrow()
        except Exception as exc:   # a task or the JVM failed: one line, not the JVM's trace
            from relkit.metrics.spark.failures import describe, missing_module

            own = _task_error(exc)
            if own is not None and missing_module(str(exc)) is None:
                raise SparkJobError(own) from None   # relkit's own error inside a task:
            # as the local path says it; else the cause, in one line
            raise SparkJobError(f"the Spark job failed: {describe(exc)}") from None
    try:
        return [(run.label, _assemble(ev, session, inputs, i, run, table, kinds, zscores))
                for i, run in enumerate(inputs)]
    finally:
        shared.unpersist()


def _assemble(ev: Evaluator, session: SparkSession, inputs: list[RunInput], index: int,
              run: RunInput, table: pa.Table, kinds: list[str | None],
              zscores: ZTable | None) -> Result:
    """One run's :class:`Result` from its rows; its errors raised as one machine would."""
    import pyarrow.compute as pc

    from relkit.metrics.spark.inputs import line_number
    from relkit.metrics.spark.task import ERROR_ROW, NAME_ROW

    mine = table.filter(pc.equal(table["run"], index))
    code = mine["code"].to_numpy()
    errors = mine.filter(pc.equal(mine["code"], ERROR_ROW)).to_pylist()
    if errors:
        notes = [(json.loads(e["note"]), e) for e in errors]
        formats = [(n, e) for n, e in notes if n["kind"] == "FormatError"]
        if formats:    # reading fails before evaluating: the first bad line in the file
            note, row = min(formats, key=lambda ne: (ne[1]["blk"], ne[1]["mid"]))
            line = line_number(session, run.uri, row["blk"], row["mid"], run.parquet)
            raise FormatError(run.label, line, note["expected"], note["found"])
        note, row = min(notes, key=lambda ne: ne[0]["code"])   # trec_eval topic order
        line = line_number(session, run.uri, row["blk"], row["mid"], run.parquet)
        raise DuplicateDocumentError(run.label, line, note["query_id"], note["doc_id"])
    names = mine.filter(pc.equal(mine["code"], NAME_ROW))
    if names.num_rows == 0:
        raise FormatError(run.label, None, "at least one run line", "no content lines")
    last = names.sort_by([("blk", "descending"), ("mid", "descending")])
    run_name = str(last["note"][0].as_py())
    topics_rows = mine.filter(pc.greater_equal(mine["code"], 0)) if len(code) else mine
    codes = topics_rows["code"].to_numpy()
    if not len(codes) and not ev.complete:
        raise EvaluationError(f"{run.label}: no topic has both run lines and judgments in "
                              f"{ev.qrels.source}")
    missing = topics_rows["missing"].to_numpy(zero_copy_only=False)
    width = sum(k == "num" for k in kinds)
    flat = topics_rows["vals"].combine_chunks().flatten().to_numpy(zero_copy_only=False)
    matrix = np.asarray(flat, np.float64).reshape(len(codes), width)
    strs = topics_rows["strs"].to_pylist()
    values: list[Any] = []
    num_at = str_at = 0
    for kind in kinds:
        if kind == "num":
            values.append(np.ascontiguousarray(matrix[:, num_at]))
            num_at += 1
        elif kind == "str":
            values.append([s[str_at] for s in strs])
            str_at += 1
        else:
            values.append(None)
    parts = ([codes], [missing], [values]) if len(codes) else ([], [], [])
    topics, _codes, missing, merged = ev.merge(*parts, run_name, absent=ev.complete)
    if not topics:
        raise EvaluationError(f"{run.label}: no topic has both run lines and judgments in "
                              f"{ev.qrels.source}")
    return ev.finish(run_name, topics, missing, merged, zscores)
