"""Every error of ``relkit prefs`` and ``relkit eval --ppi`` about a file's content names
that file, as typed, in its one line (review 4, finding 9): the class check walks the
error paths of both commands, not only the three lines the review found."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli

HEAD = "topic_id\tleft\tright\tanswer\tassessor\n"
CYCLE = "1\ta\tb\tleft\tann\n1\tb\tc\tleft\tann\n1\tc\ta\tleft\tann\n"

# (answers file content, arguments after `prefs`, exit code); the file is answers.tsv.
PREFS = {
    "whitespace id, prefs": (HEAD + "1\ta b\tc\tleft\tann\n", ["convert", "--to", "prefs"], 1),
    "whitespace id, qrels_prefs": (HEAD + "1\ta\tc\tleft\tann x\n",
                                   ["convert", "--to", "qrels_prefs"], 1),
    "whitespace id, qrels": (HEAD + "1 x\ta\tc\tleft\tann\n", ["convert", "--to", "qrels"], 1),
    "cycle, qrels_prefs": (HEAD + CYCLE, ["convert", "--to", "qrels_prefs"], 1),
    "equal and better, qrels_prefs": (HEAD + "1\ta\tb\tequal\tann\n1\tb\tc\tequal\tann\n"
                                      "1\ta\tc\tleft\tann\n",
                                      ["convert", "--to", "qrels_prefs"], 1),
    "bad header": ("topic\tleft\tright\n1\ta\tb\n", ["convert"], 1),
    "unknown answer": (HEAD + "1\ta\tb\tbetter\tann\n", ["convert"], 1),
    "same document twice": (HEAD + "1\ta\ta\tleft\tann\n", ["report"], 1),
    "only the header": (HEAD, ["report"], 1),
    "one answer twice": (HEAD + "1\ta\tb\tleft\tann\n1\tb\ta\tright\tann\n", ["report"], 1),
}


def _one_line(code: int, err: str, want: int, name: str) -> None:
    lines = err.strip().splitlines()
    assert code == want, err
    assert len(lines) == 1 and lines[0].startswith("relkit: error: "), err
    assert name in lines[0], lines[0]


@pytest.mark.parametrize("case", sorted(PREFS))
def test_prefs_errors_name_the_answers_file(tmp_path: Path, case: str) -> None:
    text, args, want = PREFS[case]
    (tmp_path / "answers.tsv").write_text(text)
    code, _, err = run_cli(["prefs", args[0], "answers.tsv", *args[1:]], cwd=tmp_path)
    _one_line(code, err, want, "answers.tsv")


def test_prefs_known_errors_name_the_known_file(tmp_path: Path) -> None:
    (tmp_path / "answers.tsv").write_text(HEAD + "1\ta\tb\tleft\tann\n")
    (tmp_path / "known.qrels").write_text("")
    code, _, err = run_cli(["prefs", "convert", "answers.tsv", "--known", "known.qrels"],
                           cwd=tmp_path)
    _one_line(code, err, 1, "known.qrels")
    (tmp_path / "known.qrels").write_text("2 0 a 1\n2 0 b 0\n")
    code, _, err = run_cli(["prefs", "convert", "answers.tsv", "--known", "known.qrels"],
                           cwd=tmp_path)
    _one_line(code, err, 1, "answers.tsv")


QRELS = "1 0 a 2\n1 0 b 0\n1 0 c 1\n1 0 d 0\n1 0 e 3\n1 0 f 0\n"
RUN = "1 Q0 a 1 9 tag\n1 Q0 b 2 8 tag\n1 Q0 c 3 7 tag\n"

# (human qrels, run, extra options, the file the line must name, exit code)
PPI = {
    "stratified, one label in a stratum": ("1 0 a 2\n1 0 b 0\n", RUN,
                                           ["--design", "stratified"], "human.qrels", 1),
    "simple, one label": ("1 0 a 2\n", RUN, [], "human.qrels", 1),
    "label outside the pool": ("1 0 zz 1\n1 0 a 2\n", RUN, [], "human.qrels", 1),
    "no label": ("", RUN, [], "human.qrels", 1),
    "run without a pooled topic": ("1 0 a 2\n1 0 b 0\n", "9 Q0 a 1 9 tag\n", [],
                                   "run.txt", 1),
    "bad human line": ("1 0 a\n", RUN, [], "human.qrels", 1),
    "bad run line": ("1 0 a 2\n1 0 b 0\n", "1 Q0 a\n", [], "run.txt", 1),
}


@pytest.mark.parametrize("case", sorted(PPI))
def test_eval_ppi_errors_name_the_file(tmp_path: Path, case: str) -> None:
    human, run, extra, name, want = PPI[case]
    (tmp_path / "auto.qrels").write_text(QRELS)
    (tmp_path / "human.qrels").write_text(human)
    (tmp_path / "run.txt").write_text(run)
    code, out, err = run_cli(["eval", "--ppi", "--human", "human.qrels", "--auto",
                              "auto.qrels", "-m", "P@3", *extra, "run.txt"], cwd=tmp_path)
    assert out == ""
    _one_line(code, err, want, name)


def test_eval_ppi_empty_auto_names_the_file(tmp_path: Path) -> None:
    (tmp_path / "auto.qrels").write_text("")
    (tmp_path / "human.qrels").write_text("1 0 a 2\n")
    (tmp_path / "run.txt").write_text(RUN)
    code, _, err = run_cli(["eval", "--ppi", "--human", "human.qrels", "--auto",
                            "auto.qrels", "run.txt"], cwd=tmp_path)
    _one_line(code, err, 1, "auto.qrels")
