"""Pooling benchmark: a depth-100 pool over 100 runs x 50 topics x 1,000 documents,
and the latency of choosing the next document in each adaptive strategy.

    .venv/bin/python bench/pool_bench.py
    .venv/bin/python bench/pool_bench.py --runs 20 --topics 10    # quicker

Targets (issue 5): the pool in a couple of seconds; ``next()`` well under a
millisecond at that size. Issue 18: the whole ``relkit pool --strategy depth``
process (read 100 run files, pool, write the pool file) within 2 s on a quiet
machine and at most 0.2x trectools' whole process (read the same files with
``TrecRun``, ``make_pool(strategy="topX")``, ``export_document_list``), run
side by side here with the load average printed; and the generic strategy path
(``build_pool(vectorised=False)``) against the vectorised one the CLI takes.
Then the same through the judging store (SQLite in a temporary directory): an
assessor's ``next_item`` on an adaptive pool (bandit, one topic, the runs' top
``--depth``, budget 100) cold (first call: candidates loaded from the
database), warm (cached strategy, an index probe for new
judgments), and a cold view's first call after 100 judgments (full replay).
With trectools installed (optional peer), its
``TrecPoolMaker().make_pool(..., strategy="topX", topX=100)`` is timed on the
same runs and the ratio printed.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow as pa

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relkit.metrics.data import Run  # noqa: E402
from relkit.pooling.adaptive import AdaptivePool  # noqa: E402
from relkit.pooling.candidates import Candidates  # noqa: E402
from relkit.pooling.depth import depth_pool  # noqa: E402
from relkit.pooling.strategies import names  # noqa: E402


def make_runs(n_runs: int, n_topics: int, n_docs: int, vocab: int = 20000,
              seed: int = 1) -> dict[str, Run]:
    rng = np.random.default_rng(seed)
    runs = {}
    topics = np.repeat(np.arange(1, n_topics + 1).astype(str), n_docs)
    for r in range(n_runs):
        docs = np.concatenate([rng.choice(vocab, n_docs, replace=False)
                               for _ in range(n_topics)])
        scores = np.tile(np.linspace(100.0, 1.0, n_docs), n_topics)
        table = pa.table({
            "query_id": pa.array(topics), "iteration": pa.array(["Q0"] * len(topics)),
            "doc_id": pa.array([f"D{d}" for d in docs]),
            "rank": pa.array(np.tile(np.arange(1, n_docs + 1), n_topics).astype(str)),
            "score": pa.array(scores), "run_id": pa.array([f"run{r}"] * len(topics))})
        runs[f"run{r:03d}"] = Run(table, f"run{r:03d}")
    return runs


def timed(fn, repeat: int = 3) -> float:  # noqa: ANN001
    best = float("inf")
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--docs", type=int, default=1000)
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--process-only", action="store_true",
                    help="Only the whole-process comparison with trectools")
    args = ap.parse_args()
    runs = make_runs(args.runs, args.topics, args.docs)
    if args.process_only:
        whole_process(runs, args.depth)
        return
    t = timed(lambda: depth_pool(runs, args.depth))
    pool = depth_pool(runs, args.depth)
    print(f"depth-{args.depth} pool, {args.runs} runs x {args.topics} topics x {args.docs} "
          f"docs: {t:.2f} s ({len(pool):,} pairs)")
    from relkit.pooling.build import build_pool

    tg = timed(lambda: build_pool("depth", runs, {"depth": args.depth}, depth=args.depth,
                                  vectorised=False), repeat=1)
    tf = timed(lambda: build_pool("depth", runs, {"depth": args.depth}, depth=args.depth),
               repeat=1)
    print(f"  build_pool('depth'): generic path {tg:.2f} s, vectorised {tf:.2f} s "
          f"({tg / tf:.1f}x)")
    whole_process(runs, args.depth)
    try:
        import pandas as pd
        from trectools import TrecPoolMaker, TrecRun  # type: ignore[import-not-found]

        truns = []
        for name, r in runs.items():
            tr = TrecRun()
            f = r.frame.rename(columns={"query_id": "query", "doc_id": "docid",
                                        "run_id": "system", "iteration": "q0"})
            tr.run_data = pd.DataFrame(f)[["query", "q0", "docid", "rank", "score", "system"]]
            tr.filename = name
            truns.append(tr)
        tp = timed(lambda: TrecPoolMaker().make_pool(truns, strategy="topX", topX=args.depth),
                   repeat=1)
        print(f"  trectools topX pool: {tp:.2f} s  (relkit is {tp / t:.1f}x faster)")
    except ImportError:
        print("  trectools not installed: no peer ratio")
    one = {n: r for n, r in runs.items()}
    t0 = time.perf_counter()
    cands = Candidates.from_runs(one, None, ["1"])
    print(f"candidates of one topic ({args.runs} runs x {args.docs} docs): "
          f"{time.perf_counter() - t0:.2f} s to build (once per session)")
    rng = np.random.default_rng(0)
    for name in names("adaptive"):
        variants = [{"policy": "maxmean"}, {"policy": "thompson"}] if name == "bandit" else [{}]
        for params in variants:
            pool_ = AdaptivePool(name, cands, params, seed=1)
            pool_.next("1")                       # builds the topic's matrix
            lat = []
            for _ in range(300):
                t0 = time.perf_counter()
                d = pool_.next("1")
                lat.append(time.perf_counter() - t0)
                if d is None:
                    break
                pool_.record("1", d, int(rng.random() < 0.2))
            lat.sort()
            label = name + (f":{params['policy']}" if params else "")
            print(f"  next() {label:<18} p50 {statistics.median(lat) * 1e6:7.1f} us   "
                  f"p95 {lat[int(len(lat) * 0.95)] * 1e6:7.1f} us")
    store_next_item(runs, args.depth)


TRECTOOLS = """
import sys
from trectools import TrecPoolMaker, TrecRun
runs = [TrecRun(p) for p in sys.argv[3:]]
pool = TrecPoolMaker().make_pool(runs, strategy="topX", topX=int(sys.argv[1]))
pool.export_document_list(sys.argv[2])
"""


def whole_process(runs: dict[str, Run], depth: int, repeat: int = 3) -> None:
    """``relkit pool`` and trectools as whole processes on the same run files."""
    import os
    import subprocess
    import tempfile

    with tempfile.TemporaryDirectory() as tmp:
        paths = []
        for name, r in runs.items():
            paths.append(str(Path(tmp) / f"{name}.txt"))
            r.write(paths[-1])
        relkit = [str(Path(sys.executable).with_name("relkit")), "pool", "--strategy", "depth",
                  "--depth", str(depth), "-o", str(Path(tmp) / "pool.tsv"), *paths]
        peer = [sys.executable, "-c", TRECTOOLS, str(depth), str(Path(tmp) / "tt.txt"), *paths]

        import resource

        cpu: dict[str, list[float]] = {"ours": [], "theirs": []}

        def run(cmd: list[str], who: str) -> float:
            # Wall time, and the child's CPU time (user + sys): on a machine shared with
            # other jobs the CPU ratio moves less than the wall-clock one.
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            subprocess.run(cmd, check=True, capture_output=True)
            wall = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[who].append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            return wall

        ours, theirs = [], []
        have_peer = subprocess.run([sys.executable, "-c", "import trectools"],
                                   capture_output=True).returncode == 0
        for _ in range(repeat):   # interleaved: both see the same load
            ours.append(run(relkit, "ours"))
            if have_peer:
                theirs.append(run(peer, "theirs"))
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
        line = (f"whole process, depth-{depth} pool of {len(runs)} run files: relkit pool "
                f"{min(ours):.2f} s wall, {min(cpu['ours']):.2f} s CPU (best of {repeat})")
        if have_peer:
            line += (f"; trectools {min(theirs):.2f} s wall, {min(cpu['theirs']):.2f} s CPU; "
                     f"ratio {min(ours) / min(theirs):.2f}x wall, "
                     f"{min(cpu['ours']) / min(cpu['theirs']):.2f}x CPU "
                     "(target <= 0.2x; relkit <= 2 s on a quiet machine)")
        else:
            line += "; trectools not installed: no peer ratio"
        print(f"{line}; load average {load}")


def store_next_item(runs: dict[str, Run], depth: int, budget: int = 100) -> None:
    import random
    import tempfile

    from relkit.corpora.types import TREC_DL, Document, Topic
    from relkit.judging.store import adaptive
    from relkit.judging.store.assign import Store

    cands = Candidates.from_runs(runs, depth, ["1"])
    docs = sorted({d for per in cands.lists["1"].values() for d in per})
    grade = random.Random(0)
    grades = {d: grade.choice([0, 0, 0, 1, 2, 3]) for d in docs}
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open(Path(tmp) / "bench.db")
        store.create_collection("bench", TREC_DL, [Topic("1", "t")],
                                [Document(d, d, "text " * 50) for d in docs])
        adaptive.import_pool(store, cands, adaptive.Definition("bandit", {}, 1, budget),
                             name="ad")
        store.assign(["ann"])
        view = store.assessor("ann")
        t0 = time.perf_counter()
        view.next_item("1")
        cold = time.perf_counter() - t0
        warm, loop = [], []
        for _ in range(budget):
            t0 = time.perf_counter()
            item = view.next_item("1")
            warm.append(time.perf_counter() - t0)   # the TUI's second (pre-wrap) call
            if item is None:
                break
            view.record(topic="1", doc=item.doc, grade=grades[item.doc])
            t0 = time.perf_counter()
            view.next_item("1")                     # after a judgment: one step, one insert
            loop.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        store.assessor("ann").next_item("1")
        replay = time.perf_counter() - t0
        store.close()
    warm.sort()
    loop.sort()
    print(f"store next_item, bandit, {len(docs):,} candidates from {len(runs)} runs "
          f"(SQLite): cold {cold * 1e3:.1f} ms; cached p50 {statistics.median(warm) * 1e3:.2f} "
          f"ms p95 {warm[int(len(warm) * 0.95)] * 1e3:.2f} ms; after a judgment p50 "
          f"{statistics.median(loop) * 1e3:.2f} ms p95 {loop[int(len(loop) * 0.95)] * 1e3:.2f} "
          f"ms; cold view replaying {budget} judgments {replay * 1e3:.1f} ms")


if __name__ == "__main__":
    main()
