"""Cranfield and Vaswani as the cal strategy reads them (texts, qrels, runs), cached.

Shared by tests/test_pooling_cal*.py and bench/cal_sim.py. Vaswani has no runs of
its own: three baseline systems (BM25, QL, TF-IDF; relkit.corpora.systems) make
them, 100 deep. Cranfield's grades are the collection's mapping (1..4 relevant, -1 not).
"""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

from relkit.corpora.collection import open_collection
from relkit.metrics.data import Qrels, Run
from relkit.pooling.cal.texts import TextSource

CORPORA = Path(__file__).resolve().parents[2] / "shared" / "corpora"
LAYOUTS = {"cranfield": CORPORA / "cranfield", "vaswani": CORPORA / "vaswani"}


def _text(title: str | None, rest: str | None) -> str:
    return " ".join(x for x in (title, rest) if x)


@lru_cache(maxsize=2)
def texts(name: str) -> TextSource:
    c = open_collection(LAYOUTS[name], layout=name)
    docs = {d.id: _text(d.title, d.text) for d in c.iter_docs()}
    topics = {t.id: _text(t.title, t.description) for t in c.read_topics()}
    return TextSource(docs, topics)


@lru_cache(maxsize=2)
def qrels(name: str) -> Qrels:
    return open_collection(LAYOUTS[name], layout=name).read_qrels()


@lru_cache(maxsize=2)
def runs(name: str) -> dict[str, Run]:
    c = open_collection(LAYOUTS[name], layout=name)
    if name == "cranfield":
        return c.read_runs()
    from relkit.corpora.systems.index import Index
    from relkit.corpora.systems.retrieve import retrieve

    index = Index.build(c.iter_docs())
    topics = c.read_topics()
    return {s: retrieve(index, s, topics, depth=100).run for s in ("bm25", "ql", "tfidf")}
