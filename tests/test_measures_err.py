"""ERR and ERR@k against gdeval, the oracle ir_measures runs for ``ERR@k``.

Two checks: ir_measures' own numbers (gdeval prints 5 decimals, so relkit's value
printed the same way must equal them exactly), and gdeval itself with its ``printf``
widened to 17 significant digits (taken from the ir_measures package, run with perl),
which relkit must equal to the last bit: same grade mapping, same order of operations.
gdeval breaks score ties by docno descending, as trec_eval and relkit do, so runs with
ties are compared as they are. gdeval leaves out topics without a positive grade;
relkit scores them 0.
"""

from __future__ import annotations

import importlib.resources
import math
import shutil
import subprocess
from pathlib import Path

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings

from helpers import examples
from measure_oracles import (
    CRAN_RUNS,
    CRANFIELD,
    VASWANI,
    QrelsDict,
    RunDict,
    collections,
    write_trec,
)
from measure_oracles import cranfield as load_cranfield
from measure_oracles import vaswani as load_vaswani
from relkit.metrics.errors import MeasureError
from relkit.metrics.evaluator import Evaluator

needs_perl = pytest.mark.skipif(shutil.which("perl") is None, reason="gdeval needs perl")
needs_shared = pytest.mark.skipif(not (CRANFIELD.is_dir() and VASWANI.is_dir()),
                                  reason="no ../shared collections")


def _gdeval(tmp: Path, qrels: QrelsDict, run: RunDict, k: int) -> dict[str, float]:
    """gdeval's per-topic err@k, printed with 17 significant digits."""
    script = (importlib.resources.files("ir_measures") / "bin" / "gdeval.pl").read_text()
    assert script.count('"$runid,$topicCurrent,%.5f,%.5f\\n"') == 1
    wide = tmp / "gdeval17.pl"
    wide.write_text(script.replace("%.5f,%.5f", "%.17g,%.17g"))
    write_trec(tmp / "qrels", tmp / "run", qrels, run)
    out = subprocess.run(["perl", str(wide), str(tmp / "qrels"), str(tmp / "run"), str(k)],
                         capture_output=True, text=True, check=True).stdout
    return {line.split(",")[1]: float(line.split(",")[3]) for line in out.splitlines()[1:]}


def _ours(qrels: QrelsDict, run: RunDict, k: int) -> dict[str, float]:
    frame = Evaluator(qrels, [f"ERR@{k}"]).evaluate(run)
    return dict(zip(frame.query_id, frame.value, strict=True))


def _check_gdeval(tmp: Path, qrels: QrelsDict, run: RunDict, k: int) -> int:
    want = _gdeval(tmp, qrels, run, k)
    got = _ours(qrels, run, k)
    for q, v in got.items():
        if any(g > 0 for g in qrels[q].values()):
            assert v == want[q], (q, k, v, want[q])     # the same double
        else:
            assert v == 0.0 and q not in want
    return len(want)


def test_hand_computed() -> None:
    # Ranking x (unjudged), c (grade 1), a (grade 2): R = 0, 1/16, 3/16.
    # ERR = 0 + (1/2)(1/16) + (1/3)(3/16)(15/16) = 1/32 + 15/256 = 23/256
    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 1.0, "c": 2.0, "x": 3.0}}
    res = Evaluator(qrels, ["ERR", "ERR@2", "ERR@1"]).aggregate(run)
    assert res["ERR"] == 23 / 256
    assert res["ERR@2"] == 1 / 32 and res["ERR@1"] == 0.0


def test_no_relevant_document_and_empty_topic_score_zero() -> None:
    qrels = {"1": {"a": 0, "b": -1}, "2": {"c": 3}}
    ev = Evaluator(qrels, ["ERR", "ERR@10"], complete=True)
    res = ev.compute({"1": {"a": 2.0, "b": 1.0}})
    assert res.topics == ["1", "2"]
    for values in res.values:
        assert values.tolist() == [0.0, 0.0]   # no positive grade; no run lines (-c)


def test_grade_above_gdevals_maximum_is_refused() -> None:
    with pytest.raises(MeasureError, match=r"^topic '1', document 'a': grade 5 in the qrels; "
                                           r"ERR follows gdeval, whose grades go up to 4"):
        Evaluator({"1": {"a": 5}}, ["ERR@10"]).compute({"1": {"a": 1.0}})


def test_names() -> None:
    from relkit.metrics.names import parse_measure

    assert [str(m) for m in parse_measure("ERR@10")] == ["ERR@10"]
    assert [str(m) for m in parse_measure("err_cut.5,10")] == ["ERR@5", "ERR@10"]
    assert [m.output for m in parse_measure("err_cut_20")] == ["err_cut_20"]
    assert [str(m) for m in parse_measure(str(ir_measures.ERR @ 10))] == ["ERR@10"]
    assert [str(m) for m in parse_measure("ERR")] == ["ERR"]


@needs_perl
@needs_shared
@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(CRAN_RUNS)))
def test_cranfield_runs_equal_gdeval_to_the_bit(tmp_path: Path, index: int) -> None:
    qrels, runs = load_cranfield()
    for k in (5, 10, 20, 1000):
        assert _check_gdeval(tmp_path, qrels, runs[index], k) > 200


@needs_perl
@needs_shared
@pytest.mark.slow
def test_vaswani_equals_gdeval_to_the_bit(tmp_path: Path) -> None:
    qrels, run = load_vaswani()
    for k in (10, 100):
        assert _check_gdeval(tmp_path, qrels, run, k) == len(qrels)


@needs_perl
@needs_shared
@pytest.mark.slow
def test_cranfield_equals_ir_measures(tmp_path: Path) -> None:
    # ir_measures parses gdeval's 5-decimal output: relkit's double printed so equals it.
    qrels, runs = load_cranfield()
    for run in runs[:2]:
        want = {(m.query_id, str(m.measure)): m.value
                for m in ir_measures.iter_calc([ir_measures.ERR @ 10, ir_measures.ERR @ 20],
                                               qrels, run)}
        for k in (10, 20):
            got = _ours(qrels, run, k)
            for q, v in got.items():
                if (q, f"ERR@{k}") in want:
                    assert float(f"{v:.5f}") == want[q, f"ERR@{k}"], (q, v)
        mean = ir_measures.calc_aggregate([ir_measures.ERR @ 10], qrels, run)[
            ir_measures.ERR @ 10]
        kept = [v for q, v in _ours(qrels, run, 10).items() if (q, "ERR@10") in want]
        assert math.isclose(sum(round(v, 5) for v in kept) / len(kept), mean, rel_tol=1e-12)


ORACLE = settings(max_examples=examples(40), deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow,
                                         HealthCheck.function_scoped_fixture])


@needs_perl
@pytest.mark.slow
@ORACLE
@given(collections())
def test_generated_with_ties_equal_gdeval(tmp_path: Path, case: tuple[QrelsDict, RunDict]
                                          ) -> None:
    qrels, run = case
    run = {q: docs for q, docs in run.items() if q in qrels}
    for k in (1, 3, 20):
        _check_gdeval(tmp_path, qrels, run, k)
