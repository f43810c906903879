"""Time ``relkit ab analyze`` (5 metrics, delta method, CUPED, SRM) on a large synthetic log.

Generates (once, seeded; reused while the file exists) a long-form Parquet log of
``--rows`` rows and a pre-period log of half as many rows with bench/clicks_gen.py (the
same generator as bench/clicks_bench.py), and the assignment table (first exposure per
user) with DuckDB, into ``--dir`` (default under /tmp, never the repository). Then runs,
as whole fresh processes in the same run, each with its peak RSS (``wait4``):

- ``floor``: DuckDB's bare scan of the columns the analysis reads (count and sums over
  the log and the pre-period log: no grouping), the least any reader can do;
- ``relkit``: ``relkit ab analyze LOG --assign A -m ctr@1 -m first_page_ctr -m abandonment
  -m good_click_rate -m time_to_first_click --cuped PRE --format json``;
- ``peer``: tea-tasting (``RatioOfMeans`` with covariates, and ``SampleRatio``) on
  per-user tables built by pandas from the same Parquet files (tea-tasting analyses
  per-user tables only; it has no notion of impressions). Pandas holds the log's rows in
  memory, so it runs up to ``--peer-max-rows`` (default 10M) and is skipped above.

    .venv/bin/python bench/ab_bench.py --rows 10000000
    .venv/bin/python bench/ab_bench.py --rows 100000000 --peer-max-rows 0
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
PY = sys.executable
RELKIT = str(Path(PY).with_name("relkit"))
METRICS = ["ctr@1", "first_page_ctr", "abandonment", "good_click_rate", "time_to_first_click"]

FLOOR = """
import duckdb, sys
con = duckdb.connect()
for path in sys.argv[1:]:
    print(con.execute(
        "SELECT count(*), count(DISTINCT NULL), sum(clicked), sum(rank), sum(dwell_s), "
        "sum(click_ts - ts), count(user_id), count(impression_id) "
        f"FROM read_parquet('{path}')").fetchall())
"""

PEER = """
import sys, numpy as np, pandas as pd, tea_tasting as tt
log, pre, assign = sys.argv[1:4]
def users(path):
    cols = ["user_id", "impression_id", "rank", "clicked", "dwell_s", "ts", "click_ts"]
    d = pd.read_parquet(path, columns=cols)
    c = d["clicked"] > 0
    d = d.assign(c1=(c & (d["rank"] == 1)).astype(np.int8),
                 fp=(c & (d["rank"] <= 10)).astype(np.int8), cl=c.astype(np.int8),
                 good=(c & (d["dwell_s"] >= 30)).astype(np.int8),
                 t=np.where(c, d["click_ts"] - d["ts"], np.nan))
    imp = d.groupby(["user_id", "impression_id"], sort=False).agg(
        c1=("c1", "max"), fp=("fp", "max"), cl=("cl", "max"), good=("good", "max"),
        t=("t", "min"))
    imp["ab"] = 1 - imp["cl"]
    imp["q"] = 1
    imp["tn"] = imp["t"].notna().astype(np.int8)
    return imp.groupby(level=0).agg(
        c1=("c1", "sum"), fp=("fp", "sum"), ab=("ab", "sum"), good=("good", "sum"),
        t=("t", "sum"), tn=("tn", "sum"), q=("q", "sum"))
a = pd.read_parquet(assign)
cur, prev = users(log), users(pre).add_prefix("pre_")
data = a.set_index("unit_id").join(cur).join(prev).fillna(0.0)
names = {"c1": "q", "fp": "q", "ab": "q", "good": "q", "t": "tn"}
exp = tt.Experiment(srm=tt.SampleRatio(method="norm", correction=False),
                    **{k: tt.RatioOfMeans(k, d, "pre_" + k, "pre_" + d)
                       for k, d in names.items()})
