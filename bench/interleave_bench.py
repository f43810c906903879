"""Speed of ``relkit interleave make``: team draft and balanced over 1M queries x 2 runs.

Target (issue 21): 1M queries x 2 runs at depth 10 in at most 10 s, as a whole process
(reading both runs, ranking them as ``relkit eval`` does, interleaving, writing Parquet).

The peer: mpkato/interleaving is not on PyPI (the name ``interleaving`` there is an
unrelated empty package), so the peer is a plain-Python per-query team draft written
the way that library and most others do it (one loop per query, list membership tests),
timed on a sample of queries and extrapolated. It only interleaves (no reading or
writing), so the ratio printed favours the peer.

    .venv/bin/python bench/interleave_bench.py [--queries 1000000] [--depth 10]
"""

from __future__ import annotations

import argparse
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pcsv


def write_run(path: Path, queries: int, depth: int, pool: int, seed: int, tag: str) -> None:
    rng = np.random.default_rng(seed)
    q = np.repeat(np.arange(queries), depth)
    # distinct documents per query: a random permutation's prefix, per query
    docs = np.argsort(rng.random((queries, pool)), axis=1)[:, :depth].ravel()
    rank = np.tile(np.arange(1, depth + 1), queries)
    table = pa.table({
        "q": pa.array(np.char.add("q", q.astype(str))),
        "it": pa.array(np.full(len(q), "Q0")),
        "d": pa.array(np.char.add("d", docs.astype(str))),
        "r": pa.array(rank),
        "s": pa.array((depth + 1 - rank).astype(np.float64)),
        "t": pa.array(np.full(len(q), tag)),
    })
    pcsv.write_csv(table, path, pcsv.WriteOptions(include_header=False, delimiter=" ",
                                                   quoting_style="none"))


def peer_team_draft(a: list[str], b: list[str], depth: int, rnd: random.Random
                    ) -> tuple[list[str], list[int]]:
    out: list[str] = []
    teams: list[int] = []
    ca = cb = 0
    n = min(depth, len(set(a) | set(b)))
    while len(out) < n:
        pick_a = ca < cb or (ca == cb and rnd.random() < 0.5)
        src = a if pick_a else b
        nxt = next((d for d in src if d not in out), None)
        if nxt is None:
            pick_a = not pick_a
            src = a if pick_a else b
            nxt = next(d for d in src if d not in out)
        out.append(nxt)
        teams.append(0 if pick_a else 1)
        if pick_a:
            ca += 1
        else:
            cb += 1
    return out, teams


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1_000_000)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--sample", type=int, default=20_000, help="queries the peer runs")
    args = ap.parse_args()
    relkit = str(Path(sys.executable).with_name("relkit"))
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp, "a.run"), Path(tmp, "b.run")
        t0 = time.perf_counter()
        write_run(a, args.queries, args.depth, 3 * args.depth, 1, "A")
        write_run(b, args.queries, args.depth, 3 * args.depth, 2, "B")
        print(f"generated 2 runs of {args.queries:,} queries x {args.depth} in "
              f"{time.perf_counter() - t0:.1f} s")
        times = {}
        for method in ("team-draft", "balanced"):
            out = Path(tmp, f"{method}.parquet")
            t0 = time.perf_counter()
            c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
            subprocess.run([relkit, "interleave", "make", str(a), str(b), "--method", method,
                            "--depth", str(args.depth), "-o", str(out)], check=True)
            times[method] = time.perf_counter() - t0
            c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime)
            print(f"relkit interleave make --method {method}: {times[method]:.2f} s wall, "
                  f"{cpu:.2f} s CPU (whole process; target <= 10 s)")
        # the peer, per query, on a sample of generated lists
        rng = np.random.default_rng(0)
        rnd = random.Random(0)
        pool = [f"d{i}" for i in range(3 * args.depth)]
        pairs = [(list(rng.permutation(pool)[:args.depth]),
                  list(rng.permutation(pool)[:args.depth])) for _ in range(args.sample)]
        t0 = time.process_time()
        for x, y in pairs:
            peer_team_draft(x, y, args.depth, rnd)
        per = (time.process_time() - t0) / args.sample   # CPU: the machine is shared
        peer = per * args.queries
        print(f"peer (per-query Python team draft, interleaving only): {per * 1e6:.1f} us/query"
              f" -> {peer:.2f} s for {args.queries:,} queries (extrapolated)")
        for method, t in times.items():
            print(f"ratio peer (interleaving only) / relkit {method} (whole process): "
                  f"{peer / t:.2f}x")
        # like for like: relkit's team draft alone, in process, on (queries x depth) codes
        from relkit.metrics.online.interleave.methods import team_draft

        pool_n = 3 * args.depth
        mats = [np.argsort(rng.random((args.queries, pool_n)), axis=1)[:, :args.depth]
                for _ in range(2)]
        t0 = time.process_time()
        team_draft(mats, args.depth, np.random.default_rng(0))
        inner = time.process_time() - t0
        print(f"relkit team draft alone (in process, CPU): {inner:.2f} s; "
              f"ratio peer / relkit: {peer / inner:.1f}x")


if __name__ == "__main__":
    main()
