"""A measure's own relevance level, ir_measures' ``P(rel=2)@5`` (STYLE.md's own example).

``P(rel=2)@5`` is P@5 with grade >= 2 counted relevant: the same numbers as ``-l 2`` /
``Evaluator(level=2)`` give every measure, but for this one measure, so one evaluation can
hold ``P@5`` and ``P(rel=2)@5`` side by side. Oracles: relkit's own ``level`` (checked
against trec_eval's ``-l`` by the conformance tests) for every family, and pytrec_eval's
``relevance_level`` (trec_eval 9 inside) for a few.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from helpers import pytrec_dicts
from relkit.metrics.core.errors import MeasureError
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.names import parse_measure

SAMPLE = Path(__file__).resolve().parents[1] / "corpora" / "sample"   # grades 0-3


@pytest.fixture(scope="module")
def qrels() -> Qrels:
    return Qrels.read(SAMPLE / "qrels.txt")


@pytest.fixture(scope="module")
def run() -> Run:
    return Run.read(SAMPLE / "runs" / "bm25.txt")


@pytest.mark.parametrize("name, text, trec, output", [
    ("P(rel=2)@5", "P(rel=2)@5", "P.5(rel=2)", "P(rel=2)_5"),
    ("AP(rel=3)", "AP(rel=3)", "map(rel=3)", "map(rel=3)"),
    ("nDCG(rel=2)@10", "nDCG(rel=2)@10", "ndcg_cut.10(rel=2)", "ndcg_cut(rel=2)_10"),
    ("P.5(rel=2)", "P(rel=2)@5", "P.5(rel=2)", "P(rel=2)_5"),
    ("utility(rel=2).1,-1,0,0", "utility.1,-1,0,0(rel=2)", "utility.1,-1,0,0(rel=2)",
     "utility(rel=2)_1,-1,0,0"),
])
def test_every_spelling_parses_and_round_trips(name: str, text: str, trec: str,
                                                output: str) -> None:
    (m,) = parse_measure(name)
    assert (str(m), m.trec_name, m.output) == (text, trec, output)
    assert parse_measure(str(m)) == [m]
    assert parse_measure(m.trec_name) == [m]
    assert m.rel is not None and m != parse_measure(name.replace(f"(rel={m.rel})", ""))[0]


def test_a_level_on_a_nickname_says_what_to_write_instead() -> None:
    with pytest.raises(MeasureError, match=r"use -l 2 for all"):
        parse_measure("official(rel=2)")


@pytest.mark.parametrize("level", [0, 2, 3])
def test_own_level_equals_the_evaluation_level_for_every_measure(
        qrels: Qrels, run: Run, level: int) -> None:
    plain = Evaluator(qrels, ["all_trec"], level=level).compute(run)
    names = [f"{m.trec_name}(rel={level})" for m in plain.measures
             if m.family not in {"runid", "num_q", "relstring"}]
    own = Evaluator(qrels, names).compute(run)
    by_output = {m.output: (v, s) for m, v, s in
                 zip(plain.measures, plain.values, plain.summary, strict=True)}
    checked = 0
    for m, v, s in zip(own.measures, own.values, own.summary, strict=True):
        want_v, want_s = by_output[m.output.replace(f"(rel={level})", "")]
        assert s == want_s, m
        if isinstance(v, np.ndarray):
            np.testing.assert_array_equal(v, want_v, err_msg=str(m))
        checked += 1
    assert checked == len(names) > 20


def test_plain_and_own_level_side_by_side_differ_as_they_should(qrels: Qrels,
                                                                 run: Run) -> None:
    res = Evaluator(qrels, ["P@5", "P(rel=2)@5", "P(rel=3)@5"]).compute(run)
    got = dict(zip([str(m) for m in res.measures], res.summary, strict=True))
    for name, level in [("P@5", 1), ("P(rel=2)@5", 2), ("P(rel=3)@5", 3)]:
        want = Evaluator(qrels, ["P@5"], level=level).compute(run).summary[0]
        assert got[name] == want
    assert got["P@5"] > got["P(rel=2)@5"] > got["P(rel=3)@5"]


def test_against_pytrec_eval_relevance_level(qrels: Qrels, run: Run) -> None:
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qd, rd = pytrec_dicts(qrels, run)
    oracle = pytrec_eval.RelevanceEvaluator(qd, {"P_5", "map", "ndcg_cut_10", "recall_10"},
                                            relevance_level=2).evaluate(rd)
    res = Evaluator(qrels, ["P(rel=2)@5", "AP(rel=2)", "nDCG(rel=2)@10", "R(rel=2)@10"],
                    compat=9).compute(run)
    keys = {"P(rel=2)_5": "P_5", "map(rel=2)": "map", "ndcg_cut(rel=2)_10": "ndcg_cut_10",
            "recall(rel=2)_10": "recall_10"}
    for m, v in zip(res.measures, res.values, strict=True):
        want = [oracle[q][keys[m.output]] for q in res.topics]
        np.testing.assert_allclose(v, want, rtol=0, atol=1e-6, err_msg=str(m))
