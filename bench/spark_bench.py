"""The Spark engine against the single-machine path, on this machine, in local mode.

Three parts, all in one process and one Spark session (``local[N]``):

1. **Per-row overhead**: the same run evaluated by ``Evaluator.compute`` (local) and
   ``Evaluator(..., engine="spark")`` at two sizes; the per-row cost is the slope
   between the sizes (a job's fixed cost cancels), CPU time (user+sys of the whole
   process tree: driver, JVM, Python workers) and wall time; peak memory (driver RSS for
   local, the JVM's and workers' peak RSS for Spark). Ratios spark / local.
2. **Spread**: a fixed input (several runs) with 1, 2, 4, 8... shuffle partitions (and
   topic buckets): the task count Spark ran, and per-call time and rows measured inside
   each task.
3. **Projection**: from the measured per-core throughput of the task code, the time for a
   sweep (runs x queries x depth) on E executors x C cores, plus the measured fixed cost.

The machine is shared: compare CPU seconds and ratios, not absolute wall time.

    .venv/bin/python bench/spark_bench.py [--queries 2000] [--docs 100] [--runs 4] \
        [--cores 2] [--partitions 1,2,4,8]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

MEASURES = ["map", "ndcg_cut.10", "ndcg", "P.10", "recall.100", "recip_rank", "Rprec"]
TICK = os.sysconf("SC_CLK_TCK")
PAGE = os.sysconf("SC_PAGE_SIZE")


def _children() -> dict[int, list[int]]:
    kids: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:
                continue
            ppid = int(stat.rsplit(")", 1)[1].split()[1])
            kids.setdefault(ppid, []).append(int(entry))
    return kids


def tree() -> list[int]:
    """This process and every descendant (the JVM, its Python workers)."""
    kids, out, todo = _children(), [], [os.getpid()]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(kids.get(pid, []))
    return out


def tree_cpu() -> float:
    """user+sys seconds of the process tree, including reaped children."""
    total = 0
    for pid in tree():
        try:
            f = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        total += sum(int(x) for x in f[11:15])    # utime stime cutime cstime
    return total / TICK


def tree_peak_mib(skip_self: bool) -> float:
    """Sum of peak RSS (VmHWM) of the tree's processes (without this one: ``skip_self``)."""
    total = 0
    for pid in tree():
        if skip_self and pid == os.getpid():
            continue
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmHWM:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total / 1024


def timed(fn) -> tuple[float, float, object]:
    cpu, wall = tree_cpu(), time.perf_counter()
    out = fn()
    return tree_cpu() - cpu, time.perf_counter() - wall, out


def make_data(root: Path, queries: int, docs: int, runs: int) -> tuple[Path, list[Path]]:
    from gen import generate

    paths = []
    for r in range(runs):
        out = root / f"r{r}"
        generate(queries, docs, out, seed=r, runid=f"run{r}")
        paths.append(out / "run.txt")
    return root / "r0" / "qrels.txt", paths