print(exp.analyze(data.reset_index(), control="control"))
"""


def run(args: list[str]) -> tuple[float, float, int]:
    """Wall seconds, peak RSS (GiB) and exit code of one whole process.

    The peak RSS is GNU time's (%M): ``wait4``'s would include this process's own pages
    from before the child's exec (Linux keeps the high-water mark across exec).
    """
    t0 = time.perf_counter()
    proc = subprocess.run(["/usr/bin/time", "-f", "maxrss_kb=%M", *args],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    wall = time.perf_counter() - t0
    lines = proc.stderr.strip().splitlines()
    kb = next((int(x.split("=")[1]) for x in reversed(lines) if x.startswith("maxrss_kb=")),
              0)
    if proc.returncode != 0:
        print(f"  exit {proc.returncode}: {lines[-2:]}", file=sys.stderr)
    return wall, kb / 2 ** 20, proc.returncode


def prepare(where: Path, rows: int, seed: int) -> tuple[Path, Path, Path]:
    sys.path.insert(0, str(HERE))
    from clicks_gen import generate  # the generator bench/clicks_bench.py uses

    where.mkdir(parents=True, exist_ok=True)
    log, pre, assign = (where / f"ab_{rows}.parquet", where / f"ab_{rows}_pre.parquet",
                        where / f"ab_{rows}_assign.parquet")
    # The pre-period: half as many impressions over the same users (same id scheme).
    users = max(rows // 10 // 20, 1)
    for path, n, s in ((log, rows, seed), (pre, rows // 2 // 10 * 10, seed + 1)):
        if not path.exists():
            t0 = time.perf_counter()
            generate(path, n, seed=s, users=users)
            print(f"generated {n:,} rows -> {path} in {time.perf_counter() - t0:.1f} s")
    if not assign.exists():
        import duckdb

        duckdb.connect().execute(
            f"COPY (SELECT user_id AS unit_id, min(variant) AS variant, min(ts) AS "
            f"first_exposure_ts FROM read_parquet('{log}') GROUP BY 1) TO '{assign}' "
            "(FORMAT parquet)")
    return log, pre, assign


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rows", type=int, default=10_000_000)
    ap.add_argument("--dir", type=Path, default=Path(tempfile.gettempdir()) / "relkit-ab-bench")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--peer-max-rows", type=int, default=10_000_000)
    ap.add_argument("--repeat", type=int, default=1)
    a = ap.parse_args()
    log, pre, assign = prepare(a.dir, a.rows, a.seed)
    jobs = {
        "floor (DuckDB bare scan)": [PY, "-c", FLOOR, str(log), str(pre)],
        "relkit ab analyze": [RELKIT, "ab", "analyze", str(log), "--assign", str(assign),
                              *[x for m in METRICS for x in ("-m", m)], "--cuped", str(pre),
                              "--format", "json"],
    }
    if a.rows <= a.peer_max_rows:
        jobs["tea-tasting (pandas users)"] = [PY, "-c", PEER, str(log), str(pre), str(assign)]
    print(f"{a.rows:,} rows (+ {a.rows // 2:,} pre-period), cores: {os.cpu_count()}, "
          f"load: {os.getloadavg()[0]:.1f}")
    res: dict[str, tuple[float, float]] = {}
    for name, cmd in jobs.items():
        runs = [run(cmd) for _ in range(a.repeat)]
        best = min(runs)
        res[name] = (best[0], max(r[1] for r in runs))
        print(f"{name:30s} {best[0]:8.1f} s  peak RSS {res[name][1]:5.2f} GiB"
              + ("" if best[2] == 0 else f"  (exit {best[2]})"))
    ours = res["relkit ab analyze"][0]
    floor = res["floor (DuckDB bare scan)"][0]
    print(f"relkit / floor: {ours / floor:.2f}x")
    if "tea-tasting (pandas users)" in res:
        print(f"relkit / tea-tasting: {ours / res['tea-tasting (pandas users)'][0]:.2f}x")
    print(f"target: <= 60 s and <= 4 GiB: time {'met' if ours <= 60 else 'MISSED'}, "
          f"memory {'met' if res['relkit ab analyze'][1] <= 4 else 'MISSED'}")


if __name__ == "__main__":
    main()
