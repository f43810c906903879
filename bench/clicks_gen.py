"""A seeded synthetic click log in the long form, written to Parquet in chunks.

Ten results per impression (ranks 1-10), three impressions per session, sessions spread
over users, users split 50/50 into variants ``control``/``treatment`` by id; clicks
with a position bias (P(click at r) = 0.45 / r**0.8), ``click_ts`` and ``dwell_s``
(exponential, mean 60 s) on clicked results. Strings ids (``q000123``) as real logs
have. Memory stays bounded: one chunk of rows at a time (pyarrow's ParquetWriter).

    .venv/bin/python bench/clicks_gen.py --rows 10000000 --out /tmp/clicks_10m.parquet
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq

PER_PAGE = 10
PER_SESSION = 3


def _ids(prefix: str, values: np.ndarray) -> pa.Array:
    """``prefix`` + the number, as Arrow strings (vectorised, no Python loop)."""
    return pc.binary_join_element_wise(pa.scalar(prefix),
                                       pc.cast(pa.array(values), pa.string()), "")


def chunk(rng: np.random.Generator, first_impression: int, impressions: int,
          users: int, queries: int) -> pa.Table:
    """``impressions`` impressions (10 rows each), numbered from ``first_impression``."""
    imp = np.arange(first_impression, first_impression + impressions, dtype=np.int64)
    session = imp // PER_SESSION
    # A session belongs to one user; a user's sessions come from a hash of its number.
    user = (session * 2654435761) % users
    variant = np.where(user % 2 == 0, "control", "treatment")
    query = rng.integers(0, queries, impressions)
    ts = 1.7e9 + session * 600.0 + (imp % PER_SESSION) * 30.0
    rank = np.tile(np.arange(1, PER_PAGE + 1, dtype=np.int64), impressions)
    p = 0.45 / rank ** 0.8
    clicked = (rng.random(rank.size) < p).astype(np.int8)
    rep = np.repeat
    dwell = np.where(clicked == 1, np.round(rng.exponential(60.0, rank.size), 1), np.nan)
    click_ts = np.where(clicked == 1, rep(ts, PER_PAGE) + np.round(
        rng.exponential(10.0, rank.size), 1), np.nan)
    doc = rep(query, PER_PAGE) * 37 + rank * 101 + rng.integers(0, 5, rank.size)
    return pa.table({
        "impression_id": _ids("i", rep(imp, PER_PAGE)),
        "query_id": _ids("q", rep(query, PER_PAGE)),
        "rank": pa.array(rank.astype(np.int16)),
        "doc_id": _ids("d", doc),
        "clicked": pa.array(clicked),
        "user_id": _ids("u", rep(user, PER_PAGE)),
        "variant": pa.array(rep(variant, PER_PAGE)),
        "session_id": _ids("s", rep(session, PER_PAGE)),
        "ts": pa.array(rep(ts, PER_PAGE)),
        "click_ts": pa.array(click_ts, from_pandas=True),
        "dwell_s": pa.array(dwell, from_pandas=True),
    })


def generate(out: str | Path, rows: int, *, seed: int = 0, chunk_rows: int = 5_000_000,
             users: int | None = None, queries: int = 100_000) -> None:
    """Write a log of ``rows`` rows (a multiple of 10) to the Parquet file ``out``."""
    rng = np.random.default_rng(seed)
    impressions = rows // PER_PAGE
    users = users or max(impressions // 20, 1)
    per = max(chunk_rows // PER_PAGE, 1)
    tmp = Path(str(out) + ".tmp")
    writer = None
    try:
        for start in range(0, impressions, per):
            t = chunk(rng, start, min(per, impressions - start), users, queries)
            if writer is None:
                writer = pq.ParquetWriter(tmp, t.schema, compression="snappy")
            writer.write_table(t, row_group_size=1_000_000)
        if writer is not None:
            writer.close()
            writer = None
        tmp.replace(out)
    finally:
        if writer is not None:
            writer.close()
        tmp.unlink(missing_ok=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.perf_counter()
    generate(a.out, a.rows, seed=a.seed)
    print(f"{a.rows:,} rows -> {a.out} in {time.perf_counter() - t0:.1f} s")


if __name__ == "__main__":
    main()
