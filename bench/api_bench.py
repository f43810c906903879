"""The Python API's three everyday jobs, as whole processes, against ir_measures.

Usage::

    .venv/bin/python bench/api_bench.py [--repeat 11] [--jobs evaluate,means]
        [--wheel [--venv DIR] [--baseline REV]]

On the TREC-sized data of ``bench/startup_bench.py`` (50 topics x 1,000 documents; two
more runs made from it by perturbing its scores, seeded), each job runs as a fresh
process, relkit's and ir_measures' taking turns, ``--repeat`` times (medians of wall
time and of CPU seconds, user + system, which move less with the load):

* ``evaluate``: P@10, nDCG@10 and AP of three runs (relkit ``Evaluator.aggregate``;
  ir_measures ``calc_aggregate``);
* ``means``: the same job through the pandas-free API (``Evaluator.compute(run).to_dict()``,
  what :func:`relkit.evaluate` returns; ``aggregate`` builds a pandas ``Series``, and
  importing pandas is most of its time), against the same ir_measures code;
* ``front``: the same job through the README's front door, ``relkit.evaluate(qrels, run,
  measures).to_dict()`` once per run (the qrels read again for each), against the same
  ir_measures code;
* ``paired``: a paired t-test on AP between two runs (relkit ``compare``; ir_measures'
  per-topic ``iter_calc`` and ``scipy.stats.ttest_rel``);
* ``frame``: the per-topic values of the three measures for one run as a pandas frame
  (relkit ``Evaluator.evaluate``; ``pandas.DataFrame(ir_measures.iter_calc(...))``).

Each job prints its numbers; they are compared (to 10 decimals: ir_measures ranks
through pytrec_eval, trec_eval 9, so relkit runs with ``compat=9``). ``--wheel``: both
from relkit's wheel in a clean venv (``bench/wheel_env.py``). The load average before
and after is printed; the table goes to ``bench/results/api.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import resource
import statistics
import subprocess
import time
from pathlib import Path

import run_bench
from run_bench import DATA, add_wheel_options, choose_tools, ensure_data
from wheel_env import baseline_tools

RELKIT = {
    "evaluate": """
import sys
from relkit.metrics.evaluator import Evaluator
ev = Evaluator(sys.argv[1], ["P@10", "nDCG@10", "AP"], compat=9)
for run in sys.argv[2:]:
    means = ev.aggregate(run)
    print(*(f"{m} {means[m]:.10f}" for m in ("P@10", "nDCG@10", "AP")))
""",
    "means": """
import sys
from relkit.metrics.evaluator import Evaluator
ev = Evaluator(sys.argv[1], ["P@10", "nDCG@10", "AP"], compat=9)
for run in sys.argv[2:]:
    means = ev.compute(run).to_dict()
    print(*(f"{m} {means[m]:.10f}" for m in ("P@10", "nDCG@10", "AP")))
""",
    "front": """
import sys
import relkit
for run in sys.argv[2:]:
    means = relkit.evaluate(sys.argv[1], run, ["P@10", "nDCG@10", "AP"], compat=9).to_dict()
    print(*(f"{m} {means[m]:.10f}" for m in ("P@10", "nDCG@10", "AP")))
""",
    "paired": """
import sys
from relkit.metrics.compare.core import compare
cmp = compare(sys.argv[1], {"a": sys.argv[2], "b": sys.argv[3]}, ["AP"], test="t",
              correction="none", compat=9)
print(f"p {cmp.pairs[0].p:.10f}")
""",
    "frame": """
import sys
from relkit.metrics.evaluator import Evaluator
frame = Evaluator(sys.argv[1], ["P@10", "nDCG@10", "AP"], compat=9).evaluate(sys.argv[2])
print(len(frame), f"{frame['value'].sum():.10f}")
""",
}
_PEER_MEANS = """
import sys
import ir_measures
from ir_measures import AP, P, nDCG
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
for run in sys.argv[2:]:
    got = {str(m): v for m, v in ir_measures.calc_aggregate(
        [P@10, nDCG@10, AP], qrels, ir_measures.read_trec_run(run)).items()}
    print(*(f"{m} {got[m]:.10f}" for m in ("P@10", "nDCG@10", "AP")))
"""
PEER = {
    "evaluate": _PEER_MEANS,
    "means": _PEER_MEANS,
    "front": _PEER_MEANS,
    "paired": """
import sys
import ir_measures
from ir_measures import AP
from scipy.stats import ttest_rel
qrels = list(ir_measures.read_trec_qrels(sys.argv[1]))
per = [{m.query_id: m.value for m in ir_measures.iter_calc(
    [AP], qrels, ir_measures.read_trec_run(r))} for r in sys.argv[2:4]]
topics = sorted(per[0])
print(f"p {ttest_rel([per[0][t] for t in topics], [per[1][t] for t in topics]).pvalue:.10f}")
""",
    "frame": """
import sys
import ir_measures
import pandas as pd
from ir_measures import AP, P, nDCG
frame = pd.DataFrame(ir_measures.iter_calc([P@10, nDCG@10, AP],
                     ir_measures.read_trec_qrels(sys.argv[1]),
                     ir_measures.read_trec_run(sys.argv[2])))
