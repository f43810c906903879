"""Spark local mode against the DuckDB path: ``ab analyze`` sums, a PBM and a DBN fit.

Side by side in one run on seeded logs (bench/clicks_gen.py) of a few sizes:

- the per-user table of five metrics (what ``ab analyze`` aggregates), a PBM and a DBN
  fit by EM (``--iterations``; the DBN's chain E-step runs inside ``mapInArrow``),
  DuckDB/numpy in a fresh subprocess, Spark (``local[2]``) in this one; wall time and
  CPU time (user + sys: this process, DuckDB's threads, the JVM and Spark's Python
  workers), and peak memory (the DuckDB process's peak RSS; the JVM's
  peak RSS plus the Python workers');
- partition scaling on the largest log: tasks, summed task time and the mean time per
  task as the partitions grow (Spark's own task metrics), and a projection from the
  measured throughput per task-second to 10^9 and 10^10 rows on a cluster.

On a loaded machine compare the ratios, not the seconds.

    .venv/bin/python bench/spark_online_bench.py --sizes 200000,1000000 --partitions 2,4,8
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

METRICS = ["ctr@1", "first_page_ctr", "abandonment", "good_click_rate", "time_to_first_click"]
TICK = os.sysconf("SC_CLK_TCK")


def make_inputs(d: Path, rows: int) -> tuple[Path, Path]:
    """A seeded log (row groups of 1/32 of it, so Spark can split it) and its assignment."""
    import pyarrow as pa
    import pyarrow.parquet as pq
    from clicks_gen import generate

    raw = d / f"raw_{rows}.parquet"
    generate(raw, rows, seed=1, queries=max(rows // 200, 100))
    t = pq.read_table(raw)
    log = d / f"log_{rows}.parquet"
    pq.write_table(t, log, row_group_size=max(rows // 32, 1000))
    raw.unlink()
    units = t.group_by(["user_id", "variant"]).aggregate([])
    assign = d / f"assign_{rows}.parquet"
    pq.write_table(pa.table({"unit_id": units.column("user_id"),
                             "variant": units.column("variant")}), assign)
    return log, assign


def cpu_self() -> float:
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def local_one(log: str, assign: str, iterations: int) -> dict[str, float]:
    """The DuckDB/numpy path (run in a fresh process: its peak RSS is its own)."""
    from relkit.metrics.online.ab.users import get_metric, user_table
    from relkit.metrics.online.clickmodels.data import from_log
    from relkit.metrics.online.clickmodels.dbn import DBN
    from relkit.metrics.online.clickmodels.pbm import PBM
    from relkit.metrics.online.source import connect, open_assignments, open_log

    out: dict[str, float] = {}
    c0, w0 = cpu_self(), time.perf_counter()
    con = connect()
    src = open_log(log, con=con)
    src.check()
    user_table(con, src.view, open_assignments(assign, con=con).view,
               [get_metric(m) for m in METRICS])
    out["ab_cpu"], out["ab_wall"] = cpu_self() - c0, time.perf_counter() - w0
    c0, w0 = cpu_self(), time.perf_counter()
    PBM().fit(from_log(open_log(log, con=con)), iterations=iterations)
    out["pbm_cpu"], out["pbm_wall"] = cpu_self() - c0, time.perf_counter() - w0
    c0, w0 = cpu_self(), time.perf_counter()
    DBN().fit(from_log(open_log(log, con=con)), iterations=iterations)
    out["dbn_cpu"], out["dbn_wall"] = cpu_self() - c0, time.perf_counter() - w0
    out["peak_rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return out


def _children(pid: int) -> list[int]:
    kids = []
    for p in os.listdir("/proc"):
        if p.isdigit():
            try:
                stat = Path(f"/proc/{p}/stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                kids.append(int(p))
    return kids


def _tree(pid: int) -> list[int]:
    out, todo = [], [pid]
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(_children(p))
    return out


def jvm_cpu(pid: int) -> float:
    """CPU seconds of the JVM and every process under it (Spark's Python workers)."""
    total = 0.0
    for p in _tree(pid):
        try:
            f = Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += (int(f[11]) + int(f[12])) / TICK
    return total


def jvm_peak_mb(pid: int) -> float:
    """The JVM's peak RSS plus the current RSS of the processes under it."""
    total = 0.0
    for p in _tree(pid):
        try:
            status = Path(f"/proc/{p}/status").read_text()
        except OSError:
            continue
        key = "VmHWM:" if p == pid else "VmRSS:"
        for line in status.splitlines():
            if line.startswith(key):
                total += int(line.split()[1]) / 1024
    return total


def stages(spark: Any) -> list[tuple[int, int, int]]:
    """(stage id, tasks, summed task run time in ms) of every stage so far."""
    gw = spark.sparkContext._gateway
    st = spark.sparkContext._jsc.sc().statusStore().stageList(
        None, False, False, gw.new_array(gw.jvm.double, 0), gw.jvm.java.util.ArrayList())
    return [(st.apply(i).stageId(), st.apply(i).numTasks(), st.apply(i).executorRunTime())
            for i in range(st.length())]


def spark_ab(spark: Any, log: Path, assign: Path) -> None:
    from relkit.metrics.online.ab.users import get_metric
    from relkit.metrics.spark.ab import spark_user_table
    from relkit.metrics.spark.logs import check, read_assignments, read_log

    src = read_log(spark, log)
    check(src)
    spark_user_table(spark, src, read_assignments(spark, assign),
                     [get_metric(m) for m in METRICS])


def spark_fit(spark: Any, log: Path, name: str, iterations: int) -> None:
    from relkit.metrics.spark.clicks import code_log, fit_spark
    from relkit.metrics.spark.logs import read_log

    data = code_log(spark, read_log(spark, log))
    try:
        fit_spark(data, name, iterations=iterations)
    finally:
        data.release()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="200000,1000000")
    ap.add_argument("--partitions", default="2,4,8,16")
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--local-one", nargs=3, help=argparse.SUPPRESS)
    a = ap.parse_args()
    if a.local_one:
        print(json.dumps(local_one(a.local_one[0], a.local_one[1], int(a.local_one[2]))))
        return
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from relkit.metrics.spark.session import get_session

    sizes = [int(s) for s in a.sizes.split(",")]
    with tempfile.TemporaryDirectory(prefix="relkit_spark_bench_") as tmp:
        d = Path(tmp)
        inputs = {n: make_inputs(d, n) for n in sizes}
        t0 = time.perf_counter()
        spark = get_session("local[2]", conf={"spark.sql.shuffle.partitions": "4"})
        print(f"Spark session start: {time.perf_counter() - t0:.1f} s wall (not counted below)")
        pid = int(spark._jvm.java.lang.ProcessHandle.current().pid())
        print(f"\n{'rows':>10} {'step':<5} {'duck wall':>9} {'spark wall':>10} {'ratio':>6} "
              f"{'duck cpu':>8} {'spark cpu':>9} {'ratio':>6} {'duck MB':>8} {'spark MB':>8}")
        for n in sizes:
            log, assign = inputs[n]
            res = subprocess.run([sys.executable, __file__, "--local-one", str(log),
                                  str(assign), str(a.iterations)], capture_output=True,
                                 text=True, check=True)
            loc = json.loads(res.stdout.strip().splitlines()[-1])
            steps = (("ab", lambda lg=log, asg=assign: spark_ab(spark, lg, asg)),
                     ("pbm", lambda lg=log: spark_fit(spark, lg, "pbm", a.iterations)),
                     ("dbn", lambda lg=log: spark_fit(spark, lg, "dbn", a.iterations)))
            for step, fn in steps:
                c0, j0, w0 = cpu_self(), jvm_cpu(pid), time.perf_counter()
                fn()
                wall = time.perf_counter() - w0
                cpu = cpu_self() - c0 + jvm_cpu(pid) - j0
                lw, lc = loc[f"{step}_wall"], loc[f"{step}_cpu"]
                print(f"{n:>10,} {step:<5} {lw:>9.2f} {wall:>10.2f} {wall / lw:>6.1f} "
                      f"{lc:>8.2f} {cpu:>9.2f} {cpu / lc:>6.1f} {loc['peak_rss_mb']:>8.0f} "
                      f"{jvm_peak_mb(pid):>8.0f}")
        big = max(sizes)
        log, assign = inputs[big]
        size = log.stat().st_size
        print(f"\npartition scaling, ab per-user sums on {big:,} rows ({size / 1e6:.1f} MB "
              "Parquet)")
        print(f"{'partitions':>10} {'tasks':>6} {'task s':>7} {'s/task':>7} {'wall s':>7} "
              f"{'rows/task-s':>12}")
        best = 0.0
        for p in [int(x) for x in a.partitions.split(",")]:
            spark.conf.set("spark.sql.shuffle.partitions", str(p))
            spark.conf.set("spark.sql.files.maxPartitionBytes", str(max(size // p, 1)))
            spark.conf.set("spark.sql.files.openCostInBytes", "0")
            before = {s[0] for s in stages(spark)}
            w0 = time.perf_counter()
            spark_ab(spark, log, assign)
            wall = time.perf_counter() - w0
            new = [s for s in stages(spark) if s[0] not in before]
            tasks = sum(s[1] for s in new)
            task_s = sum(s[2] for s in new) / 1000
            rate = big / task_s if task_s else float("nan")
            best = max(best, rate)
            print(f"{p:>10} {tasks:>6} {task_s:>7.2f} {task_s / max(tasks, 1):>7.3f} "
                  f"{wall:>7.2f} {rate:>12,.0f}")
        print(f"\nprojection from {best:,.0f} rows per task-second (shuffle and driver "
              "time not included; the per-user table is collected to the driver):")
        for rows in (10**9, 10**10):
            for cores in (64, 512):
                print(f"  {rows:.0e} rows on {cores:>3} cores: ~{rows / best / cores:,.0f} s "
                      "of task time per core")
        spark.stop()


if __name__ == "__main__":
    main()
