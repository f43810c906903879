"""How long cal takes to retrain after a batch (issue 36: <= 0.5 s on Vaswani's 11,429
documents, <= 2 s on a 100,000-document synthetic collection).

    .venv/bin/python bench/cal_bench.py
    .venv/bin/python bench/cal_bench.py --synthetic 100000 --skip-vaswani
    .venv/bin/python bench/cal_bench.py --first [--db p.db] [--peer OTHER/build/srctree]

A retraining is what the policy does when a batch is fully judged
(:meth:`relkit.pooling.cal.strategy.Cal._retrain`): draw the random non-relevant
sample, fit the logistic regression on the judgments so far, score every candidate,
take the next batch. It is timed after each of a topic's batches while a simulated
assessor judges (Vaswani: its qrels; synthetic: documents holding the topic's
words are relevant), cal:from=collection, until ``--judgments`` are judged; the
features (tf-idf fit, once per collection) are timed apart. CPU time (process) is
printed next to wall-clock time, which the shared machine's load moves.

``--first`` (issue 36): the first document of a new judging session on a ``cal
--from collection`` pool of Vaswani (11,429 documents x 93 topics = 1.06M candidate
rows, budget 100), each in a fresh process (imports included), as ``relkit judge``
opens a topic: open the store, the assessor's topics, ``next_item``. The store is built
once with the CLI (a BM25 run 100 deep, ``init``, ``pool``, ``assign``; about 2 minutes)
unless ``--db`` names one built so; ``--peer`` alternates each run with another
checkout's installed-shape tree (``.ci/srctree.py``) on ``PYTHONPATH``: before/after in
one session, medians, the load average printed with each.
"""

from __future__ import annotations

import argparse
import os
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from relkit.pooling.adaptive import AdaptivePool  # noqa: E402
from relkit.pooling.cal import strategy as calmod  # noqa: E402
from relkit.pooling.cal.texts import TextSource  # noqa: E402
from relkit.pooling.candidates import Candidates  # noqa: E402


def _timed_retrain() -> list[tuple[float, float]]:
    """Wrap Cal._retrain to record (wall, cpu) per call."""
    out: list[tuple[float, float]] = []
    orig = calmod.Cal._retrain

    def wrapped(self, judged):  # type: ignore[no-untyped-def]
        w, c = time.perf_counter(), time.process_time()
        orig(self, judged)
        out.append((time.perf_counter() - w, time.process_time() - c))

    calmod.Cal._retrain = wrapped  # type: ignore[method-assign]
    return out


