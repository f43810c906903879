"""The C/W/L measures against cwl_eval (through ir_measures' cwl_eval provider, and
cwl_eval's own classes for the residuals).

Tolerance 1e-12 per topic: relkit multiplies and divides in cwl_eval's order, but sums
a topic's 1,000 weighted gains with numpy's row sums where cwl_eval calls ``np.dot``;
the two may round the last bit differently (on the Cranfield runs they agree exactly).
ir_measures orders tied documents its own way, so the runs handed to it are made
tie-free in relkit's order first (which changes no relkit number: checked).
"""

from __future__ import annotations

import logging
import math
import warnings

import ir_measures
import numpy as np
import pytest
from cwl.ruler.cwl_ruler import (
    BPMCWLMetric,
    INSQCWLMetric,
    INSTCWLMetric,
    NDCGCWLMetric,
    NERReq8CWLMetric,
    NERReq9CWLMetric,
    NERReq10CWLMetric,
    NERReq11CWLMetric,
    RBPCWLMetric,
)
from cwl.ruler.ranking import Ranking
from hypothesis import HealthCheck, given, settings

from helpers import examples
from measure_oracles import CRAN_RUNS, CRANFIELD, VASWANI, QrelsDict, RunDict, collections, tie_free
from measure_oracles import cranfield as load_cranfield
from measure_oracles import vaswani as load_vaswani
from relkit.metrics.data import Run
from relkit.metrics.errors import MeasureError
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.names import parse_measure
from relkit.metrics.ranking import ranked_docnos

TOL = 1e-12
needs_shared = pytest.mark.skipif(not (CRANFIELD.is_dir() and VASWANI.is_dir()),
                                  reason="no ../shared collections")
logging.getLogger("ir_measures.cwl_eval").disabled = True


def names(max_rel: int) -> list[str]:
    """ir_measures' spellings; relkit reads each as the same measure."""
    m = f"max_rel={max_rel}"
    return [f"INST({m})", f"INST(T=3.0,{m})", f"INSQ(T=2.0,{m})", "RBP(rel=1)",
            "RBP(p=0.95,rel=2)", f"BPM(T=2.0,{m})@10", f"BPM({m})@1000",
            f"NERR8({m})@10", f"NERR9({m})@5", f"NERR10(p=0.8,{m})", f"NERR11(T=2.0,{m})",
            f"SDCG({m})@10", *([f"SDCG(min_rel=1,{m})@20"] if max_rel > 1 else [])]


def _check(qrels: QrelsDict, run: RunDict, max_rel: int) -> int:
    run = tie_free(run)
    ms = [ir_measures.parse_measure(n) for n in names(max_rel)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        want = {(r.query_id, str(r.measure)): r.value
                for r in ir_measures.iter_calc(ms, qrels, run)}
    frame = Evaluator(qrels, names(max_rel)).evaluate(run)
    got = {(r.query_id, r.measure): r.value for r in frame.itertuples()}
    checked = 0
    for name, m in zip(names(max_rel), ms, strict=True):
        ours = str(parse_measure(name)[0])
        for q in run:
            if q in qrels:
                assert math.isclose(got[q, ours], want[q, str(m)], rel_tol=0, abs_tol=TOL), (
                    name, q, got[q, ours], want[q, str(m)])
                checked += 1
    return checked


def test_hand_computed_rbp_and_sdcg() -> None:
    # Grades a=2, c=1 (max 2: gains 1, 0.5); ranking x (unjudged), c, a.
    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 1.0, "c": 2.0, "x": 3.0}}
    res = Evaluator(qrels, ["RBP(p=0.5)", "SDCG@2", "SDCG@3"]).aggregate(run)
    # RBP, binary at level 1: weight p^(i-1) / sum_{i<=1000} p^(i-1), the sum 2 - 2^-999;
    # c at rank 2 and a at rank 3 are relevant.
    assert math.isclose(res["RBP(p=0.5)"], (0.5 + 0.25) / (2 - 2 ** -999), rel_tol=1e-15)
    # SDCG@2 = (0 + 0.5 / log2(3)) / (1 + 1 / log2(3))
    assert math.isclose(res["SDCG@2"], 0.5 / math.log2(3) / (1 + 1 / math.log2(3)),
                        rel_tol=1e-15)
    assert math.isclose(res["SDCG@3"], (0.5 / math.log2(3) + 1 / 2) / (1 + 1 / math.log2(3) + 0.5),
                        rel_tol=1e-15)


def test_max_rel_defaults_to_the_largest_grade_of_the_qrels() -> None:
    qrels = {"1": {"a": 2, "b": 0}, "2": {"c": 3}}
    run = {"1": {"a": 1.0, "b": 2.0}, "2": {"c": 1.0, "d": 2.0}}
    a = Evaluator(qrels, ["INST(T=2.0)", "NERR8@5"]).aggregate(run)
    b = Evaluator(qrels, ["INST(T=2.0,max_rel=3)", "NERR8(max_rel=3)@5"]).aggregate(run)
    assert a.tolist() == b.tolist()


def test_topic_without_relevant_and_empty_topic_score_zero() -> None:
    qrels = {"1": {"a": 0}, "2": {"c": 3}}
    ev = Evaluator(qrels, names(3), complete=True)
    res = ev.compute({"1": {"a": 1.0, "x": 2.0}})
    for m, values in zip(res.measures, res.values, strict=True):
        assert values.tolist() == [0.0, 0.0], str(m)


