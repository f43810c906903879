"""Time ``relkit clicks validate`` + ``relkit clicks stats`` on a large synthetic log.

Generates (once, seeded; reused while its parameters match) a long-form Parquet log of
``--rows`` rows with bench/clicks_gen.py into ``--dir`` (default under /tmp, never the
repository), then times as whole processes, in the same run:

- the floor: DuckDB's bare scan, ``SELECT count(*), sum(clicked) FROM read_parquet(...)``,
  and a bare ``GROUP BY impression_id`` (the one grouping both commands need);
- ``relkit clicks validate LOG`` and ``relkit clicks stats LOG --by variant``;

and prints seconds, peak memory (max RSS) and ratios to the floor. The target (issue
20): validate + stats on 100M rows in at most 30 s on the 2-core machine.

    .venv/bin/python bench/clicks_bench.py --rows 10000000
    .venv/bin/python bench/clicks_bench.py                 # 100M rows, ~1 GiB of Parquet
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
RELKIT = str(Path(sys.executable).with_name("relkit"))
# Runs a command and prints its wall time and its peak RSS (KiB) as the last line.
TIMED = ("import resource, subprocess, sys, time; t = time.perf_counter(); "
         "p = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE); "
         "dt = time.perf_counter() - t; "
         "sys.stderr.write(p.stderr.decode()[-400:] if p.returncode not in (0,) else ''); "
         "print(p.returncode, dt, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")


def ensure_log(directory: Path, rows: int, seed: int) -> Path:
    """The log for these parameters, generated unless it is there already."""
    sys.path.insert(0, str(HERE))
    from clicks_gen import generate

    directory.mkdir(parents=True, exist_ok=True)
    log = directory / f"clicks_{rows}_{seed}.parquet"
    meta = log.with_suffix(".json")
    want = {"rows": rows, "seed": seed, "generator": 1}
    if log.exists() and meta.exists() and json.loads(meta.read_text()) == want:
        return log
    t = time.perf_counter()
    print(f"generating {rows:,} rows -> {log} ...", flush=True)
    generate(log, rows, seed=seed)
    meta.write_text(json.dumps(want))
    print(f"  generated in {time.perf_counter() - t:.1f} s "
          f"({log.stat().st_size / 2**20:,.0f} MiB)", flush=True)
    return log


def timed(cmd: list[str]) -> tuple[int, float, float]:
    """(exit status, seconds, peak RSS in MiB) of ``cmd`` as a whole process."""
    out = subprocess.run([sys.executable, "-c", TIMED, *cmd], capture_output=True, text=True,
                         check=True)
    if out.stderr.strip():
        sys.stderr.write(out.stderr)
    code, dt, rss = out.stdout.split()
    return int(code), float(dt), int(rss) / 1024


def duckdb_sql(sql: str, memory_limit: str) -> list[str]:
    code = (f"import duckdb; con = duckdb.connect(); con.execute(\"SET memory_limit = "
            f"'{memory_limit}'\"); print(con.execute({sql!r}).fetchall())")
    return [sys.executable, "-c", code]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=100_000_000)
    ap.add_argument("--dir", type=Path, default=Path("/tmp/relkit-clicks-bench"))
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--repeat", type=int, default=1, help="runs per command (median)")
    ap.add_argument("--memory-limit", default="4GB")
    a = ap.parse_args()
    log = ensure_log(a.dir, a.rows, a.seed)
    p = str(log).replace("'", "''")
    env_mem = ["--memory-limit", a.memory_limit]
    cases = {
        "duckdb scan (floor)": duckdb_sql(
            f"SELECT count(*), sum(clicked) FROM read_parquet('{p}')", a.memory_limit),
        "duckdb group by impression": duckdb_sql(
            f"SELECT count(*) FROM (SELECT impression_id, count(*), max(rank) FROM "
            f"read_parquet('{p}') GROUP BY impression_id)", a.memory_limit),
        "relkit clicks validate": [RELKIT, "clicks", "validate", str(log), *env_mem],
        "relkit clicks stats --by variant": [RELKIT, "clicks", "stats", str(log), "--by",
                                             "variant", *env_mem],
    }
    print(f"{a.rows:,} rows, {os.cpu_count()} cores, load average "
          f"{os.getloadavg()[0]:.1f} (a shared machine: other work slows every line alike)")
    results: dict[str, tuple[float, float]] = {}
    for name, cmd in cases.items():
        runs = []
        for _ in range(a.repeat):
            code, dt, rss = timed(cmd)
            if code != 0:
                print(f"  {name}: exit status {code}")
            runs.append((dt, rss))
        runs.sort()
        results[name] = runs[len(runs) // 2]
    floor = results["duckdb scan (floor)"][0]
    group = results["duckdb group by impression"][0]
    print(f"{'':36} {'seconds':>8} {'peak MiB':>9} {'x scan':>7} {'x group-by':>10}")
    for name, (dt, rss) in results.items():
        print(f"{name:36} {dt:8.2f} {rss:9.0f} {dt / floor:7.1f} {dt / group:10.1f}")
    both = results["relkit clicks validate"][0] + results["relkit clicks stats --by variant"][0]
    print(f"{'validate + stats':36} {both:8.2f}  (target at 100M rows: <= 30 s)")


if __name__ == "__main__":
    main()