print(len(frame), f"{frame['value'].sum():.10f}")
""",
}


def perturbed(run: Path, out: Path, seed: int) -> Path:
    """``run`` with its scores perturbed and each topic re-ranked (another system)."""
    if out.is_file():
        return out
    rng = random.Random(seed)
    topics: dict[str, list[tuple[str, float]]] = {}
    for line in run.read_text().splitlines():
        qid, _, docno, _, score, _ = line.split()
        topics.setdefault(qid, []).append((docno, float(score) + rng.gauss(0, 0.3)))
    lines = []
    for qid, docs in topics.items():
        docs.sort(key=lambda d: (-d[1], d[0]))
        lines += [f"{qid} Q0 {d} {i} {s:.4f} sys{seed}" for i, (d, s) in enumerate(docs, 1)]
    out.write_text("\n".join(lines) + "\n")
    return out


def main(argv: list[str] | None = None) -> None:
    """Command-line entry point."""
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=11, help="timed runs per job (median)")
    ap.add_argument("--jobs", default=",".join(RELKIT), help="comma list of: "
                    + ", ".join(RELKIT))
    add_wheel_options(ap)
    ap.add_argument("--baseline", metavar="REV", help="with --wheel: also time commit REV's "
                    "wheel (in a copy of the venv)")
    args = ap.parse_args(argv)
    jobs = [j.strip() for j in args.jobs.split(",") if j.strip()]
    if not jobs or any(j not in RELKIT for j in jobs):
        ap.error(f"--jobs: choose from {', '.join(RELKIT)}")
    if args.baseline and not args.wheel:
        ap.error("--baseline needs --wheel")
    choose_tools(args)
    tools = [("relkit", run_bench.RUNNER.python)]
    if args.baseline:
        base = baseline_tools(args.venv, args.baseline)
        tools.append((f"relkit [{base.where.split()[1].removesuffix(chr(39) + 's')}]",
                      base.python))
    tools.append(("ir_measures", run_bench.RUNNER.python))
    trec = ensure_data("trec", 50, 1_000, 0)
    api = DATA / "api"
    api.mkdir(parents=True, exist_ok=True)
    qrels, run1 = trec / "qrels.txt", trec / "run.txt"
    runs = [run1, perturbed(run1, api / "run2.txt", 2), perturbed(run1, api / "run3.txt", 3)]
    files = {"evaluate": [qrels, *runs], "means": [qrels, *runs], "front": [qrels, *runs],
             "paired": [qrels, *runs[:2]], "frame": [qrels, run1]}
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    walls: dict[tuple[str, str], list[float]] = {}
    cpus: dict[tuple[str, str], list[float]] = {}
    outs: dict[tuple[str, str], str] = {}
    load_before = os.getloadavg()
    for i in range(args.repeat + 1):   # the first round is untimed (.pyc files, cache)
        for job in jobs:
            for tool, python in tools:
                code = PEER[job] if tool == "ir_measures" else RELKIT[job]
                t0 = time.perf_counter()
                c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
                proc = subprocess.run([python, "-c", code, *map(str, files[job])], env=env,
                                      capture_output=True, text=True)
                wall = time.perf_counter() - t0
                # children are waited for one at a time: the difference is this one's
                c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
                cpu = c1.ru_utime + c1.ru_stime - c0.ru_utime - c0.ru_stime
                if proc.returncode != 0:
                    raise SystemExit(f"{tool} {job}: {proc.stderr.strip()[-400:]}")
                outs[(job, tool)] = proc.stdout
                if i:
                    walls.setdefault((job, tool), []).append(wall)
                    cpus.setdefault((job, tool), []).append(cpu)
    load_after = os.getloadavg()
    lines = [
        "### The Python API's three jobs (whole processes) against ir_measures",
        "",
        f"Median of {args.repeat} runs, taking turns; relkit from {run_bench.RUNNER.where}. "
        f"Load average (1, 5, 15 min) before {', '.join(f'{x:.2f}' for x in load_before)}, "
        f"after {', '.join(f'{x:.2f}' for x in load_after)}.",
        "",
        "| job | tool | wall s | / ir_measures | CPU s | / ir_measures "
        "| same numbers as ir_measures |",
        "|---|---|---:|---:|---:|---:|---|",
    ]
    for job in jobs:
        theirs = statistics.median(walls[(job, "ir_measures")])
        theirs_cpu = statistics.median(cpus[(job, "ir_measures")])
        for tool, _ in tools:
            ours = statistics.median(walls[(job, tool)])
            ours_cpu = statistics.median(cpus[(job, tool)])
            same = "yes" if outs[(job, tool)] == outs[(job, "ir_measures")] else \
                f"NO: {outs[(job, tool)].strip()!r}"
            lines.append(f"| {job} | {tool} | {ours:.3f} | {ours / theirs:.2f} "
                         f"| {ours_cpu:.3f} | {ours_cpu / theirs_cpu:.2f} | {same} |")
    text = "\n".join(lines) + "\n"
    print(text)
    results = Path(__file__).resolve().parent / "results"
    results.mkdir(parents=True, exist_ok=True)
    (results / "api.md").write_text(text)


if __name__ == "__main__":
    main()
