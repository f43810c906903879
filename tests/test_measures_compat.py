"""Compat against ir_measures' ``Compat`` (its compat provider: the authors' code).

ir_measures orders tied documents by docno ascending and relkit by trec_eval's rule
(docno descending), so the runs handed to it are made tie-free in relkit's order
(which changes no relkit number: checked). Tolerance 1e-12: relkit adds the same
terms as the reference loop, in the same order, but computes the overlap counts
differently; on the data here the two agree to the last bit or nearly.
"""

from __future__ import annotations

import math

import ir_measures
import pytest
from hypothesis import HealthCheck, given, settings

from helpers import ROOT, examples
from measure_oracles import CRAN_RUNS, CRANFIELD, VASWANI, QrelsDict, RunDict, collections, tie_free
from measure_oracles import cranfield as load_cranfield
from measure_oracles import vaswani as load_vaswani
from relkit.metrics.errors import MeasureError
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.names import parse_measure

TOL = 1e-12
NAMES = ["Compat", "Compat(p=0.8)", "Compat(p=0.95,normalize=False)", "Compat(p=0.5)"]
needs_shared = pytest.mark.skipif(not (CRANFIELD.is_dir() and VASWANI.is_dir()),
                                  reason="no ../shared collections")


def _check(qrels: QrelsDict, run: RunDict) -> int:
    run = tie_free(run)
    ms = [ir_measures.parse_measure(n) for n in NAMES]
    want = {(r.query_id, str(r.measure)): r.value for r in ir_measures.iter_calc(ms, qrels, run)}
    frame = Evaluator(qrels, NAMES).evaluate(run)
    got = {(r.query_id, r.measure): r.value for r in frame.itertuples()}
    checked = 0
    for name, m in zip(NAMES, ms, strict=True):
        ours = str(parse_measure(name)[0])
        for q in run:
            if q in qrels:
                assert math.isclose(got[q, ours], want[q, str(m)], rel_tol=0, abs_tol=TOL), (
                    name, q, got[q, ours], want[q, str(m)])
                checked += 1
    return checked


def test_hand_computed() -> None:
    # Ideal: a (2), c (1). Ranking: x, c, a; depth 3, p = 0.5: weights 1, 0.5, 0.25.
    # Overlaps: {x}&{a} = 0; {x,c}&{a,c} = 1; all = 2 -> 0 + 0.5 * 1/2 + 0.25 * 2/3.
    # Ideal with itself: 1 + 0.5 * 2/2 + 0.25 * 2/3.
    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 1.0, "c": 2.0, "x": 3.0}}
    res = Evaluator(qrels, ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"]).aggregate(run)
    raw = (0.25 + 0.25 * 2 / 3) / 1.75
    assert math.isclose(res["Compat(normalize=False,p=0.5)"], raw, rel_tol=1e-15)
    assert math.isclose(res["Compat(p=0.5)"], raw / ((1 + 0.5 + 0.25 * 2 / 3) / 1.75),
                        rel_tol=1e-15)


def test_ideal_ranking_scores_one_and_no_relevant_scores_zero() -> None:
    qrels = {"1": {"a": 2, "b": 1, "c": 1, "d": 0}, "2": {"e": 0}}
    run = {"1": {"a": 3.0, "c": 2.0, "b": 2.0, "d": 1.0}, "2": {"e": 1.0}}
    res = Evaluator(qrels, ["Compat"]).evaluate(run)
    assert res.value.tolist() == [1.0, 0.0]


def test_names() -> None:
    assert str(parse_measure("Compat(p=0.95)")[0]) == "Compat"
    assert parse_measure("Compat(normalize=false)") == parse_measure("compat.normalize=False")
    with pytest.raises(MeasureError, match=r"The 'p' parameter of compat must be"):
        parse_measure("Compat(p=0)")


@needs_shared
@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(CRAN_RUNS)))
def test_cranfield_equals_ir_measures(index: int) -> None:
    qrels, runs = load_cranfield()
    assert _check(qrels, runs[index]) > 800


