"""Deterministic generator of synthetic TREC run and qrels files for benchmarking.

Usage::

    python bench/gen.py --queries 1000 --docs 100 --out bench/data/small [--seed 0]

writes ``run.txt`` (``qid Q0 docno rank score runid``) and ``qrels.txt``
(``qid 0 docno grade``) into ``--out``.

Model (all vectorised numpy, no per-line Python work):

* qids are ``"1"`` .. ``"N"``; every query retrieves exactly ``--docs`` documents.
* docnos are ``D`` + zero-padded ids drawn from a collection at least 10x larger than
  the number of run lines (at least 7 digits), so they are mostly unique across
  queries; within a query they are distinct (duplicates are redrawn).
* every retrieved document has a hidden grade 0-3; its score is
  ``5 + 0.5 * grade + N(0, 1)`` rounded to 3 decimals, so relevant documents tend
  to rank higher and scores tie now and then (more often with more docs/query).
  Each query's documents are written sorted by score descending, ranks 1..D.
* qrels judge 10-20% (per query) of the retrieved documents, revealing their
  grade, plus a few judged documents that were not retrieved; the first of those
  is always relevant, so every query has at least one relevant judgment.

Output is identical for identical arguments (``numpy.random.default_rng(seed)``).
Files are written to temporary names and renamed, so a partial run leaves nothing.
"""

from __future__ import annotations

import argparse
import math
import os
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

GRADE_P_RETRIEVED = (0.70, 0.15, 0.10, 0.05)
"""Distribution of hidden grades 0..3 among retrieved documents."""
GRADE_P_UNRETRIEVED = (0.60, 0.25, 0.10, 0.05)
"""Distribution of grades 0..3 among judged documents that were not retrieved."""


def _unique_rows(rng: np.random.Generator, n_rows: int, width: int, high: int) -> np.ndarray:
    """An ``(n_rows, width)`` int64 array of ids in ``[0, high)``, distinct within each row."""
    ids = rng.integers(0, high, size=(n_rows, width), dtype=np.int64)
    while True:
        ids.sort(axis=1)
        dup = np.zeros(ids.shape, dtype=bool)
        dup[:, 1:] = ids[:, 1:] == ids[:, :-1]
        n_dup = int(dup.sum())
        if n_dup == 0:
            break
        ids[dup] = rng.integers(0, high, size=n_dup, dtype=np.int64)
    # Sorting left ids ascending within each row; shuffle so docno order carries no signal.
    return rng.permuted(ids, axis=1)


def _fixed_strings(prefix: bytes, values: np.ndarray, digits: int) -> pa.Array:
    """Arrow string array ``prefix + zero-padded values`` built from one byte buffer."""
    n = values.size
    width = len(prefix) + digits
    buf = np.empty((n, width), dtype=np.uint8)
    buf[:, : len(prefix)] = np.frombuffer(prefix, dtype=np.uint8)
    rest = values.astype(np.int64, copy=True)
    for col in range(width - 1, len(prefix) - 1, -1):
        buf[:, col] = 48 + rest % 10
        rest //= 10
    off_type = np.int32 if n * width < 2**31 else np.int64
    offsets = np.arange(0, (n + 1) * width, width, dtype=off_type)
    typ = pa.string() if offsets.dtype == np.int32 else pa.large_string()
    return pa.Array.from_buffers(typ, n, [None, pa.py_buffer(offsets), pa.py_buffer(buf)])


def _const_strings(text: str, n: int) -> pa.Array:
    """Arrow string array holding ``text`` ``n`` times."""
    return _fixed_strings(text.encode(), np.zeros(n, dtype=np.int64), 0)


def _write(table: pa.Table, path: Path) -> None:
    """Write ``table`` space-separated, no header, no quoting; atomically via rename."""
    tmp = path.with_name(path.name + ".tmp")
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, tmp, write_options=opts)
    os.replace(tmp, path)


def generate(queries: int, docs: int, out: Path, seed: int = 0, runid: str = "bench") -> None:
    """Generate ``run.txt`` and ``qrels.txt`` for ``queries`` x ``docs`` into ``out``."""
    if queries < 1 or docs < 1:
        raise ValueError("--queries and --docs must be >= 1")
    rng = np.random.default_rng(seed)
    n = queries * docs
    digits = max(7, math.ceil(math.log10(10 * n)))
    n_extra = max(1, docs // 20)  # judged but not retrieved, per query

    ids = _unique_rows(rng, queries, docs + n_extra, 10**digits)
    ret_ids, extra_ids = ids[:, :docs], ids[:, docs:]

    grades = rng.choice(4, size=(queries, docs), p=GRADE_P_RETRIEVED).astype(np.int8)
    scores = 5.0 + 0.5 * grades + rng.standard_normal((queries, docs))
    scores = np.round(scores, 3)
    order = np.argsort(-scores, axis=1, kind="stable")
    scores = np.take_along_axis(scores, order, axis=1)
    grades = np.take_along_axis(grades, order, axis=1)
    ret_ids = np.take_along_axis(ret_ids, order, axis=1)

    qid_col = np.repeat(np.arange(1, queries + 1, dtype=np.int64), docs)
    run = pa.table(
        {
            "qid": qid_col,
            "q0": _const_strings("Q0", n),
            "docno": _fixed_strings(b"D", ret_ids.ravel(), digits),
            "rank": np.tile(np.arange(1, docs + 1, dtype=np.int64), queries),
            "score": pa.array(scores.ravel()).cast(pa.string()),
            "runid": _const_strings(runid, n),
        }
    )
    out.mkdir(parents=True, exist_ok=True)
    _write(run, out / "run.txt")
    del run

    frac = rng.uniform(0.10, 0.20, size=(queries, 1))
    judged = rng.random((queries, docs)) < frac
    extra_grades = rng.choice(4, size=(queries, n_extra), p=GRADE_P_UNRETRIEVED).astype(np.int8)
    extra_grades[:, 0] = rng.integers(1, 4, size=queries)
    q_j = np.nonzero(judged)[0]
    q_e = np.repeat(np.arange(queries), n_extra)
    j_qid = np.concatenate([q_j, q_e]) + 1
    j_doc = np.concatenate([ret_ids[judged], extra_ids.ravel()])
    j_grade = np.concatenate([grades[judged], extra_grades.ravel()])
    sort = np.lexsort((j_doc, j_qid))
    m = sort.size
    qrels = pa.table(
        {
            "qid": j_qid[sort],
            "iter": _const_strings("0", m),
            "docno": _fixed_strings(b"D", j_doc[sort], digits),
            "grade": j_grade[sort],
        }
    )
    _write(qrels, out / "qrels.txt")


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, required=True, help="number of queries")
    ap.add_argument("--docs", type=int, required=True, help="retrieved docs per query")
    ap.add_argument("--out", type=Path, required=True, help="output directory")
    ap.add_argument("--seed", type=int, default=0, help="random seed (default 0)")
    ap.add_argument("--runid", default="bench", help="run tag (default 'bench')")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    generate(args.queries, args.docs, args.out, args.seed, args.runid)
    print(
        f"wrote {args.out}/run.txt ({args.queries * args.docs} lines) and qrels.txt "
        f"in {time.perf_counter() - t0:.1f} s"
    )


if __name__ == "__main__":
    main()
