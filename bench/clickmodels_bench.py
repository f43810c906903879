"""Fit PBM, UBM, DBN, DCM and CCM (50 EM iterations) on a seeded synthetic log; print times.

Usage: python bench/clickmodels_bench.py [--sessions 1000000] [--pages-per-query 5]

The log: ``--queries`` queries of ``--docs`` documents each; every query has
``--pages-per-query`` fixed result pages (random orders of its documents, ``--depth``
shown), an impression picks a query and one of its pages uniformly; clicks come from a
DBN with known parameters. ``--pages-per-query 0`` draws a fresh random page for every
impression (the worst case for the DBN, whose EM runs over the distinct sessions).
The arrays are built in memory (reading a Parquet log with DuckDB is not timed here).
Targets (issue 21): 10M sessions in 2 / 4 / 6 minutes for PBM / UBM / DBN (DCM and CCM
share DBN's E-step; the DBN target is shown for them).

Times are CPU seconds (user + sys of this process: numpy runs one thread here), so a
loaded machine does not inflate them; the extrapolation to 10M sessions is linear in
the sessions, which overstates the chain models' time when pages repeat (their EM runs
over the distinct sessions) and is exact for ``--pages-per-query 0``.

No peer is run: PyClick (the reference implementation, pure Python, one loop per
session) is not on PyPI; the targets are the comparison.
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from relkit.metrics.online.clickmodels.data import ClickData
from relkit.metrics.online.clickmodels.dbn import DBN
from relkit.metrics.online.clickmodels.registry import MODELS
from relkit.metrics.online.clickmodels.simulate import random_pages, simulate_clicks

TARGET_S = {"pbm": 120.0, "ubm": 240.0, "dbn": 360.0, "dcm": 360.0, "ccm": 360.0}


def make_log(sessions: int, queries: int, docs: int, depth: int, pages: int, seed: int
             ) -> ClickData:
    rng = np.random.default_rng(seed)
    per_query = [docs] * queries
    if pages > 0:
        # row q * pages + i: page i of query q, a random order of the query's documents
        keys = rng.random((queries * pages, docs))
        table = np.argsort(keys, axis=1)[:, :depth] + (np.arange(queries * pages)
                                                       // pages * docs)[:, None]
        pair = table[rng.integers(0, queries * pages, sessions)]
    else:
        pair = random_pages(per_query, sessions, depth, rng)
    truth = DBN()
    n_pairs = queries * docs
    truth.params = {"alpha": rng.uniform(0.05, 0.9, n_pairs),
                    "sigma": rng.uniform(0.1, 0.9, n_pairs), "gamma": np.array([0.9])}
    click = simulate_clicks(truth, pair, rng)
    qs = np.repeat(np.arange(queries), docs).astype(str).astype(object)
    ds = np.tile(np.arange(docs), queries).astype(str).astype(object)
    return ClickData(pair, click, qs, ds)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=1_000_000)
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=20)
    ap.add_argument("--depth", type=int, default=10)
    ap.add_argument("--pages-per-query", type=int, default=5)
    ap.add_argument("--iterations", type=int, default=50)
    ap.add_argument("--models", default="pbm,ubm,dbn,dcm,ccm")
    ap.add_argument("--seed", type=int, default=0)
    a = ap.parse_args()
    t0 = time.perf_counter()
    data = make_log(a.sessions, a.queries, a.docs, a.depth, a.pages_per_query, a.seed)
    print(f"log: {a.sessions:,} sessions x {a.depth} ranks, {data.n_pairs:,} pairs, "
          f"{a.pages_per_query} pages/query; generated in {time.perf_counter() - t0:.1f} s")
    scale = 10_000_000 / a.sessions
    print("model\tCPU seconds\tper iteration\textrapolated to 10M (linear)\ttarget 10M")
    for name in a.models.split(","):
        cls = MODELS[name]
        t = time.process_time()
        cls().fit(data, iterations=a.iterations, seed=1)
        s = time.process_time() - t
        print(f"{name}\t{s:.1f}\t{s / max(a.iterations, 1):.3f}\t{s * scale:.0f} s\t"
              f"{TARGET_S[name]:.0f} s", flush=True)


if __name__ == "__main__":
    main()
