"""Row-level security's cost: the judging round trip as the owner and as ann's login.

    eval "$(.ci/postgres)"; .venv/bin/python bench/rls_bench.py --pg "$RELKIT_TEST_PG"

One PostgreSQL database: a pool of ``--entries`` pairs over topics of 1,000, two
assessors (ann, bob) with ``--assigned`` items each, ``relkit team init``. Then the
same work twice, interleaved: ``next_item`` + ``record`` (a committed judgment) through
the owner's connection (no policy applies to the tables' owner) and through ann's login
(every query filtered by the policies). Prints p50/p95 per call and the ratio
ann/owner. The roles made are dropped at the end.
"""

from __future__ import annotations

import argparse
import sys
import time
import uuid
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from sqlalchemy import create_engine, text  # noqa: E402

from relkit.corpora.types import TREC_DL, Document, Topic  # noqa: E402
from relkit.judging.store.access.policies import init_team  # noqa: E402
from relkit.judging.store.assign import Store  # noqa: E402


def pct(xs: list[float], p: float) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--pg", required=True, help="admin URL (creates and drops a database)")
    ap.add_argument("--entries", type=int, default=100_000)
    ap.add_argument("--assigned", type=int, default=2000)
    ap.add_argument("--judgments", type=int, default=300)
    a = ap.parse_args()
    admin = create_engine(a.pg.replace("postgresql://", "postgresql+psycopg://", 1),
                          isolation_level="AUTOCOMMIT")
    name = f"relkit_rlsbench_{uuid.uuid4().hex[:8]}"
    with admin.connect() as c:
        c.execute(text(f'CREATE DATABASE "{name}"'))
    base = a.pg.rsplit("/", 1)[0]
    url = f"{base}/{name}"
    prefix = ""
    try:
        owner = Store.open(url)
        topics = max(1, a.entries // 1000)
        docs = [Document(f"D{d:07d}", f"Title {d}", "lorem ipsum " * 40)
                for d in range(a.entries // 5)]
        owner.create_collection("c", TREC_DL, [Topic(str(t), f"t{t}") for t in range(topics)],
                                docs)
        pool = [(str(t), docs[(t * 1000 + i) % len(docs)].id)
                for t in range(topics) for i in range(1000)]
        owner.import_pool(pool, name="p")
        per = max(1, a.assigned // 1000)
        owner.assign(["ann"], topics=[str(t) for t in range(per)])
        owner.assign(["bob"], topics=[str(t) for t in range(per, 2 * per)])
        prefix = init_team(owner).prefix
        with owner.engine.connect() as c:  # fresh tables: the statistics autovacuum would take
            c.execute(text("ANALYZE"))
            c.commit()
        scheme, rest = url.split("://", 1)
        ann = Store.open(f"{scheme}://{prefix}ann@{rest.split('@', 1)[1]}", create=False)
        views = {"owner": owner.assessor("ann"), "ann's login": ann.assessor("ann")}
        times: dict[str, dict[str, list[float]]] = {k: {"next_item": [], "record": []}
                                                    for k in views}
        for i in range(a.judgments):
            for who, v in views.items():  # interleaved: the same load on both
                t0 = time.perf_counter()
                item = v.next_item("0")
                t1 = time.perf_counter()
                assert item is not None
                v.record(topic="0", doc=item.doc, grade=i % 4)
                t2 = time.perf_counter()
                times[who]["next_item"].append((t1 - t0) * 1000)
                times[who]["record"].append((t2 - t1) * 1000)
        print(f"{a.entries:,} pool entries, {a.assigned:,} items per assessor, "
              f"{a.judgments} calls each")
        print(f"{'call':10} {'owner p50':>10} {'p95':>7} {'ann p50':>9} {'p95':>7} "
              f"{'ratio p50':>10} {'p95':>6}")
        for call in ("next_item", "record"):
            o, n = times["owner"][call], times["ann's login"][call]
            print(f"{call:10} {pct(o, 50):8.2f}ms {pct(o, 95):5.2f}ms {pct(n, 50):7.2f}ms "
                  f"{pct(n, 95):5.2f}ms {pct(n, 50) / pct(o, 50):9.2f}x "
                  f"{pct(n, 95) / pct(o, 95):5.2f}x")
        ann.close()
        owner.close()
    finally:
        with admin.connect() as c:
            c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
            if prefix:
                roles = [r for (r,) in c.execute(text(
                    "SELECT rolname FROM pg_roles WHERE starts_with(rolname, :p) "
                    "ORDER BY rolname LIKE '%relkit\\_%'"), {"p": prefix})]
                for r in roles:
                    c.execute(text(f'DROP ROLE IF EXISTS "{r}"'))
        admin.dispose()


if __name__ == "__main__":
    main()
