"""trec_eval's prefs, qrels_prefs and qrels_jg modes, checked byte for byte.

Expected outputs are NIST trec_eval 10's (see the conformance README):

* out.test.prefs       = trec_eval -m all_prefs -q -R prefs prefs.test prefs.results.test
* out.test.qrels_prefs = trec_eval -m all_prefs -q -R qrels_prefs qrels.test results.test
* out.test.qrels_jg    = trec_eval -m qrels_jg -q -R qrels_jg qrels.123 results.test
"""

from __future__ import annotations

from pathlib import Path

import pytest

from relkit.metrics.core.errors import (
    DuplicateDocumentError,
    EvaluationError,
    FormatError,
    MeasureError,
)
from relkit.metrics.data import Qrels, Run
from relkit.metrics.ranking import ranked_docnos
from relkit.metrics.trec_eval.jg import evaluate_jg, evaluate_jg_run, read_qrels_jg
from relkit.metrics.trec_eval.prefs import (
    evaluate_prefs,
    evaluate_prefs_run,
    prefs_from_qrels,
    prefs_ranking,
    read_prefs,
    read_qrels_prefs,
)
from relkit.metrics.trec_eval.rows import Row, render

DATA = Path(__file__).resolve().parents[2] / "shared" / "conformance" / "trec_eval"
needs_data = pytest.mark.skipif(
    not DATA.is_dir(), reason=f"trec_eval conformance data not found at {DATA}")


def expected(name: str) -> str:
    return (DATA / name).read_text()


# --- conformance ----------------------------------------------------------------

@needs_data
@pytest.mark.parametrize("prefs_file", ["prefs.test", "prefs.comment.test"])
def test_prefs_matches_trec_eval(prefs_file: str) -> None:
    run = Run.read(DATA / "prefs.results.test")
    rows = evaluate_prefs_run(DATA / prefs_file, run, ["all_prefs"], rel_format="prefs")
    assert render(rows) == expected("out.test.prefs")


@needs_data
def test_qrels_prefs_matches_trec_eval() -> None:
    run = Run.read(DATA / "results.test")
    rows = evaluate_prefs_run(DATA / "qrels.test", run, ["all_prefs"], rel_format="qrels_prefs")
    assert render(rows) == expected("out.test.qrels_prefs")


@needs_data
def test_qrels_prefs_from_qrels_object() -> None:
    run = Run.read(DATA / "results.test")
    prefs = prefs_from_qrels(Qrels.read(DATA / "qrels.test"))
    rows = evaluate_prefs(prefs, prefs_ranking(run), run_id=run.name)
    assert render(rows) == expected("out.test.qrels_prefs")


@needs_data
def test_prefs_mode_breaks_ties_by_docno_ascending() -> None:
    # results.test ties FBIS3-58025 (judged 0) and FBIS3-58055 (judged 1) on
    # topic 301. The prefs mode ranks 58025 first; the usual order would not,
    # and prefs_num_prefs_ful_ret would read 7340 instead of trec_eval's 7339.
    run = Run.read(DATA / "results.test")
    prefs = read_qrels_prefs(DATA / "qrels.test")
    ours = prefs_ranking(run)["301"]
    assert ours.index("FBIS3-58025") + 1 == ours.index("FBIS3-58055")
    usual = evaluate_prefs(prefs, ranked_docnos(run), ["prefs_num_prefs_ful_ret"])
    assert usual[0] == Row("prefs_num_prefs_ful_ret", "301", 7340, "int")


@needs_data
@pytest.mark.parametrize("qrels_file", ["qrels.123", "qrels.comments.123"])
def test_qrels_jg_matches_trec_eval(qrels_file: str) -> None:
    run = Run.read(DATA / "results.test")
    rows = evaluate_jg_run(DATA / qrels_file, run, ["qrels_jg"])
    assert render(rows) == expected("out.test.qrels_jg")


@needs_data
def test_summary_only_rows_are_the_all_block() -> None:
    rows = evaluate_jg_run(DATA / "qrels.123", Run.read(DATA / "results.test"))
    text = render([r for r in rows if r.query_id == "all"])
    assert text == "".join(line for line in expected("out.test.qrels_jg").splitlines(True)
                           if "\tall\t" in line)


# --- malformed input --------------------------------------------------------------

def test_prefs_malformed_line_names_file_and_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.prefs"
    path.write_text("# header\nq1 u1 s1 d1 2\nq1 u1 s1 d2\n")
    with pytest.raises(FormatError) as info:
        read_prefs(path)
    assert info.value.source == str(path)
    assert info.value.line == 3
    assert f"{path}:3" in str(info.value)


def test_prefs_non_numeric_level(tmp_path: Path) -> None:
    path = tmp_path / "bad.prefs"
    path.write_text("q1 u1 s1 d1 high\n")
    with pytest.raises(FormatError) as info:
        read_prefs(path)
    assert (info.value.source, info.value.line) == (str(path), 1)


