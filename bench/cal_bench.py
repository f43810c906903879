"""How long cal takes to retrain after a batch (issue 36: <= 0.5 s on Vaswani's 11,429
documents, <= 2 s on a 100,000-document synthetic collection).

    .venv/bin/python bench/cal_bench.py
    .venv/bin/python bench/cal_bench.py --synthetic 100000 --skip-vaswani

A retraining is what the policy does when a batch is fully judged
(:meth:`relkit.pooling.cal.strategy.Cal._retrain`): draw the random non-relevant
sample, fit the logistic regression on the judgments so far, score every candidate,
take the next batch. It is timed after each of a topic's batches while a simulated
assessor judges (Vaswani: its qrels; synthetic: documents holding the topic's
words are relevant), cal:from=collection, until ``--judgments`` are judged; the
features (tf-idf fit, once per collection) are timed apart. CPU time (process) is
printed next to wall-clock time, which the shared machine's load moves.
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


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--synthetic", type=int, default=100_000)
    ap.add_argument("--judgments", type=int, default=300)
    ap.add_argument("--skip-vaswani", action="store_true")
    a = ap.parse_args()
    print(f"load average {os.getloadavg()[0]:.1f}, {os.cpu_count()} CPUs")
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
