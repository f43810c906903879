"""Judgment-import benchmark: `relkit import judgments` on a million lines.

    .venv/bin/python bench/import_bench.py                        # SQLite, 1M judgments
    .venv/bin/python bench/import_bench.py --judgments 200000     # quicker
    .venv/bin/python bench/import_bench.py --pg "$RELKIT_TEST_PG" # PostgreSQL too

A project like a real one: ``--judgments / 1000`` topics with 1,000 pooled
documents each, all assigned to one assessor; a qrels file with one judgment
for every assigned item. Timed: reading the file (what the command reads),
importing it into the fresh project (new judgments: inserts, history, items
marked done), and importing it again (every judgment revised). Target (issue
15): 1M judgments imported in under 60 s on SQLite. Wall and CPU time are both
printed (on SQLite the database work is in-process, so CPU time is what the import
costs on an idle machine; on a shared one wall time is longer), with the load average.

The old path (one upsert and one history insert per line, as relkit did before
the batched import) is timed against the batched one on the same smaller project
(``--old-sample`` lines, fresh databases for each), and the ratio printed: the old
path on a million lines would take most of an hour.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from relkit.corpora.types import TREC_DL, Document, Topic  # noqa: E402
from relkit.judging.judgment_files import JudgmentLine, read_judgment_files  # noqa: E402
from relkit.judging.store.assign import Store  # noqa: E402
from relkit.judging.store.imports import import_judgments  # noqa: E402
from relkit.judging.store.reports import status  # noqa: E402

PER_TOPIC = 1000


def project(url: str, judgments: int) -> Store:
    """A store with judgments // 1000 topics x 1000 pooled documents, all assigned to ann."""
    topics = max(1, judgments // PER_TOPIC)
    docs = [Document(f"D{d:07d}", f"Title {d}", "lorem ipsum") for d in
            range(max(PER_TOPIC, topics * PER_TOPIC // 5))]
    store = Store.open(url)
    store.create_collection("bench", TREC_DL, [Topic(str(t), f"topic {t}")
                                               for t in range(1, topics + 1)])
    pairs = [(str(t), docs[(t * 7919 + k) % len(docs)].id)
             for t in range(1, topics + 1) for k in range(PER_TOPIC)]
    store.import_pool(pairs, name="big", lookup={d.id: d for d in docs}.get)
    store.assign(["ann"])
    return store


def qrels_file(store: Store, path: Path) -> int:
    """ann's qrels: one line per assigned item, grades 0-3."""
    view = store.assessor("ann")
    n = 0
    with open(path, "w") as fp:
        for t in view.topics():
            for item in view.items(t.key):
                fp.write(f"{t.key} 0 {item.doc} {(n * 7) % 4}\n")
                n += 1
    return n


def old_import(store: Store, rows: list[JudgmentLine]) -> None:
    """The path relkit took before: per line, one upsert and one history insert."""
    from sqlalchemy import insert
    from sqlalchemy.dialects import postgresql, sqlite

    from relkit.judging.store.database import now
    from relkit.judging.store.tables import JudgmentEventRow, JudgmentRow

    with store.write() as s, s.begin():
        c = store.collection_row(s)
        topics, docs = store.topic_ids(s, c.id), store.doc_ids(s, c.id)
        people = store.ensure_assessors(s, sorted({r.assessor for r in rows}))
        conn = s.connection()
        stamp = now()
        ins_fn = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
        t = JudgmentRow.__table__  # type: ignore[attr-defined]
        for r in rows:
            ins = ins_fn(t).values(
                collection_id=c.id, assessor_id=people[r.assessor], topic_id=topics[r.topic],
                document_id=docs[r.doc], grade=r.grade, status="judged", note="",
                flagged=False, dwell_ms=0, version=1, source="import", created_at=stamp,
                updated_at=stamp)
            ins = ins.on_conflict_do_update(
                index_elements=["assessor_id", "topic_id", "document_id"],
                set_=dict(grade=ins.excluded.grade, status="judged",
                          version=t.c.version + 1, source="import", updated_at=stamp),
            ).returning(t.c.id, t.c.version)
            jid, version = conn.execute(ins).one()
            conn.execute(insert(JudgmentEventRow).values(
                judgment_id=jid, version=version, assessor_id=people[r.assessor],
                topic_id=topics[r.topic], document_id=docs[r.doc], grade=r.grade,
                status="judged", note="", flagged=False, dwell_ms=0, source="import",
                recorded_at=stamp))


def timed(fn: Callable[[], object]) -> tuple[float, float]:
    """Wall and CPU seconds of ``fn()`` (CPU: this process; SQLite works in it)."""
    t0, c0 = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - t0, time.process_time() - c0


def run(fresh: Callable[[], Iterator[str]], judgments: int, old_sample: int
        ) -> dict[str, float]:
    res: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as tmp:
        with contextmanager(fresh)() as url:
            t0 = time.perf_counter()
            store = project(url, judgments)
            n = qrels_file(store, Path(tmp) / "ann.qrels")
            res["setup_s"] = time.perf_counter() - t0
            res["lines"] = n
            lines: list[JudgmentLine] = []
            res["read_s"], res["read_cpu_s"] = timed(lambda: lines.extend(
                read_judgment_files([Path(tmp) / "ann.qrels"])))
            res["import_new_s"], res["import_new_cpu_s"] = timed(
                lambda: import_judgments(store, lines))
            me = next(a for a in status(store).assessors if a.assessor == "ann")
            assert me.done == me.items == n, (me.done, me.items, n)
            res["import_revise_s"], res["import_revise_cpu_s"] = timed(
                lambda: import_judgments(store, lines))
            res["read_and_import_s"] = res["read_s"] + res["import_new_s"]
            res["read_and_import_cpu_s"] = res["read_cpu_s"] + res["import_new_cpu_s"]
            store.close()
        for how in ("old", "new"):
            with contextmanager(fresh)() as url:
                store = project(url, old_sample)
                qrels_file(store, Path(tmp) / "small.qrels")
                small = list(read_judgment_files([Path(tmp) / "small.qrels"]))
                do = old_import if how == "old" else import_judgments
                t0 = time.perf_counter()
                do(store, small)
                res[f"{how}_path_{len(small)}_s"] = time.perf_counter() - t0
                store.close()
    return res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--judgments", type=int, default=1_000_000)
    ap.add_argument("--old-sample", type=int, default=20_000,
                    help="lines for the old-path / batched comparison")
    ap.add_argument("--pg", default=None, help="PostgreSQL admin URL (fresh databases made "
                    "on it), e.g. $RELKIT_TEST_PG")
    args = ap.parse_args()
    results: dict[str, dict[str, float]] = {}

    def sqlite_db() -> Iterator[str]:
        with tempfile.TemporaryDirectory() as d:
            yield str(Path(d) / "bench.db")

    results["sqlite"] = run(sqlite_db, args.judgments, args.old_sample)
    print("sqlite:", {k: round(v, 3) for k, v in results["sqlite"].items()}, flush=True)
    if args.pg:
        from sqlalchemy import create_engine, text

        admin = create_engine(args.pg.replace("postgresql://", "postgresql+psycopg://", 1),
                              isolation_level="AUTOCOMMIT")

        def pg_db() -> Iterator[str]:
            name = f"relkit_bench_{uuid.uuid4().hex[:8]}"
            with admin.connect() as c:
                c.execute(text(f'CREATE DATABASE "{name}"'))
            try:
                yield f"{args.pg.rsplit('/', 1)[0]}/{name}"
            finally:
                with admin.connect() as c:
                    c.execute(text(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))

        results["postgresql"] = run(pg_db, args.judgments, args.old_sample)
    backends = list(results)
    print(f"load average (1, 5, 15 min): {os.getloadavg()}")
    print(f"import benchmark: {args.judgments:,} judgments of one assessor, each an assigned "
          f"item; old path vs batched on {args.old_sample:,} lines (fresh databases)")
    print("| measure | " + " | ".join(backends) + " |")
    print("|" + "---|" * (len(backends) + 1))
    for k in results["sqlite"]:
        print(f"| {k} | " + " | ".join(f"{results[b][k]:,.3f}" if k != "lines" else
                                      f"{int(results[b][k]):,}" for b in backends) + " |")
    for b in backends:
        r = results[b]
        old = next(v for k, v in r.items() if k.startswith("old_path"))
        new = next(v for k, v in r.items() if k.startswith("new_path"))
        print(f"{b}: old path / batched = {old / new:.1f}x on {args.old_sample:,} lines; "
              f"{int(r['lines']):,} judgments read and imported in "
              f"{r['read_and_import_s']:.1f} s wall, {r['read_and_import_cpu_s']:.1f} s CPU"
              + (f" (target < 60 s: {'met' if r['read_and_import_s'] < 60 else 'MISSED'})"
                 if b == "sqlite" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(os.EX_OK if main() == 0 else 1)
