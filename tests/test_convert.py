"""One door in (relkit.metrics.convert): every shape of the same qrels and run gives the
same numbers, and Run/Qrels round-trip exactly through dicts, frames, text and parquet.

The shapes are the ecosystem's own objects, made by the libraries themselves where they
can be (ir_measures' readers and named tuples, ranx's Qrels/Run, an ir_datasets dataset
built from a local file), so a change in their shape shows up here.
"""

from __future__ import annotations

import gzip
import math
import string
from collections import namedtuple
from pathlib import Path
from typing import Any

import ir_measures
import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples, oracle
from relkit.metrics.compare import score_matrix
from relkit.metrics.compare.curves import pr_curve
from relkit.metrics.convert import coerce_qrels, coerce_run, coerce_runs, named_runs
from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import DuplicateDocumentError, FormatError
from relkit.metrics.evaluator import Evaluator
from relkit.pooling.depth import depth_pool

ir_datasets = oracle("ir_datasets")
ranx = oracle("ranx")

# Hand-checkable: q1 has relevant 007 (2) and d3 (1); the run ranks 007, d2, d3.
# AP(q1) = (1/1 + 2/3) / 2 = 5/6; q2: relevant x at rank 2 -> AP 1/2; MAP = 2/3.
QRELS_TEXT = "q1 0 007 2\nq1 0 d2 0\nq1 0 d3 1\nq2 0 x 1\nq2 0 y 0\n"
RUN_TEXT = ("q1 Q0 007 1 3.5 sys\nq1 Q0 d2 2 2.25 sys\nq1 Q0 d3 3 1 sys\n"
            "q2 Q0 y 1 0.75 sys\nq2 Q0 x 2 0.5 sys\n")
QRELS_DICT = {"q1": {"007": 2, "d2": 0, "d3": 1}, "q2": {"x": 1, "y": 0}}
RUN_DICT = {"q1": {"007": 3.5, "d2": 2.25, "d3": 1.0}, "q2": {"y": 0.75, "x": 0.5}}
MEASURES = ["AP", "nDCG@10", "P@2", "RR", "R@2", "num_rel_ret"]
EXPECTED_AP = (5 / 6 + 1 / 2) / 2


# slow: the first ranx Qrels/Run of a process compiles ranx's numba code (measured 45 CPU-s
# with numba's on-disk cache, 59 without; 3.5 without the JIT), out of `make check`.
RANX_JIT = pytest.mark.slow


def _values(qrels: Any, run: Any) -> dict[str, float]:
    return Evaluator(qrels, MEASURES).aggregate(run).to_dict()


@pytest.fixture(scope="module")
def reference() -> dict[str, float]:
    values = _values(Qrels.read(QRELS_TEXT), Run.read(RUN_TEXT))
    assert math.isclose(values["AP"], EXPECTED_AP, rel_tol=1e-15)
    return values


def _qrels_shapes(tmp: Path) -> dict[str, Any]:
    (tmp / "q.txt").write_text(QRELS_TEXT)
    (tmp / "q.gz").write_bytes(gzip.compress(QRELS_TEXT.encode()))
    Qrels.read(QRELS_TEXT).write(tmp / "q.parquet")
    frame = pd.DataFrame([(q, d, g) for q, docs in QRELS_DICT.items() for d, g in docs.items()],
                         columns=["query_id", "doc_id", "relevance"])
    ds = ir_datasets.create_dataset(qrels_trec=str(tmp / "q.txt"))
    return {
        "path str": str(tmp / "q.txt"), "Path": tmp / "q.txt", "gzip": tmp / "q.gz",
        "parquet": tmp / "q.parquet", "text": QRELS_TEXT,
        "open file": open(tmp / "q.txt"),   # noqa: SIM115 - read (and closed) by coerce
        "ir_measures frame": frame,
        "trec frame": frame.rename(columns={"query_id": "qid", "doc_id": "docno",
                                            "relevance": "rel"}),
        "pyterrier frame": frame.rename(columns={"query_id": "qid", "doc_id": "docno",
                                                 "relevance": "label"}).assign(
            query="text of the query", docid=range(len(frame))),
        "trectools frame": frame.rename(columns={"query_id": "query", "doc_id": "docid",
                                                 "relevance": "rel"}).assign(q0="0"),
        "ranx frame": ranx.Qrels(QRELS_DICT).to_dataframe(),
        "int ids frame": pd.DataFrame({"query_id": ["q1"], "doc_id": [7], "relevance": [1]}),
        "dict of dicts": QRELS_DICT,
        "ir_measures Qrel iterator": ir_measures.read_trec_qrels(QRELS_TEXT),
        "ir_measures Qrel list": [ir_measures.Qrel(q, d, g) for q, docs in QRELS_DICT.items()
                                  for d, g in docs.items()],
        "plain tuples": [(q, d, g) for q, docs in QRELS_DICT.items() for d, g in docs.items()],
        "ranx Qrels": ranx.Qrels(QRELS_DICT),
        "ir_datasets dataset": ds,
        "Qrels": Qrels.read(QRELS_TEXT),
    }


