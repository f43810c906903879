"""``relkit prefs convert`` / ``report``: outputs and bad input, one line each."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli

HEADER = "topic_id\tleft\tright\tanswer\tassessor\n"
GOOD = HEADER + "".join(f"{t}\t{a}\t{b}\t{ans}\t{who}\n" for t, a, b, ans, who in [
    ("101", "D1", "D2", "left", "ann"), ("101", "D2", "D3", "left", "ann"),
    ("101", "D1", "D3", "left", "ann"), ("101", "D3", "D4", "neither", "ann"),
    ("101", "D1", "D2", "left", "bob"), ("101", "D3", "D2", "left", "bob"),
    ("101", "D1", "D3", "equal", "bob")])


def _file(tmp_path: Path, text: str, name: str = "answers.tsv") -> str:
    path = tmp_path / name
    path.write_text(text)
    return str(path)


def test_report_gives_scores_agreement_and_triples(tmp_path: Path) -> None:
    code, out, err = run_cli(["prefs", "report", _file(tmp_path, GOOD)])
    assert code == 0, err
    blocks = out.split("\n\n")
    assert blocks[0].splitlines()[0] == "topic\tdoc\ttheta\tse\tnu\tfit"
    assert [line.split("\t")[1] for line in blocks[0].splitlines()[1:]][0] == "D1"
    # ann and bob share 3 pairs (D1-D2, D2-D3, D1-D3) and answered one alike
    assert "ann\t3\t0.3333\t0" in blocks[1] and "bob\t3\t0.3333\t0" in blocks[1]
    assert "ann\tbob\t3\t0.3333" in blocks[2]
    # bob: D1 > D2, D3 > D2, D1 = D3 is consistent, and so are ann's: no cycles
    assert len(blocks) == 3


def test_convert_writes_each_format(tmp_path: Path) -> None:
    answers = _file(tmp_path, GOOD)
    for fmt, first in (("prefs", "101 ann a2 D1 2"), ("qrels_prefs", "101 ann D1 2"),
                       ("qrels", "101 0 D1 3")):
        code, out, err = run_cli(["prefs", "convert", answers, "--to", fmt])
        assert code == 0 and err == "", err
        assert out.splitlines()[0] == first


@pytest.mark.parametrize(("line", "says"), [
    ("101\tD1\tD1\tleft\tann", "answers.tsv:2: expected two different documents; found 'D1' "
                               "on both sides"),
    ("101\tD1\tD2\tbetter\tann", "answers.tsv:2: expected an answer of left, right, equal, "
                                 "neither; found 'better'"),
    ("101\tD1\tD2\tleft", "answers.tsv:2: expected 5 tab-separated fields"),
])
def test_bad_lines_are_one_line_naming_file_and_line(tmp_path: Path, line: str,
                                                     says: str) -> None:
    code, out, err = run_cli(["prefs", "convert", _file(tmp_path, HEADER + line + "\n")])
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and says in err, err


def test_a_second_answer_on_a_pair_is_refused(tmp_path: Path) -> None:
    text = HEADER + "1\ta\tb\tleft\tann\n1\tb\ta\tleft\tann\n"
    code, _, err = run_cli(["prefs", "report", _file(tmp_path, text)])
    assert code == 1 and err.count("\n") == 1 and "answers.tsv:3:" in err and "line 2" in err


def test_unknown_ids_against_a_collection_are_refused(tmp_path: Path) -> None:
    qrels = _file(tmp_path, "101 0 D1 1\n101 0 D2 0\n101 0 D3 1\n101 0 D4 0\n", "q.txt")
    code, _, err = run_cli(["prefs", "convert", _file(tmp_path, GOOD), "--known", qrels])
    assert code == 0, err
    bad = _file(tmp_path, HEADER + "101\tD1\tD9\tleft\tann\n", "bad.tsv")
    code, _, err = run_cli(["prefs", "convert", bad, "--known", qrels])
    assert code == 1 and err.count("\n") == 1
    assert "bad.tsv:2: expected a known document of topic '101'; found document 'D9'" in err
    other = _file(tmp_path, HEADER + "102\tD1\tD2\tleft\tann\n", "other.tsv")
    code, _, err = run_cli(["prefs", "report", other, "--known", qrels])
    assert code == 1 and "other.tsv:2: expected a known topic; found topic '102'" in err


def test_a_cycle_is_allowed_and_reported(tmp_path: Path) -> None:
    cyc = _file(tmp_path, HEADER + "1\ta\tb\tleft\tann\n1\tb\tc\tleft\tann\n"
                                   "1\tc\ta\tleft\tann\n")
    code, out, err = run_cli(["prefs", "convert", cyc, "--to", "prefs"])
    assert code == 0 and out
    assert err.count("\n") == 1 and "assessor 'ann' has 1 intransitive triple(s)" in err
    code, out, err = run_cli(["prefs", "report", cyc])
    assert code == 0 and out.rstrip().endswith("ann\t1\ta b c")
    code, out, err = run_cli(["prefs", "convert", cyc, "--to", "qrels_prefs"])
    assert code == 1 and out == "" and err.count("\n") == 1 and "cycle" in err


def test_an_unknown_format_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run_cli(["prefs", "convert", _file(tmp_path, GOOD), "--to", "trec"])
    assert code == 2 and err.count("\n") == 1 and "'trec' is not one of" in err
