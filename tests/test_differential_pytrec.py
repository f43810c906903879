"""Differential tests: relkit ``compat=9`` against pytrec_eval (trec_eval 9.0.8 inside).

pytrec_eval's per-query doubles are the oracle. Its keys are trec_eval output names, so
they map one to one onto relkit's ``Measure.output``; the exceptions, all documented in
SEMANTICS.md §6, are handled in ``_compare``:

* ``runid`` and ``relstring`` come back as 0.0 (strings are not exposed): skipped;
* ``num_q`` comes back as 1.0 per query: checked against relkit's summary count;
* ``gm_map`` / ``gm_bpref`` come back per query as log(max(v, 1e-5)): compared after
  applying that transform to relkit's per-topic AP / bpref;
* pytrec_eval drops queries whose qrels dict is empty. A ``Qrels`` built from the
  same dict has no row for such a topic, so relkit drops it too and the topic sets are
  asserted *equal*.

relkit is designed to be bit-exact in compat 9 and it is: every value is compared with
``==`` (NaN == NaN), not ``math.isclose``.
"""

from __future__ import annotations

import math
from pathlib import Path

import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples, pytrec_dicts
from relkit.metrics.core.errors import EvaluationError
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator, Result

pytrec_eval = pytest.importorskip("pytrec_eval")

SHARED = Path(__file__).resolve().parents[2] / "shared"
CONFORMANCE = SHARED / "conformance" / "trec_eval"
CRANFIELD = SHARED / "corpora" / "cranfield"

SKIPPED = {"runid", "relstring"}      # pytrec_eval returns 0.0 for the string measures
LOG_FLOORED = {"gm_map", "gm_bpref"}  # pytrec_eval returns log(max(v, 1e-5)) per query

settings.register_profile(
    "differential", max_examples=examples(60), deadline=None, derandomize=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# Ids chosen to catch numeric coercion ("7" / "07" / "007"), case and byte order
# ("B" < "a" < "b"), strcmp topic order ("10" < "2") and a non-ASCII byte ("é").
QIDS = ["7", "07", "007", "10", "2", "q1"]
DOCS = ["7", "07", "007", "70", "a", "b", "B", "d1", "d10", "d2", "é", "x.1"]
# Scores: a small tie-prone set, arbitrary doubles, and doubles that differ from 1.0
# in float64 but round to the same float32 (compat 9 ranks on float32 scores).
SCORES = st.one_of(
    st.sampled_from([0.5, 1.0, 2.0]),
    st.sampled_from([1.0 + 1e-9, 1.0 - 1e-9, 1.0000001, 2.0 + 2e-8]),
    st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False),
)
GRADES = st.integers(-1, 4)


@st.composite
def collections(draw: st.DrawFn) -> tuple[dict, dict]:
    """(qrels_dict, run_dict) in pytrec_eval's shape, with partial topic overlap."""
    qrels_topics = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    run_topics = draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True))
    if draw(st.booleans()):               # usually make sure something is evaluable
        run_topics = sorted(set(run_topics) | {qrels_topics[0]})
    qrels: dict[str, dict[str, int]] = {}
    for q in qrels_topics:
        kind = draw(st.sampled_from(["graded", "graded", "graded", "all_zero", "empty"]))
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
        if kind == "empty":
            qrels[q] = {}                 # pytrec_eval pitfall: the topic is dropped
        elif kind == "all_zero":
            qrels[q] = dict.fromkeys(docs, 0)
        else:
            qrels[q] = {d: draw(GRADES) for d in docs}
    run: dict[str, dict[str, float]] = {}
    for q in run_topics:
        # Retrieved documents come from the same pool, so some are judged and some not.
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        run[q] = {d: draw(SCORES) for d in docs}
    return qrels, run


def _qrels(qrels: dict[str, dict[str, int]]) -> Qrels:
    return Qrels.from_dict(qrels)


def _run(run: dict[str, dict[str, float]]) -> Run:
    rows = [(q, d, s) for q, docs in run.items() for d, s in docs.items()]
    return Run.from_frame(pd.DataFrame(rows, columns=["query_id", "doc_id", "score"]))