def _run_shapes(tmp: Path) -> dict[str, Any]:
    (tmp / "r.txt").write_text(RUN_TEXT)
    (tmp / "r.gz").write_bytes(gzip.compress(RUN_TEXT.encode()))
    Run.read(RUN_TEXT).write(tmp / "r.parquet")
    rows = [(q, d, s) for q, docs in RUN_DICT.items() for d, s in docs.items()]
    frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    Scored = namedtuple("Scored", ["query_id", "doc_id", "score"])
    scored = [Scored(*r) for r in rows]

    class Dataset:           # ir_datasets' interface for a dataset with a run in it
        def scoreddocs_iter(self) -> Any:
            from ir_datasets.formats import GenericScoredDoc

            return iter(GenericScoredDoc(*r) for r in rows)

    return {
        "path str": str(tmp / "r.txt"), "Path": tmp / "r.txt", "gzip": tmp / "r.gz",
        "parquet": tmp / "r.parquet", "text": RUN_TEXT,
        "ir_measures frame": frame,
        "pyterrier frame": frame.rename(columns={"query_id": "qid", "doc_id": "docno"}).assign(
            docid=range(len(frame)), query="text", rank=0),
        "trectools frame": frame.rename(columns={"query_id": "query", "doc_id": "docid"}).assign(
            q0="Q0", system="sys", rank=1),
        "ranx frame": ranx.Run(RUN_DICT).to_dataframe(),
        "dict of dicts": RUN_DICT,
        "ir_measures ScoredDoc iterator": ir_measures.read_trec_run(RUN_TEXT),
        "ir_measures ScoredDoc list": [ir_measures.ScoredDoc(*r) for r in rows],
        "named tuples": scored,
        "plain tuples": rows,
        "ranx Run": ranx.Run(RUN_DICT, name="sys"),
        "ir_datasets-like dataset": Dataset(),
        "Run": Run.read(RUN_TEXT),
    }


@RANX_JIT
def test_every_qrels_shape_gives_the_same_numbers(tmp_path: Path,
                                                  reference: dict[str, float]) -> None:
    for name, shape in _qrels_shapes(tmp_path).items():
        if name == "int ids frame":
            assert coerce_qrels(shape).to_dict() == {"q1": {"7": 1}}
            continue
        assert coerce_qrels(shape).to_dict() == QRELS_DICT, name
        assert _values(_qrels_shapes(tmp_path)[name], RUN_TEXT) == reference, name


@RANX_JIT
def test_every_run_shape_gives_the_same_numbers(tmp_path: Path,
                                                reference: dict[str, float]) -> None:
    for name in _run_shapes(tmp_path):
        shape = _run_shapes(tmp_path)[name]      # fresh: iterators are used up once read
        assert coerce_run(shape).to_dict() == RUN_DICT, name
        assert _values(QRELS_TEXT, _run_shapes(tmp_path)[name]) == reference, name


@RANX_JIT
def test_every_entry_point_takes_any_shape(tmp_path: Path) -> None:
    Run.read(RUN_TEXT).write(tmp_path / "r.parquet")
    scores = score_matrix(QRELS_DICT, {"a": RUN_DICT, "b": tmp_path / "r.parquet"}, "AP")
    assert scores.systems == ("a", "b")
    np.testing.assert_array_equal(scores.of("AP")[0], scores.of("AP")[1])
    assert math.isclose(float(scores.of("AP")[0].mean()), EXPECTED_AP, rel_tol=1e-15)
    pd.testing.assert_frame_equal(pr_curve(QRELS_DICT, ranx.Run(RUN_DICT)),
                                  pr_curve(Qrels.read(QRELS_TEXT), Run.read(RUN_TEXT)))
    pool = depth_pool({"a": RUN_DICT, "b": ir_measures.read_trec_run(RUN_TEXT)}, 1)
    assert {(e.topic, e.doc) for e in pool} == {("q1", "007"), ("q2", "y")}


