"""Click-log readers: every format and form gives the same long-form table; conversions.

The oracle of the round trips is one pandas frame written out by pandas/pyarrow in each
format (and regrouped into the SERP-wide form); the Yandex sample is hand-written in the
documented format with the expected long-form rows worked out in a comment.
"""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from helpers import run_cli
from relkit.metrics.errors import FormatError
from relkit.metrics.online.source import open_log

LONG = pd.DataFrame({
    "impression_id": ["007", "007", "007", "i2", "i2"],
    "query_id": ["0042", "0042", "0042", "q2", "q2"],
    "rank": [1, 2, 3, 1, 2],
    "doc_id": ["d1", "d2", "000", "d1", "d4"],
    "clicked": [1, 0, 2, 0, 0],
    "user_id": ["u1", "u1", "u1", "u2", "u2"],
    "variant": ["A", "A", "A", "B", "B"],
})
COLUMNS = list(LONG.columns)


def _read(path: Path, **kw: object) -> pd.DataFrame:
    log = open_log(path, **kw)  # type: ignore[arg-type]
    frame = log.con.execute(f"SELECT {', '.join(COLUMNS)} FROM {log.view} "
                            "ORDER BY _row, rank").df()
    return frame.astype({"rank": "int64", "clicked": "int64"})


def _wide(frame: pd.DataFrame) -> list[dict[str, object]]:
    out = []
    for imp, g in frame.groupby("impression_id", sort=False):
        out.append({"impression_id": imp, "query_id": g.query_id.iloc[0],
                    "user_id": g.user_id.iloc[0], "variant": g.variant.iloc[0],
                    "doc_ids": list(g.doc_id), "clicks": [int(c) for c in g.clicked]})
    return out


def _write(tmp_path: Path, kind: str) -> Path:
    if kind == "csv":
        LONG.to_csv(p := tmp_path / "log.csv", index=False)
    elif kind == "tsv":
        LONG.to_csv(p := tmp_path / "log.tsv", index=False, sep="\t")
    elif kind == "jsonl":
        LONG.to_json(p := tmp_path / "log.jsonl", orient="records", lines=True)
    elif kind == "parquet":
        LONG.to_parquet(p := tmp_path / "log.parquet", index=False)
    elif kind == "wide-parquet":
        pq.write_table(pa.Table.from_pylist(_wide(LONG)), p := tmp_path / "wide.parquet")
    else:  # wide-jsonl
        p = tmp_path / "wide.jsonl"
        p.write_text("".join(json.dumps(r) + "\n" for r in _wide(LONG)), encoding="utf-8")
    return p


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl", "parquet", "wide-parquet",
                                  "wide-jsonl"])
def test_every_format_and_form_reads_to_the_same_long_table(tmp_path: Path, kind: str
                                                            ) -> None:
    got = _read(_write(tmp_path, kind))
    pd.testing.assert_frame_equal(got, LONG, check_dtype=False)
    assert got.impression_id.tolist()[0] == "007"  # ids stay strings, zeros kept


def test_numeric_ids_in_a_typed_file_become_strings(tmp_path: Path) -> None:
    frame = LONG.assign(query_id=[42, 42, 42, 7, 7])
    frame.to_parquet(path := tmp_path / "log.parquet", index=False)
    got = _read(path)
    assert got.query_id.tolist() == ["42", "42", "42", "7", "7"]


def test_impression_id_derived_from_session_ts_query(tmp_path: Path) -> None:
    frame = LONG.drop(columns="impression_id").assign(session_id="s1", ts=[5, 5, 5, 9, 9])
    frame.to_csv(path := tmp_path / "log.csv", index=False)
    log = open_log(path)
    ids = [r[0] for r in log.con.execute(f"SELECT impression_id FROM {log.view} "
                                         "ORDER BY _row").fetchall()]
    assert ids == ["s1|5|0042"] * 3 + ["s1|9|q2"] * 2
    assert log.columns["impression_id"] == "session_id+ts+query_id"


def test_a_mistyped_column_is_named(tmp_path: Path) -> None:
    frame = LONG.assign(rank=[[1], [2], [3], [1], [2]])
    pq.write_table(pa.Table.from_pandas(frame), path := tmp_path / "log.parquet")
    with pytest.raises(FormatError, match=r"log.parquet: expected column 'rank' \(the rank\) "
                       r"to hold an integer >= 1; found type BIGINT\[\]"):
        open_log(path)


# The Yandex sample, in the documented format (tabs; region 213; one M record):
#   session 10: SERP 0 for query 7 shows 101, 102, 103; clicks 102 at t=5 and 103 at t=20;
#               SERP 1 for query 8 at t=50 shows 104, 101; click 101 at t=60, twice.
#   session 11: user 900; SERP 0 for query 007 shows 105, 106, no click.
# Dwell = the session's next action's time minus the click's: 102: 20-5 = 15, 103: 50-20
# = 30, 101 on SERP 1: 70-60 = 10 (its second click is the session's last action).
YANDEX = ("10\t0\tQ\t0\t7\t213\t101\t102,5\t103\n"
          "10\t5\tC\t0\t102,5\n"
          "10\t20\tC\t0\t103\n"
          "10\t50\tQ\t1\t8\t213\t104\t101\n"
          "10\t60\tC\t1\t101\n"
          "10\t70\tC\t1\t101\n"
          "11\tM\t3\t900\n"
          "11\t0\tQ\t0\t007\t213\t105\t106\n")