@needs_shared
@pytest.mark.slow
def test_vaswani_equals_ir_measures() -> None:
    qrels, run = load_vaswani()
    assert _check(qrels, run) > 300


@needs_shared
def test_making_a_run_tie_free_changes_no_relkit_number() -> None:
    qrels, run = load_vaswani()
    ev = Evaluator(qrels, NAMES)
    assert ev.aggregate(run).to_dict() == ev.aggregate(tie_free(run)).to_dict()


@pytest.mark.slow
@settings(max_examples=examples(60), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_generated_equal_ir_measures(case: tuple[QrelsDict, RunDict]) -> None:
    qrels, run = case
    _check(qrels, {q: d for q, d in run.items() if q in qrels})


# Negative scores. The authors' code (claclark/Compatibility, compatibility.py,
# ``idealize``) orders a grade's documents by their rank in the run and puts the ones the
# run did not retrieve after them; ir_measures' provider sorts them by run score with 0.0
# for a document not retrieved, which is the same order only while every score is > 0.
# With negative scores ir_measures puts the unretrieved documents first; relkit keeps the
# authors' order, which depends on the ranking alone.

def test_negative_scores_two_lines_by_hand_and_against_ir_measures() -> None:
    qrels = {"1": {"a": 1, "b": 1}}
    m = ir_measures.parse_measure("Compat")

    def theirs(run: RunDict) -> float:
        return float(next(iter(ir_measures.iter_calc([m], qrels, run))).value)

    # p = 0.95, depth 2. Ideal [a, b] (a retrieved, b not): overlaps 1, 1 -> (1 + .95/2)
    # over (1 + .95); the ideal with itself scores 1.
    by_hand = (1 + 0.95 / 2) / 1.95
    got = Evaluator(qrels, ["Compat"]).aggregate({"1": {"a": -1.0}})["Compat"]
    assert got == pytest.approx(by_hand, abs=1e-15)                       # 0.7564
    assert theirs({"1": {"a": 1.0}}) == pytest.approx(by_hand, abs=1e-15)  # same ranking
    # ir_measures on the negative score: ideal [b, a], overlaps 0, 1 -> (.95/2) / 1.95
    assert theirs({"1": {"a": -1.0}}) == pytest.approx(0.95 / 2 / 1.95, abs=1e-15)  # 0.2436


@pytest.mark.slow
@settings(max_examples=examples(40), deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(collections())
def test_negative_scores_give_ir_measures_numbers_on_the_same_ranking(
        case: tuple[QrelsDict, RunDict]) -> None:
    """Scores shifted below 0 (the ranking unchanged) give what ir_measures gives on the
    positive scores: relkit's Compat depends on the ranking only."""
    qrels, run = case
    run = tie_free({q: d for q, d in run.items() if q in qrels})
    shifted = {q: {d: s - 100.0 for d, s in docs.items()} for q, docs in run.items()}
    ms = [ir_measures.parse_measure(n) for n in NAMES]
    want = {(r.query_id, str(r.measure)): r.value for r in ir_measures.iter_calc(ms, qrels, run)}
    frame = Evaluator(qrels, NAMES).evaluate(shifted)
    got = {(r.query_id, r.measure): r.value for r in frame.itertuples()}
    for name, m in zip(NAMES, ms, strict=True):
        ours = str(parse_measure(name)[0])
        for q in run:
            assert math.isclose(got[q, ours], want[q, str(m)], rel_tol=0, abs_tol=TOL)


def test_the_docs_say_why_negative_scores_differ_from_ir_measures() -> None:
    from relkit.metrics.measures.base import REGISTRY

    doc = " ".join(REGISTRY["compat"].doc.split())
    assert "negative scores" in doc and "ir_measures" in doc
    guide = " ".join((ROOT / "docs" / "measures-guide.md").read_text().split())
    assert "negative scores" in guide[guide.index("**Compat**"):]
