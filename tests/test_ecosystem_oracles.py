"""relkit against ir_measures and ranx, each measure asked for in the oracle's own dialect.

* ir_measures (pytrec_eval inside: trec_eval 9.0.8) is compared with relkit ``compat=9``
  given ir_measures' own measure *objects*; ties are welcome, both break them as
  trec_eval does (score descending, then docno descending), except for ``Judged@k``,
  which ir_measures computes itself with its own tie order (tie-free runs only).
* ranx is compared given ranx's metric *names* (every name in ``names.RANX``). ranx
  keeps tied documents in its own order, so its runs are made tie-free first: the
  scores are replaced by distinct ones in trec_eval's order, which leaves trec_eval's
  ranking, and so relkit's numbers, unchanged (checked).

Data: the six real Lucene runs on Cranfield (grades turned so that higher is better,
-1 as 0: ranx and pytrec_eval do not have trec_eval's "unjudged" grades), and generated
topics with ties, unjudged and non-relevant documents, and topics without relevant ones.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples, oracle
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.names import RANX, parse_measure
from relkit.metrics.ranking import ranked_docnos

ranx = oracle("ranx")

CRANFIELD = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "cranfield"
CRAN_RUNS = sorted((CRANFIELD / "runs").glob("*/*.txt"))
needs_cranfield = pytest.mark.skipif(not CRANFIELD.is_dir(), reason="no ../shared cranfield")

# ir_measures' objects for the measures relkit has with the same numbers.
IR_MEASURES = [
    ir_measures.nDCG @ 10, ir_measures.nDCG @ 5, ir_measures.nDCG, ir_measures.P @ 10,
    ir_measures.P(rel=2) @ 5, ir_measures.R @ 100, ir_measures.AP, ir_measures.AP @ 100,
    ir_measures.AP(rel=3), ir_measures.RR, ir_measures.Rprec, ir_measures.Bpref,
    ir_measures.Success @ 10, ir_measures.Judged @ 10, ir_measures.SetP, ir_measures.SetR,
    ir_measures.SetF, ir_measures.SetAP, ir_measures.infAP, ir_measures.IPrec @ 0.1,
    ir_measures.NumRet, ir_measures.NumRel, ir_measures.NumQ, ir_measures.NumRet(rel=1),
]
# Every ranx name relkit maps, with k filled in, and with ranx's level suffix.
RANX_NAMES = [n.replace("{}", "10") for n in RANX] + [
    "ndcg@5", "recall@100", "map@100", "precision@5-l2", "map-l2", "mrr-l3", "recall@20-l2",
    "hit_rate@1", "r-precision-l2", "f1-l2"]


def _cranfield() -> tuple[dict[str, dict[str, int]], list[dict[str, dict[str, float]]]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in (CRANFIELD / "cranqrel").read_text().splitlines():
        q, d, g = line.split()
        qrels.setdefault(q, {})[d] = 5 - int(g) if int(g) > 0 else 0   # 1 = best -> 4
    return qrels, [Run.read(p).to_dict() for p in CRAN_RUNS]


def _tie_free(run: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    """The same ranking in trec_eval's order, with distinct scores n, n-1, ..., 1."""
    relkit_run = Run.from_dict(run)
    out: dict[str, dict[str, float]] = {}
    for q, docs in ranked_docnos(relkit_run).items():
        out[q] = {d: float(len(docs) - i) for i, d in enumerate(docs)}
    return out


# ir_measures computes Judged@k itself (not through pytrec_eval) and keeps tied
# documents in its own order: compared on tie-free runs only.
TIE_ORDER_OWN = {"Judged@10"}


def _check_ir_measures(qrels: dict[str, Any], run: dict[str, Any], ties: bool = False) -> int:
    measures = [m for m in IR_MEASURES if not (ties and str(m) in TIE_ORDER_OWN)]
    ours = Evaluator(qrels, measures, compat=9)
    per_topic = ours.evaluate(run)
    got = {(r.query_id, r.measure): r.value for r in per_topic.itertuples()}
    summary = ours.aggregate(run)
    expected = ir_measures.calc_aggregate(measures, qrels, run)
    checked = 0
    for m in measures:
        name = str(parse_measure(str(m))[0])
        assert math.isclose(summary[name], expected[m], rel_tol=1e-12, abs_tol=1e-15), (
            str(m), summary[name], expected[m])
        checked += 1
    for row in ir_measures.iter_calc(measures, qrels, run):
        name = str(parse_measure(str(row.measure))[0])
        if (row.query_id, name) in got:
            assert math.isclose(got[row.query_id, name], row.value, rel_tol=1e-12,
                                abs_tol=1e-15), (str(row.measure), row.query_id)
    return checked


