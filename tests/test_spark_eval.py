"""``relkit eval --engine spark``: the single-machine numbers, computed by Spark.

One local Spark session for the module (the ``spark`` fixture), a dozen small jobs:
trec_eval's own conformance outputs byte for byte, Cranfield's six runs (globbed, read
through ``file://`` URLs) and generated edge cases bit for bit, Parquet runs and the
tidy Parquet output, and bad input as one line naming the file and line as the
single-machine path names them. The bucketing itself (many topic buckets per run) is
checked without Spark in test_spark_eval_tasks.py.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relkit.judging.cli import main
from relkit.metrics.data import Run
from relkit.metrics.evaluator import Evaluator
from spark_cases import CONF, CRANFIELD, every_measure, generated, same_result

pytestmark = pytest.mark.slow


def _eval(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    code = main(["eval", *args])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize(("expected", "args"), [
    ("out.test.aqcM", ["-m", "all_trec", "-q", "-c", "-M100", "qrels.test", "results.trunc"]),
    ("out.test.aql", ["-m", "all_trec", "-mrelstring.20", "-q", "-l2", "qrels.rel_level",
                      "results.test"]),
    ("out.test.aqZ", ["-q", "-m", "all_trec", "-Z", "zscores_file", "qrels.test",
                      "results.test"]),
    ("out.comment.test", ["qrels.comment.test", "results.comment.test"]),
])
def test_trec_eval_output_byte_for_byte(spark, capsys: pytest.CaptureFixture[str],
                                        expected: str, args: list[str]) -> None:
    paths = [str(CONF / a) if (CONF / a).exists() else a for a in args]
    code, out, err = _eval(capsys, "--engine", "spark", "--quiet", *paths)
    assert code == 0, err
    assert out == (CONF / expected).read_text()
    assert _eval(capsys, "--quiet", *paths)[1] == out       # and the local engine's


def test_cranfield_runs_globbed_through_urls_every_measure(spark) -> None:
    qrels = (CRANFIELD / "cranqrel").as_uri()             # file:///...: Spark fetches it
    glob = (CRANFIELD / "runs").as_uri() + "/*/*.txt"     # one argument, six runs
    measures = every_measure()
    ev_spark = Evaluator(qrels, measures, num_docs=1400, engine="spark")
    got = ev_spark.compute_many([glob])
    ev = Evaluator(CRANFIELD / "cranqrel", measures, num_docs=1400)
    runs = sorted((CRANFIELD / "runs").glob("*/*.txt"))
    assert len(got) == len(runs) == 6
    for path, res in zip(runs, got, strict=True):
        same_result(ev.compute(Run.read(path, eval_only=True)), res)


def test_generated_edges_text_and_parquet_runs(spark, tmp_path: Path) -> None:
    qrels, runs = generated(tmp_path)
    parquet = tmp_path / "gen0.parquet"
    Run.read(runs[0]).write(parquet)
    every = [*runs, parquet]
    ev = Evaluator(qrels, every_measure(), num_docs=300, complete=True)
    got = Evaluator(qrels, every_measure(), num_docs=300, complete=True,
                    engine="spark").compute_many(every)
    for path, res in zip(every, got, strict=True):
        same_result(ev.compute(path), res)
    assert "0000842" in got[3].topics and "842" in got[3].topics   # ids stay strings
    assert got[3].run_id == "gen0"


def test_many_runs_tidy_parquet_same_as_local(spark, tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    import pandas as pd

    qrels, runs = generated(tmp_path)
    args = ["-q", "-m", "all_trec", "--format", "parquet", str(qrels), *map(str, runs)]
    code, _, err = _eval(capsys, "--engine", "spark", *args, "-o", str(tmp_path / "s.pq"))
    assert code == 0, err
    assert _eval(capsys, *args, "-o", str(tmp_path / "l.pq"))[0] == 0
    spark_frame = pd.read_parquet(tmp_path / "s.pq")
    pd.testing.assert_frame_equal(spark_frame, pd.read_parquet(tmp_path / "l.pq"))
    assert set(spark_frame["run_id"]) == {"gen0", "gen1", "gen2"}
    assert "0000842" in set(spark_frame["query_id"])


@pytest.mark.parametrize(("qrels", "run", "edit"), [
    ("extra/x.q1.qrels", "extra/err.dupdoc.run", None),           # a document twice
    ("qrels.test", "results.test", "score"),                     # line 701: score 'x'
    ("qrels.test", "results.test", "fields"),                    # line 701: 5 fields
])
def test_bad_run_is_one_line_as_local(spark, tmp_path: Path, qrels: str, run: str,
                                      edit: str | None,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    path = CONF / run
    if edit is not None:
        lines = path.read_text().splitlines(keepends=True)
        fields = lines[700].split()
        fields[4:5] = ["x"] if edit == "score" else []
        lines[700] = " ".join(fields) + "\n"
        path = tmp_path / "bad.run"
        path.write_text("".join(lines))
    args = ["-m", "map", str(CONF / qrels), str(path)]
    local = _eval(capsys, *args)
    spark_ = _eval(capsys, "--engine", "spark", *args)
    assert local[0] == spark_[0] == 1
    assert spark_[2] == local[2] and spark_[2].count("\n") == 1, spark_[2]
    if edit is not None:
        assert f"{path}:701: " in spark_[2]     # the file as typed, the line in it


def test_missing_and_empty_runs_as_local(spark, tmp_path: Path,
                                         capsys: pytest.CaptureFixture[str]) -> None:
    empty = tmp_path / "empty.run"
    empty.write_text("# nothing\n\n")
    for run in (tmp_path / "absent.run", empty):
        args = ["-m", "map", str(CONF / "qrels.test"), str(run)]
        local = _eval(capsys, *args)
        spark_ = _eval(capsys, "--engine", "spark", *args)
        assert local[0] == spark_[0] == 1 and spark_[2] == local[2], (local, spark_)


def test_mllib_ranking_metrics_example_against_trec_eval_rules(spark) -> None:
    """Spark MLlib's documented RankingMetrics example: its MAP is 0.3550 because a query
    with no relevant document counts as 0; trec_eval's rules (relkit's) evaluate only
    topics with judgments and give 0.5325. Both computed here, neither typed in."""
    from pyspark.mllib.evaluation import RankingMetrics

    from relkit.metrics.data import Qrels

    example = [([1, 6, 2, 7, 8, 3, 9, 10, 4, 5], [1, 2, 3, 4, 5]),
               ([4, 1, 5, 6, 2, 7, 3, 8, 9, 10], [1, 2, 3]),
               ([1, 2, 3, 4, 5], [])]
    mllib = RankingMetrics(spark.sparkContext.parallelize(example)).meanAveragePrecision
    run = "".join(f"q{q} Q0 d{d} {r} {len(ranked) - r} mllib\n"
                  for q, (ranked, _) in enumerate(example)
                  for r, d in enumerate(ranked, start=1))
    qrels = "".join(f"q{q} 0 d{d} 1\n" for q, (_, rel) in enumerate(example) for d in rel)
    ev = Evaluator(Qrels.read(qrels), ["map"])
    res = ev.compute(Run.read(run))
    assert f"{mllib:.4f}" == "0.3550" and f"{res.summary[0]:.4f}" == "0.5325"
    assert res.topics == ["q0", "q1"]                      # q2 has no judgments
    # the same per-query APs: MLlib divides their sum by 3 queries, trec_eval by 2
    assert mllib * 3 == pytest.approx(float(res.values[0].sum()), rel=1e-12)


def test_quoted_glob_is_many_runs_as_listed_locally(spark,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    runs = sorted((CRANFIELD / "runs").glob("*/*.txt"))
    qrels = str(CRANFIELD / "cranqrel")
    code, out, err = _eval(capsys, "--engine", "spark", "--quiet", "-m", "map", "-m", "P.5",
                           qrels, str(CRANFIELD / "runs") + "/*/*.txt")
    assert code == 0, err
    assert out == _eval(capsys, "--quiet", "-m", "map", "-m", "P.5", qrels,
                        *map(str, runs))[1]
    assert out.count("runid") == 6            # one labelled block per matched file


def test_aggregate_and_evaluate_take_a_path_with_spark(spark) -> None:
    import pandas as pd

    qrels, run = CONF / "qrels.test", str(CONF / "results.test")
    local = Evaluator(qrels, ["official"])
    remote = Evaluator(qrels, ["official"], engine="spark")
    pd.testing.assert_series_equal(remote.aggregate(run), local.aggregate(run))
    pd.testing.assert_frame_equal(remote.evaluate(run), local.evaluate(run))


def test_an_error_raised_inside_a_task_is_relkits_one_line(
        spark, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A grade EBU's user model has no probability for is refused while the topic is
    # evaluated, inside a Spark task: the driver must pass on relkit's own message (as
    # the local path prints it), not "the Spark job failed: An exception was thrown..."
    qrels, run = tmp_path / "g5.qrels", tmp_path / "r7.txt"
    qrels.write_text("007 0 d1 5\n007 0 d2 1\n")
    run.write_text("007 Q0 d1 1 2.0 r\n007 Q0 d2 2 1.0 r\n")
    local = _eval(capsys, "-m", "EBU", str(qrels), str(run))
    spark_ = _eval(capsys, "--engine", "spark", "-m", "EBU", str(qrels), str(run))
    assert local[0] == spark_[0] == 1
    assert "grade 5" in local[2] and spark_[2] == local[2], (local, spark_)