def overhead(session, qrels: Path, small: Path, large: Path, rows: tuple[int, int]
             ) -> float:
    from relkit.metrics.data import Run
    from relkit.metrics.evaluator import Evaluator

    local = Evaluator(qrels, MEASURES)
    spark = Evaluator(qrels, MEASURES, engine="spark")
    spark.compute(small)                        # warm: Python workers, JIT
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    res = {}
    for name, ev in (("local", local), ("spark", spark)):
        for size, path in (("small", small), ("large", large)):
            if name == "local":
                cpu, wall, r = timed(lambda p=path, e=ev: e.compute(Run.read(p, eval_only=True)))
            else:
                cpu, wall, r = timed(lambda p=path, e=ev: e.compute(p))
            res[name, size] = (cpu, wall, r)
    for size in ("small", "large"):
        a, b = res["local", size][2], res["spark", size][2]
        same = all(np.array_equal(x, y) for x, y in zip(a.values, b.values, strict=True)
                   if isinstance(x, np.ndarray))
        assert same and a.summary == b.summary, "spark and local differ"
    d = rows[1] - rows[0]
    print(f"\n## 1. Per-row overhead ({rows[0]:,} and {rows[1]:,} run lines, 7 measures)\n")
    print("| engine | CPU s small | CPU s large | wall s small | wall s large "
          "| CPU us/row (slope) | wall us/row (slope) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    slope = {}
    for name in ("local", "spark"):
        cs, ws = res[name, "small"][:2]
        cl, wl = res[name, "large"][:2]
        slope[name] = ((cl - cs) / d * 1e6, (wl - ws) / d * 1e6)
        print(f"| {name} | {cs:.2f} | {cl:.2f} | {ws:.2f} | {wl:.2f} | "
              f"{slope[name][0]:.2f} | {slope[name][1]:.2f} |")
    print(f"\nspark / local: CPU per row x{slope['spark'][0] / max(slope['local'][0], 1e-9):.1f}, "
          f"wall per row x{slope['spark'][1] / max(slope['local'][1], 1e-9):.1f}; "
          f"fixed cost of a Spark job (wall, small input) "
          f"{res['spark', 'small'][1]:.2f} s vs {res['local', 'small'][1]:.2f} s local")
    print(f"per-topic values and means: identical (checked). Driver peak RSS "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MiB "
          f"(before timing {rss0:.0f} MiB); JVM + Python workers peak RSS "
          f"{tree_peak_mib(skip_self=True):.0f} MiB")
    return slope["spark"][0]


def spread(session, qrels: Path, runs: list[Path], parts: list[int], rows: int) -> float:
    """Task count and per-call time as partitions grow; returns rows/s per core."""
    import pyarrow as pa

    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.spark import engine
    from relkit.metrics.spark.inputs import expand, run_rows
    from relkit.metrics.spark.task import SCHEMA, Plan, evaluate_group, evaluator_for, qrels_ipc

    ev = Evaluator(qrels, MEASURES)
    sc = session.sparkContext
    session.conf.set("spark.sql.adaptive.enabled", "false")   # partitions as set
    inputs = expand(session, [str(p) for p in runs])
    kinds = engine._kinds(ev)
    plan = Plan(qrels_ipc(ev.qrels.table), ev.qrels.source, list(ev.measures),
                {"compat": 10}, [r.label for r in inputs], kinds)
    shared = sc.broadcast(plan)
    key = id(plan)

    def task(group: pa.Table) -> pa.Table:
        start = time.perf_counter()
        out = evaluate_group(group, evaluator_for(key, shared.value), shared.value)
        secs = time.perf_counter() - start
        return out.append_column("secs", pa.array([secs] * out.num_rows)).append_column(
            "rows", pa.array([group.num_rows] * out.num_rows, pa.int64())).append_column(
            "pid", pa.array([os.getpid()] * out.num_rows, pa.int64()))

    print(f"\n## 2. Spread: {len(runs)} runs x {rows:,} lines, partitions = topic buckets "
          "per run = shuffle partitions\n")
    print("| partitions | groups | tasks (evaluation stage) | wall s | CPU s | per-call s median | "
          "per-call s max | rows/call | calls' rows/s |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    rate = 0.0
    for p in parts:
        session.conf.set("spark.sql.shuffle.partitions", str(p))
        group_id = f"bench-{p}"
        sc.setJobGroup(group_id, group_id)
        df = run_rows(session, inputs, p).groupBy("run", "bucket").applyInArrow(
            task, SCHEMA + ", secs double, rows long, pid long")
        cpu, wall, table = timed(df.toArrow)
        stages = [sid for jid in sc.statusTracker().getJobIdsForGroup(group_id)
                  for sid in (getattr(sc.statusTracker().getJobInfo(jid), "stageIds", None)
                              or [])]
        final = sc.statusTracker().getStageInfo(max(stages)) if stages else None
        tasks = final.numTasks if final else 0     # the stage that runs the groups
        calls = table.filter(pa.compute.equal(table["code"], -1))
        secs = np.asarray(calls["secs"].to_numpy())
        nrows = np.asarray(calls["rows"].to_numpy())
        rate = float(nrows.sum() / secs.sum())
        print(f"| {p} | {calls.num_rows} | {tasks} | {wall:.2f} | {cpu:.2f} | "
              f"{np.median(secs):.3f} | {secs.max():.3f} | {int(np.median(nrows)):,} | "
              f"{rate:,.0f} |")
    sc.setJobGroup("", "")
    session.conf.set("spark.sql.adaptive.enabled", "true")
    shared.unpersist()
    return rate


def projection(cpu_per_row: float, rate: float, fixed: float) -> None:
    print("\n## 3. Projection\n")
    print(f"End to end, Spark spent {cpu_per_row:.2f} CPU us per run line (part 1's slope: "
          "reading, shuffle, the tasks, collecting per-topic values); inside the tasks, "
          f"relkit's code evaluated {rate:,.0f} lines/s per core. A job's fixed cost here: "
          f"{fixed:.1f} s. Time = lines x CPU per line / cores + fixed, assuming the work "
          "spreads as part 2 shows (groups are independent; the driver's share is the "
          "per-topic values, not the lines).\n")
    print("| sweep | lines | 2 cores (this box) | 80 cores | 800 cores | 3200 cores |")
    print("|---|---:|---:|---:|---:|---:|")
    for name, lines in (("100 runs x 10^4 q x 1000", 1e9), ("1000 runs x 10^4 q x 1000", 1e10),
                        ("1000 runs x 10^5 q x 1000", 1e11)):
        cells = [lines * cpu_per_row * 1e-6 / cores + fixed for cores in (2, 80, 800, 3200)]
        print(f"| {name} | {lines:.0e} | " + " | ".join(_human(c) for c in cells) + " |")


def _human(secs: float) -> str:
    if secs < 120:
        return f"{secs:.0f} s"
    if secs < 7200:
        return f"{secs / 60:.0f} min"
    return f"{secs / 3600:.1f} h"


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--queries", type=int, default=2000)
    ap.add_argument("--docs", type=int, default=100)
    ap.add_argument("--runs", type=int, default=4)
    ap.add_argument("--cores", type=int, default=2, help="local[N] (default 2)")
    ap.add_argument("--partitions", default="1,2,4,8")
    args = ap.parse_args(argv)
    from relkit.metrics.spark.engine import quiet_pandas
    from relkit.metrics.spark.session import get_session

    with quiet_pandas():
        session = get_session(f"local[{args.cores}]")
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        qrels, runs = make_data(root, args.queries, args.docs, args.runs)
        small_q = max(args.queries // 10, 10)
        from gen import generate

        generate(small_q, args.docs, root / "small", seed=0, runid="small")
        rows = (small_q * args.docs, args.queries * args.docs)
        print(f"# relkit eval: Spark local[{args.cores}] vs single machine")
        with quiet_pandas():
            cpu_per_row = overhead(session, qrels, root / "small" / "run.txt", runs[0], rows)
            from relkit.metrics.evaluator import Evaluator

            _, fixed, _ = timed(lambda: Evaluator(qrels, MEASURES, engine="spark")
                                .compute(root / "small" / "run.txt"))
            rate = spread(session, qrels, runs,
                          [int(p) for p in args.partitions.split(",")], rows[1])
        projection(cpu_per_row, rate, fixed)
    session.stop()


if __name__ == "__main__":
    main()