def _check_ranx(qrels: dict[str, Any], run: dict[str, Any]) -> int:
    run = _tie_free(run)
    rq, rr = ranx.Qrels(qrels), ranx.Run(run)
    ours = Evaluator(qrels, RANX_NAMES)
    summary = ours.aggregate(run)
    want = ranx.evaluate(rq, rr, RANX_NAMES)
    for name in RANX_NAMES:
        expected = want[name]
        mine = summary[str(parse_measure(name)[0])]
        assert math.isclose(mine, expected, rel_tol=1e-12, abs_tol=1e-15), (name, mine, expected)
    return len(RANX_NAMES)


@needs_cranfield
@pytest.mark.slow
@pytest.mark.parametrize("index", range(len(CRAN_RUNS)))
def test_cranfield_equals_ir_measures_and_ranx(index: int) -> None:
    qrels, runs = _cranfield()
    assert _check_ir_measures(qrels, runs[index]) == len(IR_MEASURES)
    assert _check_ranx(qrels, runs[index]) == len(RANX_NAMES)


@needs_cranfield
def test_making_a_run_tie_free_changes_no_relkit_number() -> None:
    qrels, runs = _cranfield()
    ev = Evaluator(qrels, ["AP", "nDCG@10", "P@5", "RR"])
    tied = runs[0]
    assert sum(len(d) - len(set(d.values())) for d in tied.values()) > 0   # there are ties
    assert ev.aggregate(tied).to_dict() == ev.aggregate(_tie_free(tied)).to_dict()


# -- generated topics ---------------------------------------------------------------------
DOCS = [f"d{i}" for i in range(12)] + ["007", "07", "7"]


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, float]]]:
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for q in draw(st.lists(st.sampled_from(["1", "2", "10", "q"]), min_size=1, max_size=4,
                           unique=True)):
        judged = draw(st.dictionaries(st.sampled_from(DOCS), st.integers(0, 3), min_size=1))
        ranked = draw(st.dictionaries(st.sampled_from(DOCS),
                                      st.sampled_from([0.5, 1.0, 1.5, 2.0, 3.0]), min_size=1))
        qrels[q], run[q] = judged, ranked
    return qrels, run


ORACLE = settings(max_examples=examples(25), deadline=None, derandomize=True,
                  suppress_health_check=[HealthCheck.too_slow])


@pytest.mark.slow
@ORACLE
@given(collections())
def test_generated_with_ties_equal_ir_measures(case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    qrels, run = case
    if not any(g > 0 for docs in qrels.values() for g in docs.values()):
        return    # pytrec_eval and relkit agree on it, but ir_measures' mean has no topic
    _check_ir_measures(qrels, run, ties=True)


@pytest.mark.slow
@ORACLE
@given(collections())
def test_generated_tie_free_equal_ranx_and_ir_measures(
        case: tuple[dict[str, Any], dict[str, Any]]) -> None:
    qrels, run = case
    _check_ranx(qrels, run)
    if any(g > 0 for docs in qrels.values() for g in docs.values()):
        _check_ir_measures(qrels, _tie_free(run))


@pytest.mark.slow  # ranx's numba code is compiled in each process (tens of CPU-s)
def test_the_same_data_in_each_tool_shape_gives_the_same_ranx_and_relkit_numbers() -> None:
    qrels = {"q1": {"007": 2, "d2": 0, "d3": 1}, "q2": {"x": 1, "y": 0}}
    run = {"q1": {"007": 3.5, "d2": 2.25, "d3": 1.0}, "q2": {"y": 0.75, "x": 0.5}}
    rq, rr = ranx.Qrels(qrels), ranx.Run(run)
    for q_shape, r_shape in [(qrels, run), (rq, rr), (Qrels.from_dict(qrels), Run.from_dict(run)),
                             (rq.to_dataframe(), rr.to_dataframe())]:
        got = Evaluator(q_shape, ["map@100", "ndcg@10", "mrr"]).aggregate(r_shape)
        want = ranx.evaluate(rq, rr, ["map@100", "ndcg@10", "mrr"])
        np.testing.assert_allclose(got[["AP@100", "nDCG@10", "RR"]].to_numpy(),
                                   [want["map@100"], want["ndcg@10"], want["mrr"]], rtol=1e-15)