def test_names_and_bad_parameters() -> None:
    assert str(parse_measure("BPM(T=1,K=1000)")[0]) == "BPM@1000"
    assert parse_measure("BPM(T=1.0)@1000") == parse_measure("bpm.K=1000")
    assert str(parse_measure("INST(T=3)")[0]) == "INST(T=3.0)"
    assert str(parse_measure("rbp_cwl.p=0.9(rel=2)")[0]) == "RBP(p=0.9,rel=2)"
    with pytest.raises(MeasureError, match=r"The 'T' parameter of inst must be a number > 0"):
        parse_measure("INST(T=0)")
    with pytest.raises(MeasureError, match=r"unknown parameter 'q' of INSQ; known: T, "):
        parse_measure("INSQ(q=1)")
    with pytest.raises(MeasureError, match=r"max_rel \(1\) must be greater than min_rel \(1\)"):
        Evaluator({"1": {"a": 1}}, ["INST(min_rel=1,max_rel=1)"]).compute({"1": {"a": 1.0}})
    with pytest.raises(MeasureError, match="INST takes no relevance level"):
        parse_measure("inst(rel=2)")
    with pytest.raises(MeasureError, match=r"unknown parameter 'rel' of INST; known: T, "):
        parse_measure("INST(rel=2)")
    with pytest.raises(MeasureError, match="INST takes no cutoff"):
        parse_measure("INST@10")
    with pytest.raises(MeasureError, match=r"The 'p' parameter of rbp_cwl must be a number in"):
        parse_measure("RBP(p=1.5)")


@needs_shared
@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(CRAN_RUNS)))
def test_cranfield_equals_cwl_eval(index: int) -> None:
    qrels, runs = load_cranfield()
    assert _check(qrels, runs[index], 4) > 2000


@needs_shared
@pytest.mark.slow
def test_vaswani_equals_cwl_eval() -> None:
    qrels, run = load_vaswani()
    assert _check(qrels, run, 1) > 500


@needs_shared
def test_making_a_run_tie_free_changes_no_relkit_number() -> None:
    qrels, run = load_vaswani()
    ev = Evaluator(qrels, names(1))
    assert ev.aggregate(run).to_dict() == ev.aggregate(tie_free(run)).to_dict()


ORACLE = settings(max_examples=examples(30), deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@ORACLE
@given(collections())
def test_generated_equal_cwl_eval(case: tuple[QrelsDict, RunDict]) -> None:
    qrels, run = case
    _check(qrels, {q: d for q, d in run.items() if q in qrels}, 4)


# -- residuals: cwl_eval's own classes (ir_measures does not report them) -------------
CWL = {
    "INST(T=2.0,max_rel=4,residual=True)": lambda: INSTCWLMetric(2.0),
    "INSQ(max_rel=4,residual=True)": lambda: INSQCWLMetric(1.0),
    "RBP(p=0.9,residual=True)": lambda: RBPCWLMetric(0.9),
    "BPM(T=2.0,max_rel=4,residual=True)@20": lambda: BPMCWLMetric(2.0, 20),
    "NERR8(max_rel=4,residual=True)@10": lambda: NERReq8CWLMetric(10),
    "NERR9(max_rel=4,residual=True)@10": lambda: NERReq9CWLMetric(10),
    "NERR10(max_rel=4,residual=True)": lambda: NERReq10CWLMetric(0.9),
    "NERR11(max_rel=4,residual=True)": lambda: NERReq11CWLMetric(1.0),
    "SDCG(max_rel=4,residual=True)@10": lambda: NDCGCWLMetric(10),
}


def _residuals(qrels: QrelsDict, run: RunDict) -> None:
    got = Evaluator(qrels, list(CWL)).evaluate(run)
    values = {(r.query_id, r.measure): r.value for r in got.itertuples()}
    for q, docs in ranked_docnos(Run.from_dict(run)).items():
        if q not in qrels:
            continue
        for name, make in CWL.items():
            binary = name.startswith("RBP")
            gains = []
            for d in docs:
                g = qrels[q].get(d)
                if g is None:
                    gains.append(np.nan)
                else:
                    g = max(g, 0)
                    gains.append(float(g >= 1) if binary else min(g, 4) / 4)
            ranking = Ranking(q, gains, [np.nan] * len(gains), max_n=1000)
            metric = make()
            metric.residuals = True
            metric.measure(ranking)
            ours = values[q, str(parse_measure(name)[0])]
            assert math.isclose(ours, metric.residual_expected_utility, rel_tol=0,
                                abs_tol=TOL), (name, q)


@needs_shared
@pytest.mark.slow
def test_cranfield_residuals_equal_cwl_eval() -> None:
    qrels, runs = load_cranfield()
    _residuals(qrels, runs[0])


@pytest.mark.slow
@ORACLE
@given(collections())
def test_generated_residuals_equal_cwl_eval(case: tuple[QrelsDict, RunDict]) -> None:
    _residuals(*case)


def test_an_unknown_parameter_is_named_with_the_known_ones() -> None:
    """Tester: 'RBP(q=0.8)' blamed a 'pair' parameter that does not exist."""
    with pytest.raises(MeasureError) as e:
        parse_measure("RBP(q=0.8)")
    assert str(e.value) == "unknown parameter 'q' of RBP; known: p, rel, residual"
