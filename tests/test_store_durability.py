"""No judgment is ever lost: SIGKILL at random moments, and 8 concurrent writers."""

from __future__ import annotations

import random
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store

# Both tests run writer processes for seconds (kills, retries): not in `make check`.
pytestmark = pytest.mark.slow

WORKER = Path(__file__).with_name("store_worker.py")


def _project(url: str, assessors: list[str], topics: int, docs: int, overlap: float) -> Store:
    store = Store.open(url)
    store.create_collection("c", TREC_DL, [Topic(f"{t}") for t in range(1, topics + 1)],
                            [Document(f"doc{d:03d}", None, f"text {d}") for d in range(docs)])
    store.import_pool([(f"{t}", f"doc{d:03d}") for t in range(1, topics + 1)
                       for d in range(docs)], name="p")
    store.assign(assessors, overlap=overlap, seed=0)
    return store


def _spawn(url: str, who: str, seed: int, rounds: int) -> subprocess.Popen[str]:
    return subprocess.Popen([sys.executable, str(WORKER), url, who, str(seed), str(rounds)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


Key = tuple[str, str, str]  # assessor, topic, doc


def _current(store: Store) -> dict[Key, tuple[int, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT a.name, t.key, d.key, j.grade, j.version FROM judgment j"
            " JOIN assessor a ON a.id = j.assessor_id"
            " JOIN topic t ON t.id = j.topic_id JOIN document d ON d.id = j.document_id"))
        return {(a, t, d): (g, v) for a, t, d, g, v in rows}


def _history(store: Store) -> Counter[tuple[str, str, str, int, int]]:
    with store.engine.connect() as conn:
        rows = conn.execute(text(
            "SELECT a.name, t.key, d.key, h.grade, h.version FROM judgment_history h"
            " JOIN assessor a ON a.id = h.assessor_id"
            " JOIN topic t ON t.id = h.topic_id JOIN document d ON d.id = h.document_id"))
        return Counter((a, t, d, g, v) for a, t, d, g, v in rows)


KILLS = {"sqlite": 12, "postgresql": 5}


def test_sigkill_never_loses_an_acknowledged_judgment(db_url: str, tmp_path: Path) -> None:
    backend = "sqlite" if "://" not in db_url else "postgresql"
    rng = random.Random(7)
    store = _project(db_url, ["ann"], topics=2, docs=40, overlap=0.0)
    store.close()
    acked: list[tuple[str, str, str, int, int]] = []
    for round_ in range(KILLS[backend]):
        log = tmp_path / f"acks{round_}.txt"
        with open(log, "w") as out:
            # The worker's acks go to a file: flushed lines are in the kernel's page
            # cache, so SIGKILL cannot take back an acknowledgement once written.
            proc = subprocess.Popen([sys.executable, str(WORKER), db_url, "ann", str(round_),
                                     "50"], stdout=out, stderr=subprocess.PIPE, text=True)
        start = time.monotonic()
        while not log.read_text().startswith("ready"):
            assert proc.poll() is None, proc.stderr.read()  # type: ignore[union-attr]
            assert time.monotonic() - start < 60, "the worker did not start"
            time.sleep(0.01)
        time.sleep(rng.uniform(0.05, 0.6))
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # Only complete lines are acknowledgements: a torn last line was never seen.
        for line in log.read_text().split("\n")[1:-1]:
            _, a, t, d, g, v = line.split()
            acked.append((a, t, d, int(g), int(v)))
        store = Store.open(db_url)
        history = _history(store)
        current = _current(store)
        for a, t, d, g, v in acked:
            assert history[(a, t, d, g, v)] == 1, f"acknowledged {t}/{d} v{v} lost"
            assert current[(a, t, d)][1] >= v
        # The current row is the newest history entry: no half-applied write.
        newest: dict[Key, tuple[int, int]] = {}
        for (a, t, d, g, v) in history:
            if v >= newest.get((a, t, d), (0, 0))[1]:
                newest[(a, t, d)] = (g, v)
        assert newest == current
        if backend == "sqlite":
            with store.engine.connect() as conn:
                assert conn.execute(text("PRAGMA integrity_check")).scalar() == "ok"
        store.close()
    assert len(acked) > KILLS[backend] * 5, "the writer never got going"


def test_eight_concurrent_writers(db_url: str) -> None:
    # 4 assessors x 2 processes each: every assessor's judgments are written by two
    # processes at once (conflicting edits of the same judgment), and overlap gives
    # pairs to two assessors (concurrent writes to the same topic and document).
    names = ["a1", "a2", "a3", "a4"]
    store = _project(db_url, names, topics=4, docs=30, overlap=1.0)
    store.close()
    procs = [_spawn(db_url, names[k % 4], 100 + k, rounds=2) for k in range(8)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (_out, err) in zip(procs, outs, strict=True):
        assert p.returncode == 0, err[-2000:]
    store = Store.open(db_url)
    acks: Counter[tuple[str, str, str, int, int]] = Counter()
    for out, _ in outs:
        for line in out.splitlines()[1:]:
            _, a, t, d, g, v = line.split()
            acks[(a, t, d, int(g), int(v))] += 1
    history = _history(store)
    # Every acknowledged write is in the history exactly once, and nothing else is.
    assert acks == history
    assert max(acks.values()) == 1, "two writes got the same version: a lost update"
    # Per judgment, versions run 1..n with no gap, n = number of writes to it.
    with store.engine.connect() as conn:
        per = conn.execute(text(
            "SELECT judgment_id, COUNT(*), MIN(version), MAX(version) FROM judgment_history"
            " GROUP BY judgment_id")).all()
        cur = dict(conn.execute(text("SELECT id, version FROM judgment")).all())
        dup = conn.execute(text(
            "SELECT COUNT(*) FROM (SELECT assessor_id, topic_id, document_id FROM judgment"
            " GROUP BY assessor_id, topic_id, document_id HAVING COUNT(*) > 1) x")).scalar()
    assert dup == 0
    for jid, n, lo, hi in per:
        assert (lo, hi) == (1, n) and cur[jid] == n
    assert sum(n for _, n, _, _ in per) == sum(acks.values())

