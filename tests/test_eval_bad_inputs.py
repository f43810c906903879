"""Bad runs and qrels that once ended in a traceback, an abort or the OOM killer."""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from helpers import run_cli

RUN = "q1 Q0 d1 1 2.0 r\nq1 Q0 d2 2 1.0 r\n"


@pytest.mark.parametrize("grade", ["100000000000000000000000", "3000000000", "-2147483649"])
def test_grade_out_of_range_is_one_line_naming_file_and_line(tmp_path: Path,
                                                             grade: str) -> None:
    (tmp_path / "q.txt").write_text(f"q1 0 d2 1\nq1 0 d1 {grade}\n")
    (tmp_path / "r.txt").write_text(RUN)
    code, out, err = run_cli(["eval", "q.txt", "r.txt"], cwd=tmp_path)
    assert (code, out) == (1, "")
    assert err == (f"relkit: error: q.txt:2: expected an integer grade between -2147483648 "
                   f"and 2147483647 in the last field; found '{grade}'\n")


def test_a_huge_grade_is_refused_before_its_table_is_allocated(tmp_path: Path) -> None:
    # 3,000,000 fits in 32 bits, but a topics x grades table of counts for it would be
    # 24 MB per topic: it was killed for memory at 3e9. Now: one line, exit 1.
    (tmp_path / "q.txt").write_text("".join(f"q{i} 0 d1 30000000\n" for i in range(3)))
    (tmp_path / "r.txt").write_text("q1 Q0 d1 1 1.0 r\n")
    code, _, err = run_cli(["eval", "-m", "ndcg", "q.txt", "r.txt"], cwd=tmp_path)
    assert code == 1
    assert err.startswith("relkit: error: q.txt: grades up to 30000000 over 3 topics")
    assert err.count("\n") == 1


@pytest.mark.parametrize("which", ["run", "qrels"])
def test_broken_gzip_is_one_line_not_an_abort(tmp_path: Path, which: str) -> None:
    whole = gzip.compress(RUN.encode() if which == "run" else b"q1 0 d1 1\n")
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.txt").write_text(RUN)
    (tmp_path / "bad.gz").write_bytes(whole[:15])
    args = ["eval", "q.txt", "bad.gz"] if which == "run" else ["eval", "bad.gz", "r.txt"]
    code, out, err = run_cli(args, cwd=tmp_path)
    assert (code, out) == (1, "")
    assert err.startswith("relkit: error: bad.gz: expected a complete gzip stream")
    assert err.count("\n") == 1


def test_negative_M_names_the_option_as_typed(tmp_path: Path) -> None:
    (tmp_path / "q.txt").write_text("q1 0 d1 1\n")
    (tmp_path / "r.txt").write_text(RUN)
    code, out, err = run_cli(["eval", "-M", "-5", "q.txt", "r.txt"], cwd=tmp_path)
    assert (code, out) == (2, "")
    assert err == "relkit eval: error: Invalid value for '-M': -5 is not in x >= 0\n"