@RANX_JIT
def test_the_pooling_functions_take_any_shape() -> None:
    from relkit.pooling.build import build_pool
    from relkit.pooling.coverage import coverage
    from relkit.pooling.reuse import leave_out
    from relkit.pooling.simulate import Plan, simulate

    other = {"q1": {"d2": 1.0, "d9": 0.5}, "q2": {"x": 2.0}}
    shaped = {"a": RUN_DICT, "b": ranx.Run(other)}
    read = {"a": Run.read(RUN_TEXT), "b": Run.from_dict(other)}
    assert build_pool("depth", shaped, {"depth": 2}) == build_pool("depth", read, {"depth": 2})
    assert coverage(QRELS_DICT, shaped) == coverage(Qrels.read(QRELS_TEXT), read)
    assert leave_out(QRELS_DICT, shaped, depth=2) == leave_out(Qrels.read(QRELS_TEXT), read,
                                                               depth=2)
    plans = [Plan("depth", "depth", {})]
    assert simulate(QRELS_DICT, shaped, plans, [1, 2]) == simulate(Qrels.read(QRELS_TEXT), read,
                                                                   plans, [1, 2])


def test_from_frame_maps_the_other_tools_column_names() -> None:
    frame = pd.DataFrame({"qid": ["q1", "q1"], "docno": ["007", "d2"], "docid": [5, 6],
                          "query": ["text", "text"], "score": [2.5, 1.5], "rank": [0, 1]})
    assert Run.from_frame(frame).to_dict() == {"q1": {"007": 2.5, "d2": 1.5}}
    qrels = frame.rename(columns={"score": "label"}).assign(label=[1, 0])
    assert Qrels.from_frame(qrels).to_dict() == {"q1": {"007": 1, "d2": 0}}


@RANX_JIT
def test_a_ranx_run_keeps_its_name_and_a_parquet_run_its_file_name(tmp_path: Path) -> None:
    assert coerce_run(ranx.Run(RUN_DICT, name="bm25")).name == "bm25"
    Run.from_dict(RUN_DICT).to_frame().drop(columns="run_id").to_parquet(tmp_path / "x.parquet")
    assert coerce_run(tmp_path / "x.parquet").name == "x.parquet"
    assert Run.read(tmp_path / "x.parquet").to_dict() == RUN_DICT


def test_several_runs() -> None:
    assert list(coerce_runs({"a": RUN_DICT, "b": RUN_TEXT})) == ["a", "b"]
    # one dict of dicts is one run, not a mapping of names to runs
    assert [len(r) for r in coerce_runs(RUN_DICT)] == [5]
    assert list(named_runs([RUN_TEXT])) == ["sys"]
    with pytest.raises(FormatError, match="same"):
        named_runs([RUN_TEXT, RUN_TEXT])


def test_measures_alone_or_as_objects() -> None:
    one = Evaluator(QRELS_DICT, "nDCG@10").aggregate(RUN_DICT)
    obj = Evaluator(QRELS_DICT, ir_measures.nDCG @ 10).aggregate(RUN_DICT)
    many = Evaluator(QRELS_DICT, [ir_measures.nDCG @ 10, "ndcg_cut_10", "ndcg@10"]).aggregate(
        RUN_DICT)
    assert one.to_dict() == obj.to_dict() == many.to_dict() and list(many.index) == ["nDCG@10"]


@pytest.mark.parametrize(("shape", "message"), [
    (42, "qrels: a path, a DataFrame, a dict of dicts"),
    ({"q1": [1, 2]}, "list for query 'q1'"),
    (pd.DataFrame({"qid": ["1"], "doc": ["d"], "rel": [1]}), "doc_id \\(or docno"),
    ([("q1", "d1")], "\\(query_id, doc_id, value\\)"),
    (pd.DataFrame({"qid": ["1"], "docno": ["d"], "rel": [0.5]}), "integer grades"),
    # the oracles' objects are made by the test, not at collection (see helpers.oracle)
    pytest.param(lambda: ranx.Run({"q1": {"d": 1.0}}), "a ranx Qrels", marks=RANX_JIT),
    (lambda: ir_datasets.create_dataset(), "a dataset with qrels"),
])
def test_a_shape_that_is_not_qrels_is_one_clear_error(shape: Any, message: str,
                                                      tmp_path: Path) -> None:
    shape = shape() if callable(shape) else shape
    with pytest.raises(FormatError, match=message):
        coerce_qrels(shape)


