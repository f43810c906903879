"""Baseline systems benchmark: index and search Cranfield and Vaswani with each system.

    .venv/bin/python bench/systems_bench.py
    .venv/bin/python bench/systems_bench.py --collections cranfield --repeat 3

For each collection: the time to read and index the documents once (shared
analyzer: lower case, word tokens, English stop words, Porter stems), then per
system the time to prepare its weights and search every topic to depth 1000, and
the run's MAP against the collection's qrels. BM25 is also run through the raw
libraries on the same analysed tokens, and the ratio printed:

* bm25s: ``BM25(method="lucene").index(tokens)`` + ``retrieve(queries, k=1000)``
  (its own top-k; float32 as it defaults);
* rank_bm25 (when installed): ``BM25Okapi(tokens).get_scores(q)`` + argsort per query.

Needs ``../shared/corpora/{cranfield,vaswani}`` beside the checkout.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from relkit.corpora.loaders import read_docs, read_topics  # noqa: E402
from relkit.corpora.systems import names  # noqa: E402
from relkit.corpora.systems.analyzer import Analyzer  # noqa: E402
from relkit.corpora.systems.index import Index, document_text  # noqa: E402
from relkit.corpora.systems.retrieve import query_text, retrieve  # noqa: E402
from relkit.metrics.data import Qrels  # noqa: E402
from relkit.metrics.evaluator import Evaluator  # noqa: E402

CORPORA = ROOT.parent / "shared" / "corpora"
COLLECTIONS = {
    "cranfield": (CORPORA / "cranfield" / "cran.all.1400", "smart-docs",
                  CORPORA / "cranfield" / "cran.qry", "smart-topics",
                  CORPORA / "cranfield" / "cranqrel"),
    "vaswani": (CORPORA / "vaswani" / "corpus" / "doc-text.trec", "trec-docs",
                CORPORA / "vaswani" / "query-text.trec", "trec-topics",
                CORPORA / "vaswani" / "qrels"),
}


def timed(fn: Callable[[], object], repeat: int) -> tuple[float, object]:
    times, out = [], None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times), out


def bench(name: str, repeat: int, depth: int) -> None:
    docs_path, dfmt, topics_path, tfmt, qrels_path = COLLECTIONS[name]
    if not docs_path.is_file():
        print(f"{name}: not found at {docs_path}; skipped")
        return
    analyzer = Analyzer()
    Analyzer()("warm up")  # stop list and stemmer loaded once, outside the timings
    topics = read_topics(topics_path, tfmt)
    ev = Evaluator(Qrels.read(qrels_path), ["AP"])
    t_index, index = timed(lambda: Index.build(read_docs(docs_path, dfmt), analyzer), repeat)
    assert isinstance(index, Index)
    print(f"\n{name}: {index.num_docs:,} documents, {len(index.vocab):,} terms, "
          f"{len(topics)} topics; read + analyse + index {t_index:.2f} s")
    print(f"{'system':<22}{'weights+search (s)':>12}{'MAP':>9}")
    ours: dict[str, float] = {}
    for system in names():
        t, result = timed(lambda s=system: retrieve(index, s, topics, depth=depth), repeat)
        m = float(ev.aggregate(result.run)["AP"])  # type: ignore[attr-defined]
        ours[system] = t
        print(f"{system:<22}{t:>12.3f}{m:>9.4f}")

    # The raw libraries on the same analysed tokens (analysis is not timed for them).
    tokens = [analyzer(document_text(d)) for d in read_docs(docs_path, dfmt)]
    queries = [[t for t in analyzer(query_text(q)) if t in index.vocab] for q in topics]
    import bm25s

    def raw_bm25s() -> object:
        model = bm25s.BM25(k1=1.2, b=0.75, method="lucene")
        model.index(tokens, show_progress=False)
        return model.retrieve([q or [""] for q in queries], k=min(depth, len(tokens)),
                              show_progress=False, n_threads=1)

    t_raw, _ = timed(raw_bm25s, repeat)
    print(f"{'bm25s raw (idx+search)':<22}{t_raw:>12.3f}{'':>9}   relkit bm25 / bm25s = "
          f"{ours['bm25'] / t_raw:.2f}x (relkit's includes writing a ranked Run)")
    try:
        import rank_bm25
    except ImportError:
        print("rank_bm25 not installed; skipped")
        return

    def raw_rank_bm25() -> object:
        model = rank_bm25.BM25Okapi(tokens, k1=1.2, b=0.75)
        return [np.argsort(-model.get_scores(q))[:depth] for q in queries]

    t_rank, _ = timed(raw_rank_bm25, 1)
    print(f"{'rank_bm25 (idx+search)':<22}{t_rank:>12.3f}{'':>9}   rank_bm25 / relkit bm25 = "
          f"{t_rank / ours['bm25']:.1f}x")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--collections", default="cranfield,vaswani")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--depth", type=int, default=1000)
    args = ap.parse_args()
    for name in args.collections.split(","):
        bench(name.strip(), args.repeat, args.depth)


if __name__ == "__main__":
    main()
