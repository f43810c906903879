"""The interleaved-lists file: what ``relkit interleave make`` writes and ``analyze`` reads.

One row per shown position: ``query_id``, ``rank`` (1-based), ``doc_id``, ``team`` (the
letter of the run that contributed it: ``A`` for the first run given, ``B`` for the
second...). Balanced and optimized interleaving add ``rank_A``, ``rank_B`` (the document's rank in
each run's top ``depth``, 0 when absent: the credit rule needs them), optimized also
``credit`` (``1/rank_A - 1/rank_B``, absent: rank ``|ranking| + 1``); probabilistic
interleaving adds ``p_A``, ``p_B``... (the probability that each run's softmax would
have drawn that document given those above it: the marginalisation needs them).
Written as TSV with a header, JSON lines or Parquet,
chosen by the file name (``.tsv``, ``.jsonl``, ``.parquet``; stdout: TSV).
"""

from __future__ import annotations

import os
import string
import sys
import zlib
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.core.errors import FormatError, InputError
from relkit.metrics.online.interleave.methods import Interleaved
from relkit.metrics.online.interleave.rankings import Rankings

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa

LETTERS = string.ascii_uppercase
FORMATS = ("tsv", "jsonl", "parquet")


def team_letter(i: int) -> str:
    """``A``... ``Z``, then ``R27``...: the name of run ``i``'s team."""
    return LETTERS[i] if i < len(LETTERS) else f"R{i + 1}"


LIST_SUFFIXES = ((".parquet", "parquet"), (".jsonl", "jsonl"), (".json", "jsonl"),
                 (".tsv", "tsv"), (".txt", "tsv"))


def list_format(path: str | os.PathLike[str] | None, *, strict: bool = False) -> str:
    """The format a lists file is written or read in, from its name.

    A name with another suffix is read as TSV; with ``strict`` (writing: a file called
    ``lists.xlsx`` must not hold TSV) it is a :class:`~relkit.metrics.core.errors.FormatError`.
    """
    if path is None:
        return "tsv"
    name = str(path).lower()
    for ext, fmt in LIST_SUFFIXES:
        if name.endswith(ext):
            return fmt
    if strict:
        raise FormatError(str(path), None, "a file name ending in "
                          f"{', '.join(e for e, _ in LIST_SUFFIXES)}",
                          repr(os.path.splitext(name)[1] or "no suffix"))
    return "tsv"


def to_table(rankings: Rankings, shown: Interleaved, method: str) -> pa.Table:
    """The lists as an Arrow table (the columns of the module docstring)."""
    import pyarrow as pa

    docs, teams = shown.docs, shown.teams
    Q, depth = docs.shape
    ok = docs >= 0
    q, k = np.nonzero(ok)
    n = len(rankings.mats)
    letters = pa.array([team_letter(i) for i in range(n)], pa.string())
    cols: dict[str, pa.Array] = {
        "query_id": rankings.queries.take(pa.array(q)),
        "rank": pa.array(k + 1, pa.int32()),
        "doc_id": rankings.vocab.take(pa.array(docs[ok])),
        "team": letters.take(pa.array(teams[ok])),
    }
    if method in ("balanced", "optimized"):
        inverse = []
        for r, m in enumerate(rankings.mats):
            if shown.ranks is not None:     # balanced kept them while interleaving
                rk = shown.ranks[r]
            else:
                eq = (docs[:, :, None] == m[:, None, :]) & ok[:, :, None]
                rk = np.where(eq.any(axis=2), eq.argmax(axis=2) + 1, 0)
            cols[f"rank_{team_letter(r)}"] = pa.array(rk[ok], pa.int32())
            if method == "optimized":
                absent = (m >= 0).sum(axis=1, keepdims=True) + 1
                inverse.append(1.0 / np.where(rk > 0, rk, absent))
        if method == "optimized":   # Radlinski & Craswell's credit of each document
            cols["credit"] = pa.array((inverse[0] - inverse[1])[ok], pa.float64())
    if shown.probs is not None:
        for r in range(n):
            cols[f"p_{team_letter(r)}"] = pa.array(shown.probs[r][ok], pa.float64())
    return pa.table(cols)


