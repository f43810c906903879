"""``relkit clicks validate``: each rule alone gives exactly its line; clean logs exit 0.

Every case is a small CSV log written inline: a clean base of two sessions, three
impressions, with exactly one problem planted, so the expected stdout is the one
line the rule promises (row numbers are CSV line numbers: the header is line 1).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli

HEADER = "impression_id,query_id,rank,doc_id,clicked,session_id,ts,click_ts,dwell_s"
CLEAN = [
    "i1,q1,1,d1,1,s1,100,101,30",   # line 2
    "i1,q1,2,d2,0,s1,100,,",        # line 3
    "i1,q1,3,d3,0,s1,100,,",        # line 4
    "i2,q2,1,d4,0,s1,200,,",        # line 5
    "i2,q2,2,d5,1,s1,200,210,5",    # line 6
    "i3,007,1,d1,0,s2,50,,",        # line 7
    "i3,007,2,d6,0,s2,50,,",        # line 8
]


def _log(tmp_path: Path, rows: list[str], name: str = "log.csv") -> Path:
    path = tmp_path / name
    path.write_text("\n".join([HEADER, *rows]) + "\n", encoding="utf-8")
    return path


def _with(line: int, row: str) -> list[str]:
    """CLEAN with CSV line ``line`` replaced by ``row``."""
    rows = list(CLEAN)
    rows[line - 2] = row
    return rows


def test_clean_log_exits_0_with_no_output(tmp_path: Path) -> None:
    code, out, err = run_cli(["clicks", "validate", str(_log(tmp_path, CLEAN))])
    assert (code, out) == (0, "")
    assert "7 rows, 3 impressions: no problems" in err


CASES = {
    "type": (_with(3, "i1,q1,2,d2,maybe,s1,100,,"),
             "{p}:3: clicked: expected an integer >= 0, found 'maybe' [type]"),
    "missing": (_with(3, "i1,,2,d2,0,s1,100,,"),
                "{p}:3: query_id: no value [missing]"),
    "range": (_with(6, "i2,q2,2,d5,1,s1,200,210,-5"),
              "{p}:6: dwell_s: expected a finite number >= 0 [range]"),
    "duplicate": (_with(4, "i1,q1,2,d3,0,s1,100,,"),
                  "{p}:3: rank: a rank shown twice in one impression (rows 3, 4) "
                  "[duplicate]"),
    "rank-gap": (_with(4, "i1,q1,4,d3,0,s1,100,,"),
                 "{p}:2: rank: ranks of an impression are not 1..n (a position never "
                 "shown) [rank-gap]"),
    "unshown-click": (_with(8, "i3,007,2,,1,s2,50,55,"),
                      "{p}:8: clicked: a click on a position that shows no document "
                      "[unshown-click]"),
    "click before shown": (_with(6, "i2,q2,2,d5,1,s1,200,190,5"),
                           "{p}:6: click_ts: click before the page was shown [clock]"),
    "session going back": (CLEAN[:3] + [r.replace(",200,", ",90,").replace(",210,", ",95,")
                                        for r in CLEAN[3:5]] + CLEAN[5:],
                           "{p}:5: ts: page shown earlier than the page before it in its "
                           "session [clock]"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_each_rule_alone_gives_exactly_its_line(tmp_path: Path, case: str) -> None:
    rows, line = CASES[case]
    path = _log(tmp_path, rows)
    code, out, err = run_cli(["clicks", "validate", str(path)])
    assert code == 1, err
    assert out.splitlines() == [line.format(p=path)]
    assert "1 kind(s) of problem" in err


def test_many_problems_are_counted_with_their_first_rows(tmp_path: Path) -> None:
    rows = [f"i{i},q,1,d,x,s{i},{i},," for i in range(10)]  # line 2..11, clicked 'x'
    path = _log(tmp_path, rows)
    code, out, _ = run_cli(["clicks", "validate", "--first", "3", str(path)])
    assert code == 1
    assert out.splitlines() == [f"{path}: clicked: expected an integer >= 0, found 'x' "
                                "[type]: 10 rows (first at rows 2, 3, 4)"]


def test_wide_form_click_past_the_shown_results(tmp_path: Path) -> None:
    path = tmp_path / "wide.jsonl"
    path.write_text('{"impression_id": "i1", "query_id": "q", "doc_ids": ["a", "b"], '
                    '"clicks": [0, 1]}\n'
                    '{"impression_id": "i2", "query_id": "q", "doc_ids": ["a"], '
                    '"clicks": [0, 0, 1]}\n', encoding="utf-8")
    code, out, _ = run_cli(["clicks", "validate", str(path)])
    assert code == 1
    assert out.splitlines() == [f"{path}:2: clicks: a click on a position that shows no "
                                "document [unshown-click]",
                                f"{path}:2: doc_ids: no value [missing]"]


@pytest.mark.parametrize("setup, message", [
    (lambda p: None, "{p}: no such file"),
    (lambda p: p.write_text("impression_id,query_id,doc_id,clicked\ni,q,d,1\n"),
     "{p}: expected a column 'rank' for the rank (map one with --map rank=COLUMN); found "
     "columns ['impression_id', 'query_id', 'doc_id', 'clicked']"),
])
def test_unreadable_log_is_one_line_and_exit_2(tmp_path: Path, setup, message) -> None:
    path = tmp_path / "log.csv"
    setup(path)
    code, out, err = run_cli(["clicks", "validate", str(path)])
    assert (code, out) == (2, "")
    assert err == f"relkit: error: {message.format(p=path)}\n"


def test_map_reads_other_column_names(tmp_path: Path) -> None:
    path = _log(tmp_path, CLEAN)
    path.write_text(path.read_text().replace("rank", "position", 1))
    code, _, err = run_cli(["clicks", "validate", str(path)])
    assert code == 2 and "--map rank=COLUMN" in err
    code, out, _ = run_cli(["clicks", "validate", str(path), "--map", "rank=position"])
    assert (code, out) == (0, "")


def test_bad_map_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = run_cli(["clicks", "validate", str(_log(tmp_path, CLEAN)),
                            "--map", "rnk=position"])
    assert code == 2
    assert "did you mean 'rank'" in err and err.count("\n") == 1


PARQUET_CASES = ["missing", "range", "duplicate", "rank-gap", "unshown-click",
                 "click before shown"]


@pytest.mark.parametrize("case", PARQUET_CASES)
def test_parquet_logs_give_the_same_lines(tmp_path: Path, case: str) -> None:
    """The same problems in a typed Parquet file, where the footer's statistics let
    clean columns go unread: the same line, rows counted from 1 without a header."""
    import re

    import pandas as pd

    rows, line = CASES[case]
    frame = pd.read_csv(_log(tmp_path, rows), dtype={"impression_id": str, "query_id": str,
                                                     "doc_id": str, "session_id": str})
    frame.to_parquet(path := tmp_path / "log.parquet", index=False)
    want = re.sub(r"(?<=:)(\d+)(?=:)|(?<=rows )(\d+), (\d+)",
                  lambda m: (str(int(m[1]) - 1) if m[1] else
                             f"{int(m[2]) - 1}, {int(m[3]) - 1}"), line.format(p=path))
    code, out, _ = run_cli(["clicks", "validate", str(path)])
    assert (code, out.splitlines()) == (1, [want])


def test_clean_parquet_log_exits_0(tmp_path: Path) -> None:
    import pandas as pd

    frame = pd.read_csv(_log(tmp_path, CLEAN), dtype=str).astype(
        {"rank": int, "clicked": int, "ts": float, "click_ts": float, "dwell_s": float})
    frame.to_parquet(path := tmp_path / "log.parquet", index=False)
    assert run_cli(["clicks", "validate", str(path)])[:2] == (0, "")
