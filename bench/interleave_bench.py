"""Speed of ``relkit interleave make`` and ``relkit interleave simulate``.

Targets (issue 21): ``make`` for 1M queries x 2 runs at depth 10 in at most 10 s, as a
whole process (reading both runs, ranking them as ``relkit eval`` does, interleaving,
writing Parquet); ``simulate`` with 10^6 impressions and 3 methods in at most 30 s
(team draft, balanced, probabilistic: 100 trials x 10,000 impressions each, plus the
A/B test's 10^6, on 1,000 generated topics x 2 runs of 20 documents, navigational
users), also a whole process. Times are CPU seconds (user + sys) of the child: the
machine is shared.

The peer: mpkato/interleaving is not on PyPI (the name ``interleaving`` there is an
unrelated empty package), so the peer is a plain-Python per-query team draft written
the way that library and most others do it (one loop per query, list membership tests),
timed on a sample of queries and extrapolated. It only interleaves (no reading or
writing), so the ratio printed favours the peer.

The simulate peer is the same kind of loop per impression (pick a topic, the plain-
Python team draft below, a cascade user drawing clicks with ``random``, count the
clicks per team), timed on a sample and extrapolated to the simulation's impressions.

``--previous REV`` also times ``make`` as of a git revision (its ``metrics``,
``pooling``, ``corpora`` and ``judging`` extracted to a temporary package put first on
``PYTHONPATH``), alternating with the working tree's, on the same inputs in the same
run: the before/after of a change, under the same load.

    .venv/bin/python bench/interleave_bench.py [--queries 1000000] [--depth 10]
        [--skip-make] [--skip-simulate] [--previous REV]
"""

from __future__ import annotations

import argparse
import os
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


def child_cpu(cmd: list[str], env: dict[str, str] | None = None) -> tuple[float, float]:
    """(wall, CPU user + sys) of one child process."""
    t0 = time.perf_counter()
    c0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, env=env)
    c1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (time.perf_counter() - t0,
            (c1.ru_utime - c0.ru_utime) + (c1.ru_stime - c0.ru_stime))


# navigational user of Hofmann et al. (relkit.metrics.online.clickmodels.simulate.PRESETS)
NAV_CLICK = (0.05, 0.3, 0.5, 0.7, 0.95)
NAV_STOP = (0.2, 0.3, 0.5, 0.7, 0.9)


def write_sim_inputs(folder: Path, topics: int, depth: int, pool: int) -> list[Path]:
    """Two runs of ``depth`` documents per topic and qrels over a pool of ``pool``."""
    rng = np.random.default_rng(0)
    paths = [folder / "sa.run", folder / "sb.run", folder / "sim.qrels"]
    with open(paths[0], "w") as fa, open(paths[1], "w") as fb, open(paths[2], "w") as fq:
        for t in range(topics):
            for f, tag in ((fa, "A"), (fb, "B")):
                for i, d in enumerate(rng.permutation(pool)[:depth]):
                    f.write(f"q{t} Q0 d{d} {i + 1} {depth - i} {tag}\n")
            grades = rng.integers(0, 4, pool) * (rng.random(pool) < 0.3)
            fq.writelines(f"q{t} 0 d{d} {grades[d]}\n" for d in range(pool))
    return paths


def peer_simulate(topics: int, depth: int, pool: int, impressions: int) -> float:
    """CPU seconds per impression of a per-impression Python simulation (team draft)."""
    rng = np.random.default_rng(0)
    rnd = random.Random(0)
    runs = [[[f"d{d}" for d in rng.permutation(pool)[:depth]] for _ in range(topics)]
            for _ in range(2)]
    grade = [{f"d{d}": int(g) for d, g in enumerate(rng.integers(0, 4, pool))}
             for _ in range(topics)]
    t0 = time.process_time()
    wins = 0
    for _ in range(impressions):
        t = rnd.randrange(topics)
        shown, teams = peer_team_draft(runs[0][t], runs[1][t], 10, rnd)
        credit = [0, 0]
        for d, team in zip(shown, teams, strict=True):
            level = round(4 * grade[t][d] / 3)
            if rnd.random() < NAV_CLICK[level]:
                credit[team] += 1
                if rnd.random() < NAV_STOP[level]:
                    break
        wins += (credit[0] > credit[1]) - (credit[0] < credit[1])
    return (time.process_time() - t0) / impressions