def write_lists(table: pa.Table, path: str | os.PathLike[str] | None) -> None:
    """Write the lists to ``path`` (format from its name) or to stdout as TSV."""
    import pyarrow.csv as pcsv

    fmt = list_format(path)
    if fmt == "parquet":
        import pyarrow.parquet as pq

        pq.write_table(table, path)
        return
    if fmt == "jsonl":
        import json

        with open(path, "w", encoding="utf-8") as fp:  # type: ignore[arg-type]
            for rec in table.to_pylist():
                fp.write(json.dumps(rec) + "\n")
        return
    # ids hold no tabs or newlines (TREC files are whitespace-separated): no quoting,
    # and the header written by hand (pyarrow quotes it whatever the style)
    opts = pcsv.WriteOptions(delimiter="\t", quoting_style="none", include_header=False)
    header = ("\t".join(table.column_names) + "\n").encode()
    if path is None:
        import pyarrow as pa

        buffer = pa.BufferOutputStream()
        pcsv.write_csv(table, buffer, opts)
        sys.stdout.buffer.write(header + buffer.getvalue().to_pybytes())
        sys.stdout.flush()
        return
    with open(path, "wb") as fp:
        fp.write(header)
        pcsv.write_csv(table, fp, opts)


def read_lists(path: str | os.PathLike[str]) -> pd.DataFrame:
    """Read a lists file back, ids as strings; a missing column is an
    :class:`~relkit.metrics.core.errors.InputError` naming the file."""
    import pandas as pd

    fmt = list_format(path)
    from relkit.metrics.online.logcontract import existing_file

    existing_file(path)       # missing or a directory: one line (a pipe is read as before)
    if os.path.isfile(path) and os.path.getsize(path) == 0:
        raise InputError(f"{path}: empty file (no header)")
    try:
        if fmt == "parquet":
            frame = pd.read_parquet(path)
        elif fmt == "jsonl":
            frame = pd.read_json(path, lines=True, dtype={"query_id": str, "doc_id": str})
        else:
            frame = pd.read_csv(path, sep="\t", dtype={"query_id": str, "doc_id": str,
                                                        "team": str}, keep_default_na=False)
    except UnicodeDecodeError as exc:
        raise InputError(f"{path}: expected UTF-8 text; found byte "
                         f"0x{exc.object[exc.start]:02x}") from None
    except (OSError, ValueError, EOFError, zlib.error) as exc:
        # (EOFError: a truncated .gz, which click would report as "aborted")
        raise InputError(f"{path}: cannot read the interleaved lists: "
                         f"{str(exc).splitlines()[0] if str(exc) else type(exc).__name__}"
                         ) from None
    for col in ("query_id", "rank", "doc_id", "team"):
        if col not in frame.columns:
            raise InputError(f"{path}: no column {col!r} (an interleaved-lists file has "
                             "query_id, rank, doc_id, team)")
    if len(frame.columns) != len(set(frame.columns)) or frame.index.name is not None \
            or not isinstance(frame.index, pd.RangeIndex):
        raise InputError(f"{path}: a row has more fields than the header")
    rank = pd.to_numeric(frame["rank"], errors="coerce")
    bad = ~(rank.notna() & (rank >= 1) & (rank == rank.round()) & (rank < 2**31))
    if bad.any():
        row = int(bad.to_numpy().argmax())
        raise InputError(f"{path}: row {row + 1}: rank {frame['rank'].iloc[row]!r} is not a "
                         "whole number >= 1")
    frame["rank"] = rank.astype("int64")
    for col in ("query_id", "doc_id", "team"):
        empty = (frame[col].isna() | (frame[col].astype(str) == "")).to_numpy()
        if empty.any():
            raise InputError(f"{path}: row {int(empty.argmax()) + 1}: no {col}")
    twice = frame.duplicated(["query_id", "rank"]).to_numpy()
    if twice.any():
        row = int(twice.argmax())
        raise InputError(f"{path}: row {row + 1}: query {frame['query_id'].iloc[row]!r} rank "
                         f"{frame['rank'].iloc[row]} again (one document per position)")
    frame["query_id"] = frame["query_id"].astype(str)
    frame["doc_id"] = frame["doc_id"].astype(str)
    return frame
