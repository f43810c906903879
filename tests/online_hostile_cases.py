"""Hostile click logs for tests/test_online_hostile.py: one small, valid log and the ways
a tester (or a real pipeline) breaks it, written in CSV, TSV, JSONL and Parquet."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

COLUMNS = ["impression_id", "query_id", "rank", "doc_id", "clicked", "user_id", "variant",
           "ts", "click_ts", "dwell_s"]
FORMATS = ["csv", "tsv", "jsonl", "parquet"]
Row = dict[str, Any]


def good_rows() -> list[Row]:
    """Six users (three per arm), two impressions each, two ranks per impression."""
    out = []
    for u in range(6):
        for i in range(2):
            for r in (1, 2):
                c = 1 if (u + i + r) % 3 == 0 else 0
                out.append({"impression_id": f"u{u}i{i}", "query_id": f"q{i}", "rank": r,
                            "doc_id": f"d{r}", "clicked": c, "user_id": f"u{u}",
                            "variant": "control" if u % 2 == 0 else "treatment",
                            "ts": 1000.0 + 10 * i + u,
                            "click_ts": 1003.0 + 10 * i + u if c else None,
                            "dwell_s": 40.0 if c else None})
    return out


def _set(field: str, value: Any, row: int = 3) -> Callable[[list[Row]], list[Row]]:
    def edit(rows: list[Row]) -> list[Row]:
        rows[row][field] = value
        return rows
    return edit


# name -> (edit of the good rows, the field the message must name or None: the run is
# clean, exit 0). Row 3 of the rows is line 5 of a CSV/TSV file, line 4 of JSONL, row 4
# of Parquet.
VALUE_CASES: dict[str, tuple[Callable[[list[Row]], list[Row]], str | None]] = {
    "good": (lambda rows: rows, None),
    "header_only": (lambda rows: [], "no rows"),
    "wrong_type": (_set("rank", "abc"), "rank"),
    "negative_clicked": (_set("clicked", -1), "clicked"),
    "negative_rank": (_set("rank", -3), "rank"),
    "zero_rank": (_set("rank", 0), "rank"),
    "negative_dwell": (_set("dwell_s", -5.0, 0), "dwell_s"),
    "inf_ts": (_set("ts", float("inf")), "ts"),
    "huge_rank": (_set("rank", 10 ** 30), "rank"),
    "huge_clicked": (_set("clicked", 10 ** 30), "clicked"),
    "fractional_clicked": (_set("clicked", 0.5), "clicked"),
    # NaN in a float column is how pandas writes a missing value: missing, not an error
    "nan_dwell": (_set("dwell_s", float("nan"), 0), None),
    "nan_click_ts": (_set("click_ts", float("nan"), 0), None),
}


def _text(v: Any) -> str:
    if v is None:
        return ""
    if isinstance(v, float) and v != v:
        return "NaN"
    if isinstance(v, float) and abs(v) == float("inf"):
        return "inf" if v > 0 else "-inf"
    return str(v)


def _json_value(v: Any) -> Any:
    # JSON has no NaN or Infinity: such values travel as strings, as exporters write them
    if isinstance(v, float) and (v != v or abs(v) == float("inf")):
        return _text(v)
    return v


def write_rows(rows: list[Row], path: Path, fmt: str) -> Path:
    """``rows`` as a file of format ``fmt`` (the columns of :data:`COLUMNS`)."""
    if fmt in ("csv", "tsv"):
        d = "," if fmt == "csv" else "\t"
        lines = [d.join(COLUMNS), *(d.join(_text(r.get(c)) for c in COLUMNS) for r in rows)]
        path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    elif fmt == "jsonl":
        path.write_text("".join(json.dumps({c: _json_value(r.get(c)) for c in COLUMNS}) + "\n"
                                for r in rows), encoding="utf-8")
    else:
        import pyarrow as pa
        import pyarrow.parquet as pq

        data = {}
        for c in COLUMNS:
            vals = [r.get(c) for r in rows]
            if c in ("rank", "clicked"):
                if any(isinstance(v, str) for v in vals):
                    typ = pa.string()
                    vals = [None if v is None else str(v) for v in vals]
                elif any(isinstance(v, float) or abs(v) >= 2 ** 63 for v in vals):
                    typ = pa.float64()
                    vals = [None if v is None else float(v) for v in vals]
                else:
                    typ = pa.int64()
            elif c in ("ts", "click_ts", "dwell_s"):
                typ = pa.float64()
            else:
                typ = pa.string()
            data[c] = pa.array(vals, typ)
        pq.write_table(pa.table(data), path)
    return path


def raw_cases(fmt: str) -> dict[str, tuple[bytes, str]]:
    """Files broken below the level of values: name -> (bytes, what the message names)."""
    if fmt == "parquet":
        return {"empty": (b"", "parquet"), "binary": (b"PAR1\x00\xff\x13garbage", "parquet"),
                "truncated": (b"PAR1" + bytes(range(256)) * 4, "parquet")}
    d = {"csv": ",", "tsv": "\t", "jsonl": ","}[fmt]
    if fmt == "jsonl":
        ok = json.dumps(dict(zip(COLUMNS[:5], ["i1", "q1", 1, "d1", 0], strict=True)))
        return {
            "empty": (b"", "empty"),
            "binary": (b"\x00\x01\xff\xfe" * 64, ":1"),
            "invalid_utf8": ((ok + "\n" + ok.replace('"d1"', '"d\xff"') + "\n")
                             .encode("latin-1"), ":2"),
            "array_line": ((ok + "\n[1, 2, 3]\n").encode(), ":2"),
            "string_line": ((ok + '\n"just a string"\n').encode(), ":2"),
            "number_line": ((ok + "\n42\n").encode(), ":2"),
            "null_line": ((ok + "\nnull\n").encode(), ":2"),
            "duplicate_key": ((ok + '\n{"impression_id": "i1", "query_id": "q1", "rank": 2, '
                               '"rank": 3, "doc_id": "d2", "clicked": 0}\n').encode(), ":2"),
            "not_json": ((ok + "\n{oops\n").encode(), ":2"),
        }
    head = d.join(COLUMNS[:5])
    row = d.join(["i1", "q1", "1", "d1", "0"])
    return {
        "empty": (b"", "empty"),
        "binary": (b"\x00\x01\xff\xfe" * 64, ":1"),
        "invalid_utf8": ((head + "\n" + row + "\n" + row.replace("d1", "d\xff")
                          .replace(d + "1" + d, d + "2" + d) + "\n").encode("latin-1"), ":3"),
        "duplicate_column": ((head + d + "rank\n" + row + d + "2\n").encode(), "rank"),
        "ragged": ((head + "\n" + row + d + "extra\n").encode(), ":2"),
    }
