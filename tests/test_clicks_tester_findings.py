"""Defects found by the tester helper (2026-11-24): these fail on main at a43f4e1."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli

HEADER = "impression_id,query_id,rank,doc_id,clicked"


@pytest.mark.parametrize("depth", [64, 70])
def test_a_clean_log_with_64_or_more_results_per_page_is_clean(tmp_path: Path, depth: int) -> None:
    # validate.py builds a rank bitmask with 1 << rank; DuckDB raises past 63.
    log = tmp_path / "deep.csv"
    log.write_text("\n".join([HEADER, *(f"i1,q1,{r},d{r},0" for r in range(1, depth + 1))]) + "\n",
                   encoding="utf-8")
    code, out, err = run_cli(["clicks", "validate", str(log)])
    assert (code, out) == (0, ""), err
    assert "Traceback" not in err


@pytest.mark.parametrize("command", [["validate"], ["stats"]])
def test_a_rank_past_int64_is_one_line_not_a_traceback(tmp_path: Path, command: list[str]) -> None:
    log = tmp_path / "huge.csv"
    log.write_text(f"{HEADER}\ni1,q1,1,d1,0\ni1,q1,99999999999999999999,d2,1\n", encoding="utf-8")
    code, _, err = run_cli(["clicks", *command, str(log)])
    assert "Traceback" not in err and "ConversionException" not in err, err
    assert code in (1, 2)
    assert len(err.strip().splitlines()) == 1 and "huge.csv:3" in err and "rank" in err, err
