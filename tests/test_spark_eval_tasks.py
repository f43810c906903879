"""The Spark engine's parts that need no Spark: the task each executor runs (relkit's own
per-topic evaluation of a (run, topic bucket) group), the driver's assembly of the groups
into trec_eval's order, and the option checks of ``relkit eval --engine spark``.

Spark itself is tested in test_spark_eval.py (slow). Here the groups Spark would form are
built by hand, in shuffled row order, so the bucketing argument is checked fast and on
every measure: per-topic values and summaries are the single-machine path's, bit for bit.
"""

from __future__ import annotations

import sys
import uuid
from pathlib import Path

import pyarrow as pa
import pytest

from relkit.judging.cli import main
from relkit.metrics.data import Run
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.spark.engine import _assemble, _kinds
from relkit.metrics.spark.inputs import RunInput
from relkit.metrics.spark.task import Plan, evaluate_group, evaluator_for, qrels_ipc
from spark_cases import CONF, every_measure, generated, group_rows, same_result


def _bucketed(ev: Evaluator, paths: list[Path], buckets: int) -> list:
    """What the Spark engine computes, with the groups formed here instead of by Spark."""
    inputs = [RunInput(str(p), str(p)) for p in paths]
    kinds = _kinds(ev)
    plan = Plan(qrels_ipc(ev.qrels.table), ev.qrels.source, list(ev.measures),
                {"level": ev.level, "judged_only": ev.judged_only, "max_docs": ev.max_docs,
                 "num_docs": ev.num_docs, "compat": ev.compat},
                [r.label for r in inputs], kinds)
    worker = evaluator_for(uuid.uuid4().int, plan)  # as the engine: id() is reused
    table = pa.concat_tables([evaluate_group(g, worker, plan)
                              for g in group_rows(paths, buckets)])
    return [_assemble(ev, None, inputs, i, r, table, kinds, None)  # type: ignore[arg-type]
            for i, r in enumerate(inputs)]


@pytest.mark.parametrize("options", [{}, {"complete": True}, {"level": 2, "max_docs": 7},
                                     {"judged_only": True, "compat": 9}])
def test_buckets_give_the_single_machine_bits(tmp_path: Path, options: dict) -> None:
    qrels, runs = generated(tmp_path)
    ev = Evaluator(qrels, every_measure(), num_docs=300, **options)
    for buckets in (1, 3, 16):
        got = _bucketed(ev, runs, buckets)
        for path, res in zip(runs, got, strict=True):
            same_result(ev.compute(Run.read(path, eval_only=True)), res)
    # the edges the cases are about are really there
    assert "0000842" in res.topics and "842" in res.topics and "9999" not in res.topics
    assert ("0009" in res.topics) == bool(options.get("complete"))


def test_conformance_run_in_many_buckets() -> None:
    ev = Evaluator(CONF / "qrels.test", ["all_trec"], complete=True, max_docs=100)
    run = CONF / "results.trunc"
    same_result(ev.compute(Run.read(run, eval_only=True)), _bucketed(ev, [run], 3)[0])


def test_a_bad_line_is_reported_by_the_task(tmp_path: Path) -> None:
    qrels, runs = generated(tmp_path)
    bad = tmp_path / "bad.run"
    bad.write_text(runs[0].read_text().replace("\t0.", "\tx.", 1))
    ev = Evaluator(qrels, ["map"])
    inputs = [RunInput(str(bad), str(bad))]
    plan = Plan(qrels_ipc(ev.qrels.table), ev.qrels.source, list(ev.measures), {},
                [str(bad)], _kinds(ev))
    key = uuid.uuid4().int  # as the engine names it (an id() of a freed plan comes back)
    rows = [evaluate_group(g, evaluator_for(key, plan), plan)
            for g in group_rows([bad], 4)]
    errors = [r for t in rows for r in t.to_pylist() if r["code"] == -2]
    assert len(errors) == 1 and "a numeric score in field 5" in errors[0]["note"]
    assert inputs[0].label == str(bad)


@pytest.mark.parametrize(("args", "message"), [
    (["--engine", "dask"], "Invalid value for --engine: must be one of local, spark; "
                           "got 'dask'"),
    (["--spark-master", "local[2]"], "Invalid value for --spark-master: needs --engine spark"),
    (["--engine", "spark", "-R", "prels"], "Invalid value for --engine: spark evaluates "
                                          "-R qrels judgments only; got -R prels (use "
                                          "--engine local)"),
])
def test_engine_options_refused_in_one_line(args: list[str], message: str,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", *args, str(CONF / "qrels.test"), str(CONF / "results.test")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == f"relkit eval: error: {message}\n"


def test_stdin_refused_with_spark(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["eval", "--engine", "spark", str(CONF / "qrels.test"), "-"])
    err = capsys.readouterr().err
    assert code == 2 and len(err.strip().splitlines()) == 1 and "stdin" in err


def test_no_pyspark_is_one_line(monkeypatch: pytest.MonkeyPatch,
                                capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "pyspark", None)       # import pyspark fails
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    code = main(["eval", "--engine", "spark", str(CONF / "qrels.test"),
                 str(CONF / "results.test")])
    err = capsys.readouterr().err
    assert code == 2
    assert err == ("relkit eval: error: Invalid value for --engine: --engine spark needs "
                   "PySpark: pip install 'relkit[spark]'\n")


def test_no_java_is_one_line(monkeypatch: pytest.MonkeyPatch,
                             capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("pyspark")
    import shutil

    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(shutil, "which", lambda name: None)
    code = main(["eval", "--engine", "spark", "--spark-master", "local[1]",
                 str(CONF / "qrels.test"), str(CONF / "results.test")])
    err = capsys.readouterr().err
    assert code == 2
    assert err.startswith("relkit eval: error: Invalid value for --engine: --engine spark needs "
                          "a Java runtime") and err.count("\n") == 1