def bench_simulate(relkit: str, tmp: str, sample: int) -> None:
    topics, depth, pool = 1000, 20, 60
    a, b, qrels = write_sim_inputs(Path(tmp), topics, depth, pool)
    methods = "team-draft,balanced,probabilistic"
    trials, n_max = 100, 10_000
    wall, cpu = child_cpu([relkit, "interleave", "simulate", str(a), str(b), "--qrels",
                           str(qrels), "--preset", "navigational", "--methods", methods,
                           "--impressions", f"10,100,1000,{n_max}", "--trials",
                           str(trials)])
    per_method = trials * n_max
    print(f"relkit interleave simulate, 3 methods x {per_method:,} impressions (+ the A/B "
          f"test's {per_method:,}): {wall:.1f} s wall, {cpu:.2f} s CPU (whole process; "
          f"target <= 30 s)")
    per = peer_simulate(topics, depth, pool, sample)
    relkit_per = cpu / (4 * per_method)
    print(f"peer (per-impression Python team draft + cascade clicks): {per * 1e6:.1f} "
          f"us/impression -> {per * 3 * per_method:.1f} s for 3 x {per_method:,} "
          f"(extrapolated, one method's work each)")
    print(f"ratio peer / relkit per impression (relkit: whole process over its 4 x "
          f"{per_method:,} impressions): {per / relkit_per:.1f}x")


def previous_package(rev: str, folder: Path) -> dict[str, str]:
    """Extract ``rev``'s sources as a ``relkit`` package under ``folder``; the
    environment that imports it ahead of the working tree's editable install."""
    repo = Path(__file__).resolve().parent.parent
    src = folder / "src"
    src.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(repo), "archive", rev, "metrics", "pooling",
                              "corpora", "judging"], check=True, capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(src)], input=archive, check=True)
    pkg = folder / "pkg" / "relkit"
    pkg.mkdir(parents=True)
    for f in (src / "judging" / "_relkit").iterdir():
        (pkg / f.name).symlink_to(f)
    for sub in ("metrics", "pooling", "corpora", "judging"):
        (pkg / sub).symlink_to(src / sub)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(folder / "pkg"),
                                                      env.get("PYTHONPATH")]))
    return env


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--queries", type=int, default=1_000_000)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--sample", type=int, default=20_000, help="queries the peer runs")
    ap.add_argument("--skip-make", action="store_true")
    ap.add_argument("--skip-simulate", action="store_true")
    ap.add_argument("--previous", metavar="REV",
                    help="also time make as of this git revision, side by side")
    args = ap.parse_args()
    relkit = str(Path(sys.executable).with_name("relkit"))
    if not args.skip_simulate:
        with tempfile.TemporaryDirectory() as tmp:
            bench_simulate(relkit, tmp, args.sample)
    if args.skip_make:
        return
    with tempfile.TemporaryDirectory() as tmp:
        a, b = Path(tmp, "a.run"), Path(tmp, "b.run")
        t0 = time.perf_counter()
        write_run(a, args.queries, args.depth, 3 * args.depth, 1, "A")
        write_run(b, args.queries, args.depth, 3 * args.depth, 2, "B")
        print(f"generated 2 runs of {args.queries:,} queries x {args.depth} in "
              f"{time.perf_counter() - t0:.1f} s")
        times = {}
        prev_env = (previous_package(args.previous, Path(tmp, "previous"))
                    if args.previous else None)
        for method in ("team-draft", "balanced"):
            out = Path(tmp, f"{method}.parquet")
            cmd = [relkit, "interleave", "make", str(a), str(b), "--method", method,
                   "--depth", str(args.depth)]
            if prev_env is not None:
                # the previous revision first, then the working tree, same inputs
                old = Path(tmp, f"{method}.previous.parquet")
                pwall, pcpu = child_cpu([sys.executable, "-c", "import sys; from "
                                         "relkit.judging.cli import main; sys.argv[0] = "
                                         "'relkit'; sys.exit(main())", *cmd[1:], "-o",
                                         str(old)], env=prev_env)
                print(f"relkit interleave make --method {method} as of {args.previous}: "
                      f"{pwall:.2f} s wall, {pcpu:.2f} s CPU")
            wall, cpu = child_cpu(cmd + ["-o", str(out)])
            times[method] = cpu     # CPU against the peer's CPU: the machine is shared
            print(f"relkit interleave make --method {method}: {wall:.2f} s wall, "
                  f"{cpu:.2f} s CPU (whole process; target <= 10 s)")
            if prev_env is not None:
                same = old.read_bytes() == out.read_bytes()
                print(f"  ratio previous / now: {pcpu / cpu:.2f}x; output "
                      f"{'byte-identical' if same else 'DIFFERS'}")
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