def test_qrels_prefs_malformed_line(tmp_path: Path) -> None:
    path = tmp_path / "bad.qrels"
    path.write_text("q1 0 d1 1\nq1 0 d2 0 extra\n")
    with pytest.raises(FormatError) as info:
        read_qrels_prefs(path)
    assert (info.value.source, info.value.line) == (str(path), 2)


def test_qrels_jg_malformed_line_and_duplicate(tmp_path: Path) -> None:
    path = tmp_path / "bad.jg"
    path.write_text("q1 0 d1 1\n\nq1 0 d2 x\n")
    with pytest.raises(FormatError) as info:
        read_qrels_jg(path)
    assert (info.value.source, info.value.line) == (str(path), 3)
    path.write_text("q1 0 d1 1\nq1 1 d1 0\nq1 0 d1 2\n")
    with pytest.raises(DuplicateDocumentError) as dup:
        read_qrels_jg(path)
    assert dup.value.line == 3


# --- behaviour on small hand-made inputs ----------------------------------------------

def test_transitive_preferences_across_subgroups() -> None:
    # Sub-group a: d1 > d2; sub-group b: d2 > d3. So d1 > d3 too: 3 prefs.
    prefs = read_prefs("q u a d1 2\nq u a d2 1\nq u b d2 5\nq u b d3 4\n")
    rows = evaluate_prefs(prefs, {"q": ["d3", "d2", "d1"]},
                          ["prefs_num_prefs_poss", "prefs_num_prefs_ful"])
    assert rows[:2] == [Row("prefs_num_prefs_poss", "q", 3, "int"),
                        Row("prefs_num_prefs_ful", "q", 0, "int")]


def test_inconsistent_subgroups_are_an_error() -> None:
    prefs = read_prefs("q u a d1 2\nq u a d2 1\nq u b d2 2\nq u b d1 1\n")
    with pytest.raises(EvaluationError):
        evaluate_prefs(prefs, {"q": ["d1"]})


def test_measure_selection_and_order() -> None:
    prefs = read_prefs("q u s d1 1\nq u s d2 0\n")
    rows = evaluate_prefs(prefs, {"q": ["d1", "d2"]}, ["prefs_simp", "runid"], run_id="r")
    assert rows == [Row("prefs_simp", "q", 1.0, "float"), Row("runid", "all", "r", "str"),
                    Row("prefs_simp", "all", 1.0, "float")]
    with pytest.raises(MeasureError):
        evaluate_prefs(prefs, {"q": []}, ["map"])


def test_jg_parameters_and_names() -> None:
    qrels = read_qrels_jg("q 0 d1 1\nq 0 d2 0\nq 1 d2 1\n")
    rows = evaluate_jg(qrels, {"q": ["d1", "d2"]}, ["P_avgjg.2,1", "Rprec_mult_avgjg.1"])
    per_query = [(r.measure, r.value) for r in rows if r.query_id == "q"]
    # JG 0: P@1 = 1, P@2 = .5, R = 1 -> P@1 = 1. JG 1: P@1 = 0, P@2 = .5, P@1 = 0.
    assert per_query == [("P_avgjg_1", 0.5), ("P_avgjg_2", 0.5),
                         ("Rprec_mult_avgjg_1.00", 0.5)]


def test_missing_topic_policies() -> None:
    qrels = read_qrels_jg("q1 0 d1 1\nq2 0 d2 1\n")
    ranking = {"q1": ["d1"]}
    with pytest.raises(EvaluationError):
        evaluate_jg(qrels, ranking, ["map_avgjg"])
    skipped = evaluate_jg(qrels, ranking, ["num_q", "map_avgjg"], missing="skip")
    assert [r for r in skipped if r.query_id == "all"] == [
        Row("num_q", "all", 1, "int"), Row("map_avgjg", "all", 1.0, "float")]
    complete = evaluate_jg(qrels, ranking, ["num_q", "map_avgjg"], complete=True)
    assert complete == [Row("map_avgjg", "q1", 1.0, "float"),
                        Row("map_avgjg", "q2", 0.0, "float"),
                        Row("num_q", "all", 2, "int"), Row("map_avgjg", "all", 0.5, "float")]


def test_render_formats() -> None:
    text = render([Row("runid", "all", "x", "str"), Row("prefs_num_prefs_ful_ret", "q", 7, "int"),
                   Row("map_avgjg", "q", float("nan"), "float"),
                   Row("map_avgjg", "q", 0.12345, "float")])
    assert text == ("runid                 \tall\tx\n"
                    "prefs_num_prefs_ful_ret\tq\t7\n"
                    "map_avgjg             \tq\t  -nan\n"
                    "map_avgjg             \tq\t0.1235\n")
