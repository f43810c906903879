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


@pytest.mark.parametrize("command", [["validate"], ["stats"], ["convert", "-o", "x.parquet"]])
def test_a_rank_past_int64_is_one_line_not_a_traceback(tmp_path: Path, command: list[str]) -> None:
    command = [str(tmp_path / c) if c.endswith(".parquet") else c for c in command]
    log = tmp_path / "huge.csv"
    log.write_text(f"{HEADER}\ni1,q1,1,d1,0\ni1,q1,99999999999999999999,d2,1\n", encoding="utf-8")
    code, out, err = run_cli(["clicks", *command, str(log)])
    assert "Traceback" not in err and "ConversionException" not in err, err
    assert code in (1, 2)
    # validate lists problems on stdout (its summary on stderr); stats errors on stderr
    said = out if command == ["validate"] else err
    assert len(said.strip().splitlines()) == 1 and "huge.csv:3" in said and "rank" in said, said


@pytest.mark.parametrize(("text", "where", "found"), [
    # a long last row was taken for the header by DuckDB's sniffer
    (f"{HEADER}\ni1,q1,1,d1,0\ni1,q1,2,d2,0\ni1,q1,3,d3,0,extra\n", ":4:", "found 6"),
    # a ragged second line made the sniffer give up, naming no row
    (f"{HEADER}\ni1,q1,1,d1,0,x\ni1,q1,2,d2,0\n", ":2:", "found 6"),
    (f"{HEADER}\ni1,q1,1,d1,0\ni1,q1,2\ni1,q1,3,d3,0\n", ":3:", "found 3"),
])
@pytest.mark.parametrize("command", ["validate", "stats", "convert"])
def test_a_ragged_csv_row_is_named_by_its_line(tmp_path: Path, text: str, where: str,
                                               found: str, command: str) -> None:
    log = tmp_path / "ragged.csv"
    log.write_text(text, encoding="utf-8")
    extra = ["-o", str(tmp_path / "out.parquet")] if command == "convert" else []
    code, _, err = run_cli(["clicks", command, str(log), *extra])
    assert code in (1, 2) and "Traceback" not in err
    assert len(err.strip().splitlines()) == 1, err
    assert f"ragged.csv{where} expected 5 fields" in err and found in err, err
    assert not (tmp_path / "out.parquet").exists()


def test_a_bad_jsonl_line_is_named_by_its_own_number(tmp_path: Path) -> None:
    good = '{"impression_id": "i1", "query_id": "q1", "rank": %d, "doc_id": "d%d", "clicked": 0}'
    log = tmp_path / "bad.jsonl"
    log.write_text("\n".join([good % (1, 1), good % (2, 2), '{"impression_id": "i1",',
                              good % (3, 3)]) + "\n", encoding="utf-8")
    code, _, err = run_cli(["clicks", "validate", str(log)])
    assert code == 2 and "Traceback" not in err
    assert "bad.jsonl:3:" in err, err


def test_an_empty_csv_says_so(tmp_path: Path) -> None:
    log = tmp_path / "empty.csv"
    log.write_text("", encoding="utf-8")
    code, _, err = run_cli(["clicks", "validate", str(log)])
    assert code == 2 and "Traceback" not in err
    assert "empty.csv: empty file (no header)" in err, err
    assert "column0" not in err


def test_a_quoted_header_and_a_header_only_file_still_read(tmp_path: Path) -> None:
    log = tmp_path / "quoted.csv"
    log.write_text('"impression_id","query_id","rank","doc_id","clicked"\n"i,1",q1,1,d1,1\n',
                   encoding="utf-8")
    code, out, err = run_cli(["clicks", "validate", str(log)])
    assert (code, out) == (0, ""), err
    only = tmp_path / "only.csv"
    only.write_text(HEADER + "\n", encoding="utf-8")
    code, out, err = run_cli(["clicks", "validate", str(only)])
    assert (code, out) == (0, ""), err


def _good(tmp_path: Path) -> Path:
    log = tmp_path / "good.csv"
    log.write_text(f"{HEADER}\ni1,q1,1,d1,1\ni1,q1,2,d2,0\n", encoding="utf-8")
    return log


def test_a_bad_input_format_names_the_option_once(tmp_path: Path) -> None:
    code, _, err = run_cli(["clicks", "convert", str(_good(tmp_path)), "--input-format", "xls",
                            "-o", str(tmp_path / "x.parquet")])
    assert code == 2 and err.count("--input-format") == 1, err
    assert "parquet, csv, tsv or jsonl" in err and "'xls'" in err


def test_an_unknown_stats_format_lists_text_too(tmp_path: Path) -> None:
    code, _, err = run_cli(["clicks", "stats", str(_good(tmp_path)), "--format", "xml"])
    assert code == 2 and "text, tsv, csv, json, markdown" in err, err


def test_an_unknown_by_lists_the_fields_it_may_name(tmp_path: Path) -> None:
    code, _, err = run_cli(["clicks", "stats", str(_good(tmp_path)), "--by", "nosuch"])
    assert code != 0 and "--map nosuch" not in err, err
    assert "--by" in err and "impression_id, query_id, rank, doc_id, clicked" in err, err


