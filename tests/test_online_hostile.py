"""Hostile click logs through every online command: one clean line, the right exit code.

Each command of ``relkit clicks``, ``relkit ab`` and ``relkit interleave`` that reads a
click log is fed each log of :mod:`online_hostile_cases` in CSV, TSV, JSONL and Parquet:
a log it cannot use is refused with exit 1 or 2 and one stderr line naming the file
(and the field or line), never a traceback; a valid log (``good``, NaN as missing)
runs with exit 0.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from online_hostile_cases import FORMATS, VALUE_CASES, good_rows, raw_cases, write_rows

# {log} the hostile log; {assign}, {lists}: valid companions; {out} a fresh output path.
COMMANDS = {
    "clicks validate": "clicks validate {log}",
    "clicks stats": "clicks stats {log}",
    "clicks fit": "clicks fit {log} -o {out}.json --model pbm --iterations 2",
    "clicks convert": "clicks convert {log} -o {out}.parquet",
    "ab analyze": "ab analyze {log} --assign {assign} -m ctr@1 -m time_to_first_click",
    "ab monitor": "ab monitor {log} --assign {assign} --looks 2",
    "ab power": "ab power --from-log {log} --mde 1%",
    "interleave analyze": "interleave analyze {log} --lists {lists}",
}
# Commands that need columns the raw cases lack still must refuse them cleanly.


def _companions(tmp: Path) -> dict[str, str]:
    assign = tmp / "assign.csv"
    assign.write_text("unit_id,variant\n" + "".join(
        f"u{u},{'control' if u % 2 == 0 else 'treatment'}\n" for u in range(6)),
        encoding="utf-8")
    lists = tmp / "lists.tsv"
    lists.write_text("query_id\trank\tdoc_id\tteam\n" + "".join(
        f"q{i}\t{r}\td{r}\t{'A' if r == 1 else 'B'}\n" for i in range(2) for r in (1, 2)),
        encoding="utf-8")
    return {"assign": str(assign), "lists": str(lists), "out": str(tmp / "out")}


def _run(command: str, log: Path, tmp: Path) -> tuple[int, str, str]:
    args = COMMANDS[command].format(log=log, **_companions(tmp)).split()
    try:
        return run_cli(args)
    except Exception as exc:  # noqa: BLE001 - what escapes is the finding
        pytest.fail(f"{command} on {log.name}: {type(exc).__name__}: {exc}")


def _assert_refused(code: int, out: str, err: str, log: Path, names: str,
                    command: str) -> None:
    lines = err.strip().splitlines()
    assert code in (1, 2), (code, out, err)
    assert "Traceback" not in err
    assert len(lines) == 1, err
    said = err if command != "clicks validate" or not out else out + err
    assert log.name in said, said
    assert names in said, (names, said)


def _matrix(cases: list[str], formats: list[str] | None = None) -> list[object]:
    """(command, case, format) for every combination. The readers are shared by the
    commands, so most are slow: the fast run takes one format per (command, case),
    rotating, or with ``formats`` given (the raw files, format in the case) two
    commands."""
    out = []
    for i, command in enumerate(COMMANDS):
        for j, case in enumerate(cases):
            for k, fmt in enumerate(formats or FORMATS):
                if formats is None:
                    fast = k == (i + j) % len(FORMATS)
                else:
                    fast = command in ("clicks stats", "ab analyze")
                out.append(pytest.param(command, case, fmt, id=f"{command}-{case}-{fmt}",
                                        marks=() if fast else pytest.mark.slow))
    return out


@pytest.mark.parametrize(("command", "case", "fmt"), _matrix(list(VALUE_CASES)))
def test_a_hostile_value(tmp_path: Path, command: str, case: str, fmt: str) -> None:
    edit, names = VALUE_CASES[case]
    log = write_rows(edit(good_rows()), tmp_path / f"{case}.{fmt}", fmt)
    code, out, err = _run(command, log, tmp_path)
    if names is None:
        assert code == 0, err
        assert "Traceback" not in err
        return
    if case == "header_only" and fmt == "jsonl":
        # no header in JSON lines: a log with no rows is an empty file
        names = "empty file"
        if command == "clicks validate":  # cannot be read: exit 2, as an empty CSV
            assert code == 2, err
    elif case == "header_only" and command == "clicks validate":
        # a checker: the header is read, nothing breaks a rule, and it says so
        assert code == 0 and "0 rows, 0 impressions: no problems" in err, err
        return
    _assert_refused(code, out, err, log, names, command)
    assert not (tmp_path / "out.parquet").exists() and not (tmp_path / "out.json").exists()


RAW = [f"{f}/{c}" for f in FORMATS for c in raw_cases(f)]


@pytest.mark.parametrize(("command", "case", "fmt"), _matrix(RAW, ["raw"]))
def test_a_hostile_file(tmp_path: Path, command: str, case: str, fmt: str) -> None:
    fmt, case = case.split("/")  # the format is part of the case here
    data, names = raw_cases(fmt)[case]
    log = tmp_path / f"{case}.{fmt}"
    log.write_bytes(data)
    code, out, err = _run(command, log, tmp_path)
    _assert_refused(code, out, err, log, names, command)