def _same(a: float, b: float) -> bool:
    return a == b or (math.isnan(a) and math.isnan(b))


def _compare(expected: dict[str, dict[str, float]], res: Result, label: str) -> int:
    """Assert every per-query value pytrec_eval gave equals relkit's; return the count."""
    assert sorted(res.topics) == sorted(expected), label
    by_output = dict(zip((m.output for m in res.measures), res.values, strict=True))
    by_output_summary = dict(zip((m.output for m in res.measures), res.summary, strict=True))
    assert by_output_summary["num_q"] == float(len(res.topics))
    index = {t: i for i, t in enumerate(res.topics)}
    checked = 0
    bad = []
    for qid, values in expected.items():
        i = index[qid]
        for key, want in values.items():
            if key in SKIPPED:
                continue
            if key == "num_q":
                assert want == 1.0
                continue
            assert key in by_output, f"{label}: pytrec_eval measure {key!r} not in relkit"
            got = float(by_output[key][i])
            if key in LOG_FLOORED:
                got = math.log(max(got, 1e-5))    # C's log, as trec_eval's m_gm_*.c
            if not _same(got, want):
                bad.append(f"{qid} {key}: relkit {got!r} != pytrec_eval {want!r}")
            checked += 1
    assert not bad, f"{label}: {len(bad)} mismatches, e.g.\n" + "\n".join(bad[:20])
    return checked


def _check(qrels_d: dict, run_d: dict, qrels: Qrels, run: Run, level: int,
           judged_only: bool, label: str) -> int:
    oracle = pytrec_eval.RelevanceEvaluator(qrels_d, {"all_trec"}, relevance_level=level,
                                            judged_docs_only_flag=judged_only)
    expected = oracle.evaluate(run_d)
    ev = Evaluator(qrels, ["all_trec"], level=level, judged_only=judged_only, compat=9)
    if not expected:
        with pytest.raises(EvaluationError):
            ev.compute(run)
        return 0
    return _compare(expected, ev.compute(run), label)


OPTIONS = [(level, judged) for level in (1, 2) for judged in (False, True)]


@pytest.mark.slow
@settings(settings.get_profile("differential"))
@given(collections())
def test_random_collections_match_pytrec_eval(data: tuple[dict, dict]) -> None:
    qrels_d, run_d = data
    qrels, run = _qrels(qrels_d), _run(run_d)
    for level, judged in OPTIONS:
        _check(qrels_d, run_d, qrels, run, level, judged, f"-l{level} J={judged}")


def test_topic_selection_pitfalls() -> None:
    """Deterministic version of the topic rules, so a regression names itself."""
    qrels_d = {
        "1": {"d1": 1, "d2": 0},
        "01": {"d1": 0, "d2": 0},          # every grade 0: evaluated, R = 0
        "001": {},                         # empty dict: dropped by both
        "2": {"d1": -1},                   # only a negative grade: evaluated, R = 0
        "3": {"d1": 2},                    # qrels only: not evaluated
    }
    run_d = {"1": {"d1": 1.0, "x": 1.0}, "01": {"d1": 1.0}, "001": {"d1": 1.0},
             "2": {"d1": 0.5, "d2": 0.5}, "9": {"d1": 3.0}}
    res = Evaluator(_qrels(qrels_d), ["all_trec"], compat=9).compute(_run(run_d))
    assert res.topics == ["01", "1", "2"]             # strcmp order, ids kept as strings
    for level, judged in OPTIONS:
        assert _check(qrels_d, run_d, _qrels(qrels_d), _run(run_d), level, judged, "pitfalls")


def test_float32_ties_break_on_docno() -> None:
    """1.0 and 1.0 + 1e-9 tie in float32: "b" then ranks above "a" (docno descending)."""
    qrels_d = {"q": {"a": 1, "b": 0}}
    run_d = {"q": {"a": 1.0 + 1e-9, "b": 1.0}}
    res = Evaluator(_qrels(qrels_d), ["recip_rank"], compat=9).compute(_run(run_d))
    assert res.values[0][0] == 0.5
    assert _check(qrels_d, run_d, _qrels(qrels_d), _run(run_d), 1, False, "f32 ties") > 0