def test_convert_refuses_an_output_not_named_parquet(tmp_path: Path) -> None:
    out = tmp_path / "x.csv"
    code, _, err = run_cli(["clicks", "convert", str(_good(tmp_path)), "-o", str(out)])
    assert code == 2 and "-o" in err and ".parquet" in err, err
    assert len(err.strip().splitlines()) == 1 and not out.exists()


@pytest.mark.parametrize(("fmt", "sep"), [("tsv", "\t"), ("csv", ",")])
@pytest.mark.parametrize("by", [None, "variant"])
def test_stats_tsv_and_csv_are_one_parseable_table(tmp_path: Path, fmt: str, sep: str,
                                                    by: str | None) -> None:
    import csv
    import io

    log = tmp_path / "v.csv"
    log.write_text(f"{HEADER},variant\ni1,q1,1,d1,1,A\ni1,q1,2,d2,0,A\ni2,q1,1,d1,0,B\n",
                   encoding="utf-8")
    code, out, err = run_cli(["clicks", "stats", str(log), "--format", fmt,
                              *(["--by", by] if by else [])])
    assert code == 0, err
    rows = list(csv.reader(io.StringIO(out), delimiter=sep))
    head = ["section", *([by] if by else []), "rank", "name", "value"]
    assert rows[0] == head and all(len(r) == len(head) for r in rows), out
    got = {tuple(r[:-1]): r[-1] for r in rows[1:]}
    if by:
        assert got["summary", "A", "", "impressions"] == "1"
        assert got["summary", "B", "", "abandonment"] == "1.0000"
        assert got["ctr_by_rank", "A", "2", "shown"] == "1"
        assert got["ctr_by_rank", "A", "1", "ctr"] == "1.0000"
    else:
        assert got["summary", "", "rows"] == "3" and got["summary", "", "clicks"] == "1"
        assert got["ctr_by_rank", "1", "ctr"] == "0.5000"
        assert got["ctr_by_rank", "2", "clicked"] == "0"


@pytest.mark.parametrize("command", ["validate", "stats", "convert"])
def test_help_keeps_each_docstring_line_whole(command: str,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    # rich keeps a docstring's line breaks and wraps lines past the panel's width:
    # lines longer than that came out broken mid-sentence ("... one row per group" / "and")
    import inspect

    from relkit.metrics.online import cli

    monkeypatch.setenv("COLUMNS", "80")
    code, out, _ = run_cli(["clicks", command, "--help"])
    assert code == 0
    shown = [" ".join(r.replace("│", " ").split()) for r in out.splitlines()]
    for line in (inspect.getdoc(getattr(cli, command)) or "").splitlines():
        assert any(" ".join(line.split()) in r for r in shown), line


def test_parquet_ranks_far_past_63_and_past_int64(tmp_path: Path) -> None:
    duckdb = pytest.importorskip("duckdb")
    con = duckdb.connect()
    rows = "SELECT 'i1' AS impression_id, 'q1' AS query_id, {rank} AS rank, 'd' || r AS doc_id, " \
           "0 AS clicked FROM range(1, {n}) t(r)"
    deep, far, wide = (tmp_path / f"{n}.parquet" for n in ("deep", "far", "wide"))
    con.execute(f"COPY ({rows.format(rank='r::BIGINT', n=66)}) TO '{deep}'")
    con.execute(f"COPY ({rows.format(rank='(CASE WHEN r = 2 THEN 4611686018427387904 ELSE r END)::BIGINT', n=3)}) TO '{far}'")  # noqa: E501
    con.execute(f"COPY ({rows.format(rank='(CASE WHEN r = 2 THEN 18446744073709551615 ELSE r END)::UBIGINT', n=3)}) TO '{wide}'")  # noqa: E501
    assert run_cli(["clicks", "validate", str(deep)])[:2] == (0, "")
    code, out, err = run_cli(["clicks", "validate", str(far)])
    assert code == 1 and "far.parquet:1: rank:" in out and "[rank-gap]" in out, err
    code, out, err = run_cli(["clicks", "validate", str(wide)])
    assert code == 1 and "wide.parquet:2: rank: expected an integer >= 1" in out, err
    code, _, err = run_cli(["clicks", "stats", str(wide)])
    assert code == 1 and err.strip().splitlines() == [
        f"relkit: error: {wide}:2: expected an integer >= 1 in column 'rank'; "
        "found '18446744073709551615'"], err


@pytest.mark.parametrize(("text", "said"), [
    (b'i1,"q1,2,d2,0\ni1,q1,3,d3,0\n', "expected a closing quote"),
    (b"i1,q1,2,d\xff2,0\n", "expected UTF-8 text"),
])
def test_other_csv_errors_name_the_line(tmp_path: Path, text: bytes, said: str) -> None:
    log = tmp_path / "bad.csv"
    log.write_bytes(f"{HEADER}\ni1,q1,1,d1,0\n".encode() + text)
    code, _, err = run_cli(["clicks", "validate", str(log)])
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"bad.csv:3: {said}" in err, err