YANDEX_LONG = [
    # impression, query, rank, doc, clicked, user, session, ts, click_ts, dwell_s
    ("10/0", "7", 1, "101", 0, None, "10", 0.0, None, None),
    ("10/0", "7", 2, "102", 1, None, "10", 0.0, 5.0, 15.0),
    ("10/0", "7", 3, "103", 1, None, "10", 0.0, 20.0, 30.0),
    ("10/1", "8", 1, "104", 0, None, "10", 50.0, None, None),
    ("10/1", "8", 2, "101", 2, None, "10", 50.0, 60.0, 10.0),
    ("11/0", "007", 1, "105", 0, "900", "11", 0.0, None, None),
    ("11/0", "007", 2, "106", 0, "900", "11", 0.0, None, None),
]


def test_yandex_conversion_of_a_hand_written_sample(tmp_path: Path) -> None:
    (src := tmp_path / "yandex.txt").write_text(YANDEX, encoding="utf-8")
    out = tmp_path / "long.parquet"
    code, _, err = run_cli(["clicks", "convert", str(src), "--from", "yandex", "-o", str(out)])
    assert code == 0, err
    table = pq.read_table(out)
    assert table.column_names == ["impression_id", "query_id", "rank", "doc_id", "clicked",
                                  "user_id", "session_id", "ts", "click_ts", "dwell_s"]
    assert [tuple(r.values()) for r in table.to_pylist()] == YANDEX_LONG
    code, out_text, _ = run_cli(["clicks", "validate", str(out)])
    assert (code, out_text) == (0, "")


@pytest.mark.parametrize("text, message", [
    ("10\t0\tQ\t0\t7\t213\t101\n10\tx\tC\t0\t101\n",
     "{p}:2: expected an integer TimePassed in field 2; found '10 | x | C | 0 | 101'"),
    ("10\t0\tQ\t0\t7\t213\t101\n10\t3\tC\t0\t999\n",
     "{p}:2: expected a click on a URL shown on SERP '0'; found URL '999', not on that SERP"),
    ("10\t0\tX\t0\n", "{p}:1: expected a Q record"),
])
def test_bad_yandex_input_is_one_line_and_writes_nothing(tmp_path: Path, text: str,
                                                         message: str) -> None:
    (src := tmp_path / "yandex.txt").write_text(text, encoding="utf-8")
    out = tmp_path / "long.parquet"
    code, _, err = run_cli(["clicks", "convert", str(src), "--from", "yandex", "-o", str(out)])
    assert code == 1
    assert err.startswith("relkit: error: " + message.format(p=src)) and err.count("\n") == 1
    assert list(tmp_path.iterdir()) == [src]


def test_convert_wide_to_long_and_bad_value_writes_nothing(tmp_path: Path) -> None:
    src = _write(tmp_path, "wide-jsonl")
    out = tmp_path / "long.parquet"
    code, _, err = run_cli(["clicks", "convert", str(src), "-o", str(out)])
    assert code == 0, err
    pd.testing.assert_frame_equal(pd.read_parquet(out)[COLUMNS], LONG, check_dtype=False)
    out.unlink()
    bad = LONG.astype({"rank": object})
    bad.loc[3, "rank"] = "first"
    bad.to_csv(src := tmp_path / "bad.csv", index=False)
    code, _, err = run_cli(["clicks", "convert", str(src), "-o", str(out)])
    assert code == 1
    assert err == (f"relkit: error: {src}:5: expected an integer >= 1 in column 'rank'; "
                   "found 'first'\n")
    assert not out.exists() and sorted(p.name for p in tmp_path.iterdir()) == [
        "bad.csv", "wide.jsonl"]


def test_assignment_table(tmp_path: Path) -> None:
    from relkit.metrics.online.source import open_assignments

    (path := tmp_path / "assign.csv").write_text(
        "user,arm,first_exposure_ts,pre_ctr,segment\n"
        "007,control,2024-01-01T00:00:01,0.25,a\n"
        "8,treatment,1704067300,1,b\n", encoding="utf-8")
    a = open_assignments(path, {"unit_id": "user", "variant": "arm"})
    assert a.fields == ("unit_id", "variant", "first_exposure_ts")
    assert a.extra == ("pre_ctr", "segment")
    rows = a.con.execute(f"SELECT unit_id, variant, first_exposure_ts, pre_ctr, segment "
                         f"FROM {a.view} ORDER BY _row").fetchall()
    assert rows == [("007", "control", 1704067201.0, 0.25, "a"),
                    ("8", "treatment", 1704067300.0, 1.0, "b")]
    types = dict(zip(a.con.table(a.view).columns, map(str, a.con.table(a.view).types),
                     strict=True))
    assert types["pre_ctr"] == "DOUBLE" and types["unit_id"] == "VARCHAR"


def test_assignment_table_missing_unit_names_the_line(tmp_path: Path) -> None:
    from relkit.metrics.online.source import open_assignments

    (path := tmp_path / "assign.csv").write_text("unit_id,variant\nu1,A\n,B\n",
                                                 encoding="utf-8")
    with pytest.raises(FormatError, match=r"assign.csv:3: expected an id \(a string\) in "
                       r"column 'unit_id'; found a missing or mistyped value"):
        open_assignments(path)