def test_bad_run_shapes_and_files(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="score"):
        coerce_run(pd.DataFrame({"query_id": ["1"], "doc_id": ["d"]}))
    with pytest.raises(FormatError, match="no such file"):
        coerce_run(tmp_path / "missing.parquet")
    (tmp_path / "bad.parquet").write_text("not parquet")
    with pytest.raises(FormatError, match="bad.parquet.*a parquet file"):
        Run.read(tmp_path / "bad.parquet")
    with pytest.raises(FormatError, match="a run"):
        coerce_run(Qrels.read(QRELS_TEXT))


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Run.coerce({"q": {"d1": 1.0, "d2": "abc"}}), "<dict>:2: expected a numeric score; "
                                                          "found 'abc'"),
    (lambda: Qrels.coerce({"q": {"d1": 1, "d2": 2**40}}), "<dict>:2: expected integer grades "
                                                          "between -2147483648 and 2147483647"),
    (lambda: Qrels.coerce({"q": {"d1": 1.5}}), "<dict>:1: expected integer grades"),
    (lambda: Qrels.coerce({"q": {"d1": "x"}}), "<dict>:1: expected an integer grade"),
])
def test_bad_values_in_memory_are_format_errors_naming_the_row(make: Any, message: str) -> None:
    with pytest.raises(FormatError, match=message):
        make()


def test_to_dict_refuses_a_document_twice() -> None:
    run = Run.read("q1 Q0 d1 1 2 r\nq1 Q0 d1 2 1 r\n")
    with pytest.raises(DuplicateDocumentError, match="<text>:2"):
        run.to_dict()


# -- exact round trips ------------------------------------------------------------------
ROUND = settings(max_examples=examples(60), deadline=None, derandomize=True,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
# Ids as users write them: leading zeros, dots, non-ASCII; any text for the in-memory
# shapes; whitespace-free tokens (not starting with '#', a comment) for TREC text.
TOKEN = st.text(string.ascii_letters + string.digits + "._-é", min_size=1, max_size=6)
ANY_ID = st.one_of(st.sampled_from(["007", "07", "7", "1e3", "nan", "0x1F"]), TOKEN,
                   st.text(min_size=1, max_size=5).filter(lambda s: "\x00" not in s))
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
GRADES = st.integers(-(2**31), 2**31 - 1)


def _nested(ids: Any, values: Any) -> Any:
    return st.dictionaries(ids, st.dictionaries(ids, values, min_size=1, max_size=4),
                           min_size=1, max_size=4)


def _bits(d: dict[str, dict[str, float]]) -> dict[str, dict[str, bytes]]:
    return {q: {k: np.float64(v).tobytes() for k, v in docs.items()} for q, docs in d.items()}


@ROUND
@given(_nested(ANY_ID, FLOATS))
def test_run_dict_and_frame_round_trip_exactly(scores: dict[str, dict[str, float]]) -> None:
    run = Run.from_dict(scores, run_id="r1")
    assert _bits(run.to_dict()) == _bits(scores)
    again = Run.from_frame(run.to_frame())
    assert _bits(again.to_dict()) == _bits(scores) and again.name == "r1"


@ROUND
@given(_nested(ANY_ID, GRADES))
def test_qrels_dict_and_frame_round_trip_exactly(grades: dict[str, dict[str, int]]) -> None:
    qrels = Qrels.from_dict(grades)
    assert qrels.to_dict() == grades
    assert Qrels.from_frame(qrels.to_frame()).to_dict() == grades
    records = qrels.to_frame()[["query_id", "doc_id", "relevance"]].itertuples(
        index=False, name="Qrel")
    assert coerce_qrels(records).to_dict() == grades


@ROUND
@given(scores=_nested(TOKEN, FLOATS), grades=_nested(TOKEN, GRADES))
def test_text_gzip_and_parquet_round_trip_exactly(tmp_path_factory: pytest.TempPathFactory,
                                                  scores: dict[str, dict[str, float]],
                                                  grades: dict[str, dict[str, int]]) -> None:
    tmp = tmp_path_factory.mktemp("round")
    run, qrels = Run.from_dict(scores, run_id="r1"), Qrels.from_dict(grades)
    for suffix in (".txt", ".gz", ".parquet"):
        run.write(tmp / f"run{suffix}")
        qrels.write(tmp / f"qrels{suffix}")
        back = Run.read(tmp / f"run{suffix}")
        assert _bits(back.to_dict()) == _bits(scores) and back.name == "r1", suffix
        assert Qrels.read(tmp / f"qrels{suffix}").to_dict() == grades, suffix
        assert _bits(coerce_run(tmp / f"run{suffix}").to_dict()) == _bits(scores), suffix
