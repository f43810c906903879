"""Judging-store benchmark: pool import, judgment round-trip, next item, status.

    .venv/bin/python bench/store_bench.py                       # SQLite, full size
    .venv/bin/python bench/store_bench.py --entries 100000      # quicker
    eval "$(.ci/postgres)"; .venv/bin/python bench/store_bench.py --pg "$RELKIT_TEST_PG"

For each backend: import a pool of ``--entries`` pairs (documents copied in
too), assign one assessor ``--assigned`` items, then time ``--judgments``
``record`` calls (each a committed transaction: the judgment round-trip) and
as many ``next_item`` calls, and ``status`` over the whole database. Prints a
table with p50/p95 and the ratio of PostgreSQL to SQLite.
Targets (issue 6): import under a minute, a judgment round-trip in a few ms.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relkit.corpora.types import TREC_DL, Document, Topic  # noqa: E402
from relkit.judging.store.assign import Store  # noqa: E402
from relkit.judging.store.reports import status  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def run(url: str, entries: int, assigned: int, judgments: int) -> dict[str, float]:
    per_topic = 1000
    topics = max(1, entries // per_topic)
    docs = [Document(f"D{d:07d}", f"Title {d}", "lorem ipsum " * 40) for d in range(entries // 5)]
    store = Store.open(url)
    store.create_collection("bench", TREC_DL, [Topic(str(t), f"topic {t}")
                                               for t in range(1, topics + 1)])
    pairs = [(str(t), docs[(t * 7919 + k) % len(docs)].id)
             for t in range(1, topics + 1) for k in range(per_topic)]
    lookup = {d.id: d for d in docs}.get
    t0 = time.perf_counter()
    store.import_pool(pairs, name="big", lookup=lookup)
    res = {"import_s": time.perf_counter() - t0}
    want = [str(t) for t in range(1, max(1, assigned // per_topic) + 1)]
    t0 = time.perf_counter()
    store.assign(["ann"], topics=want, ordering="random", seed=1)
    res["assign_s"] = time.perf_counter() - t0
    view = store.assessor("ann")
    t0 = time.perf_counter()
    first_topics = view.topics()
    res["topics_ms"] = (time.perf_counter() - t0) * 1000
    topic = first_topics[0].key
    rec, nxt = [], []
    after = 0
    for i in range(judgments):
        t0 = time.perf_counter()
        item = view.next_item(topic, after)
        nxt.append((time.perf_counter() - t0) * 1000)
        assert item is not None
        t0 = time.perf_counter()
        view.record(topic=topic, doc=item.doc, grade=i % 4, dwell_ms=1000, source="tui")
        rec.append((time.perf_counter() - t0) * 1000)
        after = item.position
    res |= {"record_p50_ms": pct(rec, 50), "record_p95_ms": pct(rec, 95),
            "next_p50_ms": pct(nxt, 50), "next_p95_ms": pct(nxt, 95)}
    t0 = time.perf_counter()
    status(store)
    res["status_s"] = time.perf_counter() - t0
    store.close()
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--entries", type=int, default=1_000_000)
    ap.add_argument("--assigned", type=int, default=100_000)
    ap.add_argument("--judgments", type=int, default=500)
    ap.add_argument("--pg", default=os.environ.get("RELKIT_TEST_PG"),
                    help="PostgreSQL admin URL (a fresh database is made on it)")
    args = ap.parse_args()
    results: dict[str, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        results["sqlite"] = run(str(Path(tmp) / "bench.db"), args.entries, args.assigned,
                                args.judgments)
    if args.pg:
        from sqlalchemy import create_engine, text

        name = f"relkit_bench_{uuid.uuid4().hex[:8]}"
        admin = create_engine(args.pg.replace("postgresql://", "postgresql+psycopg://", 1),
                              isolation_level="AUTOCOMMIT")
        with admin.connect() as c:
            c.execute(text(f'CREATE DATABASE "{name}"'))
        try:
            results["postgresql"] = run(f"{args.pg.rsplit('/', 1)[0]}/{name}", args.entries,
                                        args.assigned, args.judgments)
        finally:
            with admin.connect() as c:
                c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    keys = list(next(iter(results.values())))
    backends = list(results)
    print(f"store benchmark: {args.entries:,} pool entries, {args.assigned:,} items assigned "
          f"to one assessor, {args.judgments} judgments")
    head = "| measure | " + " | ".join(backends) + (" | pg / sqlite |" if len(backends) > 1
                                                      else " |")
    print(head)
    print("|" + "---|" * (len(backends) + 1 + (len(backends) > 1)))
    for k in keys:
        vals = [results[b][k] for b in backends]
        row = f"| {k} | " + " | ".join(f"{v:.3f}" for v in vals)
        if len(vals) > 1:
            row += f" | {vals[1] / vals[0]:.2f}"
        print(row + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