# Regressions: all three were live when this file was written (a crash, two 1-ulp misses)
# and were fixed in ca09133 while it was being written.
def test_rndcg_without_positive_grades() -> None:
    """No evaluated topic with a positive grade: np.bincount(empty, weights=empty) is
    int64 in numpy 2, and Rndcg's float += into it raised UFuncTypeError."""
    qrels_d, run_d = {"q": {"d": 0}}, {"q": {"d": 1.0}}
    res = Evaluator(_qrels(qrels_d), ["Rndcg"], compat=9).compute(_run(run_d))
    assert res.values[0].tolist() == [0.0]
    assert _check(qrels_d, run_d, _qrels(qrels_d), _run(run_d), 1, False, "Rndcg") > 0


def test_set_map_operation_order() -> None:
    """trec_eval computes (a*a)/(n*R); (a/n)*(a/R) is 0.04000000000000001 for a=1,n=R=5."""
    qrels_d = {"q": {f"r{i}": 1 for i in range(5)}}
    run_d = {"q": {"r0": 5.0, "u1": 4.0, "u2": 3.0, "u3": 2.0, "u4": 1.0}}
    res = Evaluator(_qrels(qrels_d), ["set_map"], compat=9).compute(_run(run_d))
    assert res.values[0].tolist() == [0.04]


def test_ndcg_rel_operation_order() -> None:
    """Unretrieved relevant documents add ((P - got) * dcg) / idcg in trec_eval; the
    other association, (P - got) * (dcg / idcg), ends 1 ulp off (0.32120906945735483)."""
    qrels_d = {"q": {"d0": 3, "d1": 3, "d2": 1, "d3": 2}}
    run_d = {"q": {"u": 2.0, "d0": 1.0}}
    res = Evaluator(_qrels(qrels_d), ["ndcg_rel"], compat=9).compute(_run(run_d))
    assert res.values[0].tolist() == [0.3212090694573548]


# ---------------------------------------------------------------- real data
needs_conformance = pytest.mark.skipif(
    not CONFORMANCE.is_dir(), reason=f"shared conformance data not found at {CONFORMANCE}")
needs_cranfield = pytest.mark.skipif(
    not CRANFIELD.is_dir(), reason=f"shared Cranfield corpus not found at {CRANFIELD}")


@needs_conformance
@pytest.mark.parametrize(("level", "judged"), OPTIONS)
def test_trec_eval_rel_level_data(level: int, judged: bool) -> None:
    qrels = Qrels.read(CONFORMANCE / "qrels.rel_level")
    run = Run.read(CONFORMANCE / "results.test")
    qrels_d, run_d = pytrec_dicts(qrels, run)
    checked = _check(qrels_d, run_d, qrels, run, level, judged, "qrels.rel_level")
    assert checked == 3 * 92              # 3 topics x 92 numeric per-query values


CRANFIELD_RUNS = ["cosmopolitan033/query_results_bm25_3.3_0.8.txt",
                  "taylorj8/BM25Similarity_results.txt"]


@needs_cranfield
@pytest.mark.parametrize("run_path", CRANFIELD_RUNS)
@pytest.mark.parametrize(("level", "judged"), [(1, False), (2, True)])
def test_cranfield_runs(run_path: str, level: int, judged: bool) -> None:
    # cranqrel is the 3-column form (grades 1..4 and -1); read as-is, the raw grade is
    # the relevance level, which is all a differential test needs.
    qrels = Qrels.read(CRANFIELD / "cranqrel")
    run = Run.read(CRANFIELD / "runs" / run_path)
    qrels_d, run_d = pytrec_dicts(qrels, run)
    checked = _check(qrels_d, run_d, qrels, run, level, judged, run_path)
    assert checked > 225 * 90
