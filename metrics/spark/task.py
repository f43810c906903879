"""What one Spark task runs: relkit's own per-topic evaluation of one (run, topic bucket).

A task gets its group's rows as an Arrow table (``applyInArrow``: no pandas in between,
so pandas 3's Arrow-backed strings never meet PySpark's pandas conversion), rebuilds the
lines as text and reads them with relkit's reader, then evaluates every topic of the
bucket in one call of :meth:`Evaluator.per_topic` - the code the single-machine path
runs on its chunks of whole topics. It returns one row per topic (the values of every
measure), one row with the run id of the group's last line, or one error row.

Nothing here imports PySpark: the module is tested and benchmarked without it.
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.core.errors import DuplicateDocumentError, FormatError

if TYPE_CHECKING:
    import pyarrow as pa

    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.measures.base import Measure

# The rows a task returns (Spark DDL). ``code`` is the topic's index in the qrels'
# trec_eval order; NAME_ROW and ERROR_ROW mark the other two kinds of row.
SCHEMA = ("run int, code long, missing boolean, vals array<double>, strs array<string>, "
          "note string, blk long, mid long")
NAME_ROW, ERROR_ROW = -1, -2


@dataclass(frozen=True)
class Plan:
    """What every task needs to rebuild the driver's evaluator: the qrels (Arrow IPC
    bytes), the measures and the options. Sent once per executor (a broadcast)."""

    qrels_ipc: bytes
    qrels_source: str
    measures: list[Measure]
    options: dict[str, Any]
    labels: list[str]             # run labels, by run index (error messages)
    kinds: list[str | None]       # per measure: "num", "str", or None (summary-only)


# One evaluator per Python worker process and plan: workers are reused across tasks,
# so the qrels are prepared once per executor core, not once per task.
_EVALUATORS: dict[int, Evaluator] = {}


def evaluator_for(key: int, plan: Plan) -> Evaluator:
    ev = _EVALUATORS.get(key)
    if ev is None:
        import pyarrow as pa

        from relkit.metrics.data import Qrels
        from relkit.metrics.evaluator import Evaluator

        table = pa.ipc.open_stream(plan.qrels_ipc).read_all()
        ev = Evaluator(Qrels(table, plan.qrels_source), [], **plan.options)
        ev.measures = list(plan.measures)
        _EVALUATORS.clear()
        _EVALUATORS[key] = ev
    return ev


def qrels_ipc(table: pa.Table) -> bytes:
    import pyarrow as pa

    sink = pa.BufferOutputStream()
    with pa.ipc.new_stream(sink, table.schema) as writer:
        writer.write_table(table)
    return bytes(sink.getvalue().to_pybytes())


def evaluate_group(group: pa.Table, ev: Evaluator, plan: Plan) -> pa.Table:
    """Evaluate one (run, bucket) group; see the module docstring for the rows."""
    import pyarrow as pa
    import pyarrow.compute as pc

    from relkit.metrics.data import Run

    group = group.sort_by([("blk", "ascending"), ("mid", "ascending")])
    run_index = int(group["run"][0].as_py())
    label = plan.labels[run_index]
    blk = group["blk"].to_numpy()
    mid = group["mid"].to_numpy()
    text = group["line"].null_count < group.num_rows
    try:
        if text:
            lines = group["line"].to_pylist()
            buf = io.BytesIO(("\n".join(lines) + "\n").encode("utf-8"))
            buf.name = label
            run = Run.read(buf, eval_only=True)
        else:
            scores = group["score"]
            bad = pc.or_kleene(pc.is_null(scores), pc.is_nan(scores))
            if pc.any(bad).as_py():
                row = int(np.flatnonzero(bad.to_numpy(zero_copy_only=False))[0])
                raise FormatError(label, row + 1, "a numeric score", "NaN")
            run = Run(pa.table({"query_id": group["qid"], "doc_id": group["doc"],
                                "score": scores, "run_id": group["rid"]}), label)
        topics, codes, missing, values = ev.per_topic(run)
    except (FormatError, DuplicateDocumentError) as exc:
        row = (exc.line or 1) - 1
        note = {"kind": type(exc).__name__, **{k: v for k, v in vars(exc).items()
                                               if k in ("expected", "found", "query_id",
                                                        "doc_id")}}
        if isinstance(exc, DuplicateDocumentError):
            note["code"] = ev.judged.index.get(exc.query_id, -1)
        return _rows(run_index, np.array([ERROR_ROW]), np.zeros(1, bool),
                     np.zeros((1, 0)), [[]], [json.dumps(note)],
                     blk[row:row + 1], mid[row:row + 1])
    n = len(codes)
    nums = [v for v, k in zip(values, plan.kinds, strict=True) if k == "num"]
    matrix = np.column_stack(nums) if nums and n else np.zeros((n, len(nums)))
    strs_by_measure = [v for v, k in zip(values, plan.kinds, strict=True) if k == "str"]
    strs = [[s[t] for s in strs_by_measure] for t in range(n)]
    codes_out = np.concatenate([np.asarray(codes, np.int64), [NAME_ROW]])
    return _rows(run_index, codes_out, np.concatenate([missing, [False]]),
                 np.vstack([matrix, np.zeros((1, matrix.shape[1]))]), [*strs, []],
                 [None] * n + [run.name], np.concatenate([np.zeros(n, np.int64), blk[-1:]]),
                 np.concatenate([np.zeros(n, np.int64), mid[-1:]]))


def _rows(run_index: int, codes: np.ndarray, missing: np.ndarray, matrix: np.ndarray,
          strs: list[list[str]], notes: list[str | None], blk: np.ndarray,
          mid: np.ndarray) -> pa.Table:
    import pyarrow as pa

    n, width = matrix.shape
    offsets = pa.array(np.arange(n + 1, dtype=np.int32) * width)
    vals = pa.ListArray.from_arrays(offsets, pa.array(matrix.reshape(-1), pa.float64()))
    return pa.table({
        "run": pa.array(np.full(n, run_index, np.int32)),
        "code": pa.array(codes, pa.int64()),
        "missing": pa.array(missing, pa.bool_()),
        "vals": vals,
        "strs": pa.array(strs, pa.list_(pa.string())),
        "note": pa.array(notes, pa.string()),
        "blk": pa.array(blk, pa.int64()),
        "mid": pa.array(mid, pa.int64()),
    })
