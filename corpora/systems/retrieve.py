"""Topics in, a TREC run out: query text, scoring, the depth cut and the ranking order.

Ranking order is :mod:`relkit.metrics.ranking`'s (trec_eval's): score descending, then
docno descending. The run is put through that module, so the order in the file,
the ranks written and the order ``relkit eval`` sees are the same by construction.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, get_args

import numpy as np

from relkit.corpora.systems import Scorer, System, get
from relkit.corpora.systems.errors import SystemsError
from relkit.corpora.systems.index import Index
from relkit.corpora.types import Topic
from relkit.metrics.core.registry import did_you_mean
from relkit.metrics.data import Run

QueryField = Literal["title", "desc", "title+desc"]
QUERY_FIELDS: tuple[str, ...] = get_args(QueryField)


def query_text(topic: Topic, field: str = "title") -> str:
    """The text searched for ``topic``.

    ``title`` falls back on the description when a topic has no title (as
    :attr:`Topic.query` does); ``desc`` on the title; ``title+desc`` joins both.
    """
    if field == "title":
        return topic.title or topic.description or ""
    if field == "desc":
        return topic.description or topic.title or ""
    if field == "title+desc":
        return " ".join(x for x in (topic.title, topic.description) if x)
    raise SystemsError(f"unknown query field {field!r}{did_you_mean(field, QUERY_FIELDS)} "
                       f"(known: {', '.join(QUERY_FIELDS)})")


@dataclass(frozen=True)
class Retrieval:
    """A run, and the topics that got no documents (no query term in the collection)."""

    run: Run
    empty: list[str]


def top_k(scores: np.ndarray, k: int) -> np.ndarray:
    """Positions of the ``k`` best scores *and* every score tied with the k-th.

    Which of the tied documents survive the cut is then decided by the ranking
    module's docno rule, not by ``argpartition``'s arbitrary choice.
    """
    if len(scores) <= k:
        return np.arange(len(scores))
    kth = np.partition(scores, len(scores) - k)[len(scores) - k]
    return np.flatnonzero(scores >= kth)


def retrieve(index: Index, system: str | System, topics: Sequence[Topic], *,
             params: Mapping[str, Any] | None = None, depth: int = 1000,
             tag: str | None = None, field: str = "title",
             progress: Callable[[int], None] | None = None) -> Retrieval:
    """Search every topic with ``system`` and return the run (``depth`` documents each).

    Parameters
    ----------
    params
        The system's parameters (``{"k1": 1.2}``, values or ``name=value`` text);
        checked against its spec.
    tag
        The run tag (last column); default the system's name.
    field
        Which topic text to search: ``title``, ``desc`` or ``title+desc``.
    progress
        Called with the number of topics searched so far.
    """
    sys_ = get(system) if isinstance(system, str) else system
    if depth < 1:
        raise SystemsError(f"the depth must be an int >= 1; got {depth}")
    tag = sys_.name if tag is None else tag
    if not tag or any(c.isspace() for c in tag):
        raise SystemsError(f"a run tag must be one word without spaces; got {tag!r}")
    query_text(Topic("x"), field)  # an unknown field fails before any work
    scorer: Scorer = sys_.prepare(index, params)
    q_parts: list[np.ndarray] = []
    d_parts: list[np.ndarray] = []
    s_parts: list[np.ndarray] = []
    empty: list[str] = []
    names: list[str] = []
    for n, topic in enumerate(topics, 1):
        terms, counts = index.query(query_text(topic, field))
        docs, scores = scorer.score(terms, counts) if len(terms) else (np.empty(0), np.empty(0))
        if not np.all(np.isfinite(scores)):
            raise SystemsError(f"{sys_.name} gave topic {topic.id} a score that is not a "
                               f"finite number (parameters {dict(params or {})})")
        if len(docs) == 0:
            empty.append(topic.id)
        else:
            keep = top_k(scores, depth)
            q_parts.append(np.full(len(keep), len(names), dtype=np.int32))
            d_parts.append(docs[keep].astype(np.int64))
            s_parts.append(scores[keep].astype(np.float64))
            names.append(topic.id)
        if progress is not None:
            progress(n)
    return Retrieval(_ranked_run(index, names, q_parts, d_parts, s_parts, depth, tag), empty)


def _ranked_run(index: Index, names: list[str], q_parts: list[np.ndarray],
                d_parts: list[np.ndarray], s_parts: list[np.ndarray], depth: int,
                tag: str) -> Run:
    import pyarrow as pa

    from relkit.metrics.data import Qrels
    from relkit.metrics.ranking import JudgedTopics, rank

    q = np.concatenate(q_parts) if q_parts else np.empty(0, np.int32)
    d = np.concatenate(d_parts) if d_parts else np.empty(0, np.int64)
    s = np.concatenate(s_parts) if s_parts else np.empty(0, np.float64)
    topic_col = pa.array(names, pa.string()).take(pa.array(q))
    doc_col = pa.array(index.doc_ids, pa.string()).take(pa.array(d))
    candidates = Run(pa.table({
        "query_id": topic_col, "iteration": pa.array(["Q0"] * len(q), pa.string()),
        "doc_id": doc_col, "rank": pa.array(["0"] * len(q), pa.string()),
        "score": pa.array(s, pa.float64()), "run_id": pa.array([tag] * len(q), pa.string()),
    }), "<candidates>")
    # Each topic once, no documents: rank() only needs to know the topics.
    topics_only = Qrels(pa.table({
        "query_id": pa.array(names, pa.string()), "iteration": pa.array(["0"] * len(names)),
        "doc_id": pa.array([""] * len(names), pa.string()),
        "relevance": pa.array([0] * len(names), pa.int64())}), "<topics>")
    ranked = rank(candidates, JudgedTopics.prepare(topics_only), max_docs=depth)
    rows = pa.array(ranked.rows)
    per_topic = np.diff(ranked.offsets)
    ranks = np.arange(len(ranked.rows)) - np.repeat(ranked.offsets[:-1], per_topic) + 1
    table = candidates.table.take(rows)
    table = table.set_column(3, "rank", pa.array(ranks.astype(str).tolist(), pa.string()))
    return Run(table, f"<{tag}>")