def measure(label: str, src: TextSource, topics: list[str], grade, judgments: int) -> None:  # type: ignore[no-untyped-def]
    w, c = time.perf_counter(), time.process_time()
    src.features("auto")
    print(f"{label}: {len(src.docs):,} documents; features built in "
          f"{time.perf_counter() - w:.2f} s wall, {time.process_time() - c:.2f} s CPU (once)")
    base = Candidates({t: {"r": [next(iter(src.docs))]} for t in topics},
                      {t: {"r": [1.0]} for t in topics}, None, text=src)
    cands = calmod.with_collection(base, src.docs)
    times = _timed_retrain()
    for t in topics:
        pool = AdaptivePool("cal", cands, {"from": "collection"})
        pool.run(t, lambda d, t=t: grade(t, d), judgments)
    late = times[len(times) // 2:]
    for what, xs in (("all retrainings", times), ("second half (most labels)", late)):
        ws, cs = sorted(x[0] for x in xs), sorted(x[1] for x in xs)
        print(f"  {what}: n={len(xs)}, wall p50 {statistics.median(ws):.3f} s, "
              f"p95 {ws[int(0.95 * (len(ws) - 1))]:.3f} s, max {ws[-1]:.3f} s; "
              f"CPU p50 {statistics.median(cs):.3f} s, max {cs[-1]:.3f} s")


def synthetic(n: int, seed: int = 0) -> TextSource:
    """``n`` documents of 60-200 words from a Zipf-like vocabulary of 50,000 words."""
    rng = random.Random(seed)
    vocab = [f"w{i}" for i in range(50_000)]
    weights = [1 / (i + 1) for i in range(len(vocab))]
    docs = {}
    for i in range(n):
        docs[f"d{i}"] = " ".join(rng.choices(vocab, weights, k=rng.randint(60, 200)))
    topics = {f"t{k}": f"w{100 + k} w{2000 + k} w{9000 + k}" for k in range(3)}
    return TextSource(docs, topics)


FIRST = """
import json, sys, time
t0, c0 = time.perf_counter(), time.process_time()
from relkit.judging.store.assign import Store
view = Store.open(sys.argv[1]).assessor("ann")
topic = view.topics()[0].key
t1 = time.perf_counter()
item = view.next_item(topic)
print(json.dumps(dict(doc=item.doc, first=time.perf_counter() - t1,
                      total=time.perf_counter() - t0, cpu=time.process_time() - c0)))
"""


def build_first(tmp: Path) -> Path:
    """The Vaswani cal pool of docs/pooling.md, built with the CLI."""
    import subprocess

    v = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "vaswani"
    relkit = str(Path(sys.executable).with_name("relkit"))
    db = tmp / "p.db"
    docs, topics = str(v / "corpus" / "doc-text.trec"), str(v / "query-text.trec")
    for cmd in (["systems", "run", "--docs", docs, "--topics", topics, "-s", "bm25", "-k",
                 "100", "-o", str(tmp / "bm25.txt")],
                ["init", "--topics", topics, "--docs", docs, "--scale", "binary", "--db",
                 str(db)],
                ["pool", str(tmp / "bm25.txt"), "--strategy", "cal", "--from", "collection",
                 "--budget", "100", "--db", str(db)],
                ["assign", "ann", "--db", str(db)]):
        subprocess.run([relkit, *cmd], check=True, capture_output=True)
    return db


def first(db: Path, peer: str | None, rounds: int) -> None:
    import json
    import shutil
    import subprocess
    import tempfile

    trees = [("this tree", None)] + ([("peer", peer)] if peer else [])
    got: dict[str, list[dict[str, float]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for label, path in (trees if r % 2 == 0 else trees[::-1]):
                copy = Path(tmp) / "s.db"
                shutil.copy(db, copy)   # a new session on an untouched pool each time
                env = dict(os.environ)
                if path:
                    env["PYTHONPATH"] = path
                load = os.getloadavg()[0]
                out = subprocess.run([sys.executable, "-c", FIRST, str(copy)], env=env,
                                     check=True, capture_output=True, text=True).stdout
                row = json.loads(out.splitlines()[-1])
                row["load"] = load
                got.setdefault(label, []).append(row)
                print(f"  {label}: first document {row['doc']} in {row['first']:.2f} s "
                      f"(process {row['total']:.2f} s wall, {row['cpu']:.2f} s CPU; load "
                      f"{load:.1f})", flush=True)
    for label, rows in got.items():
        med = {k: statistics.median(x[k] for x in rows) for k in ("first", "total", "cpu")}
        print(f"{label}: median first document {med['first']:.2f} s, process "
              f"{med['total']:.2f} s wall, {med['cpu']:.2f} s CPU over {len(rows)} runs")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--first", action="store_true",
                    help="time a session's first document on a Vaswani cal pool")
    ap.add_argument("--db", type=Path, help="--first: a store built as described")
    ap.add_argument("--peer", help="--first: another tree to alternate with (PYTHONPATH)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--synthetic", type=int, default=100_000)
    ap.add_argument("--judgments", type=int, default=300)
    ap.add_argument("--skip-vaswani", action="store_true")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
    if a.first:
        import tempfile

        with tempfile.TemporaryDirectory() as tmp:
            first(a.db or build_first(Path(tmp)), a.peer, a.rounds)
        return
    if not a.skip_vaswani:
        from cal_corpora import qrels, texts
        from relkit.pooling.simulate import grades_of

        g = grades_of(qrels("vaswani"))
        measure("vaswani", texts("vaswani"), ["1", "2", "3"],
                lambda t, d: g[t].get(d, 0), a.judgments)
    src = synthetic(a.synthetic)

    def grade(t: str, d: str) -> int:
        words = set(src.docs[d].split())
        return int(all(w in words for w in src.topics[t].split()[:2]))

    measure(f"synthetic {a.synthetic:,}", src, sorted(src.topics), grade, a.judgments)


if __name__ == "__main__":
    main()
