"""Ranking order: the one place that decides it.

trec_eval's rules (``form_res_rels.c``), applied to every evaluation:

* rows are sorted by score descending; ties are broken by docno **descending**
  in byte order (``"b"`` ranks above ``"a"``); the rank column is ignored;
* in ``--compat 9`` scores are first rounded to single precision (trec_eval
  9.0.8 and pytrec_eval store them as C ``float``), so near-equal scores tie;
* ``-M m`` keeps the top ``m`` documents of each topic **after** sorting;
* a docno twice within the kept documents of a topic is an error (below the
  ``-M`` cut it is never seen, as in trec_eval);
* with ``-J`` documents that are not judged (not in the qrels, or judged with a
  negative grade) are removed after the cut, and ranks close up.

Relevance per ranked row: the qrels grade, ``-1`` for a document not in the
qrels ("nonpool"), ``-2`` for a negative qrels grade ("unjudged in pool").
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from metrics.data import Qrels, Run
from metrics.errors import DuplicateDocumentError

NONPOOL = -1
UNJUDGED = -2


def topic_order(ids: list[str]) -> list[str]:
    """Sort topic ids as trec_eval does (``strcmp``: ``q1 < q10 < q2``).

    Python compares ``str`` by code point, which is the byte order of UTF-8.
    """
    return sorted(set(ids))


def _dictionary_codes(column: pa.ChunkedArray, mapping: dict[str, int]) -> np.ndarray:
    """Map each value of a string column to ``mapping[value]`` (or -1)."""
    parts = []
    for chunk in column.chunks:
        if not pa.types.is_dictionary(chunk.type):
            chunk = chunk.dictionary_encode()
        lookup = np.array([mapping.get(v, -1) for v in chunk.dictionary.to_pylist()] + [-1],
                          dtype=np.int32)
        idx = chunk.indices.to_numpy(zero_copy_only=False)
        parts.append(lookup[idx] if len(lookup) > 1 else np.full(len(idx), -1, np.int32))
    if not parts:
        return np.empty(0, np.int32)
    return np.concatenate(parts)


def column_values(column: pa.ChunkedArray) -> list[str]:
    """Distinct values of a (dictionary) string column, first-seen order not kept."""
    seen: set[str] = set()
    for chunk in column.chunks:
        dictionary = chunk.dictionary if pa.types.is_dictionary(chunk.type) else pc.unique(chunk)
        seen.update(dictionary.to_pylist())
    return list(seen)


def _first_duplicate(q: np.ndarray, docs: pa.Array | pa.ChunkedArray) -> tuple[int, int] | None:
    """Positions ``(first, second)`` of one repeated ``(q, doc)`` pair, or None."""
    if len(q) < 2:
        return None
    table = pa.table({"q": q, "d": docs})
    order = pc.sort_indices(table, sort_keys=[("q", "ascending"), ("d", "ascending")]).to_numpy()
    qs = q[order]
    ds = pc.take(docs, pa.array(order))
    same = pc.and_(pc.equal(pa.array(qs[1:]), pa.array(qs[:-1])),
                   pc.equal(ds[1:], ds[:-1]))
    hits = np.flatnonzero(same.to_numpy(zero_copy_only=False))
    if len(hits) == 0:
        return None
    a, b = int(order[hits[0]]), int(order[hits[0] + 1])
    return min(a, b), max(a, b)


@dataclass(frozen=True)
class JudgedTopics:
    """Qrels prepared once for many runs (trec_eval's per-topic REL_INFO)."""

    qrels: Qrels
    topics: list[str]            # strcmp order
    index: dict[str, int]
    table: pa.Table              # q (int32 topic code), d (doc id), rel (int64)
    levels: np.ndarray           # T x (max_level + 1) counts of non-negative grades

    @classmethod
    def prepare(cls, qrels: Qrels) -> JudgedTopics:
        src = qrels.arrow()
        topics = topic_order(column_values(src["query_id"]))
        index = {t: i for i, t in enumerate(topics)}
        q = _dictionary_codes(src["query_id"], index)
        docs = src["doc_id"]
        if pa.types.is_dictionary(docs.type):
            docs = docs.cast(pa.string())
        dup = _first_duplicate(q, docs)
        if dup is not None:
            row = dup[1]
            raise DuplicateDocumentError(qrels.source, qrels.line_of(row), topics[q[row]],
                                         str(docs[row]))
        rel = src["relevance"].to_numpy()
        rel = np.asarray(rel, dtype=np.int64)
        top = int(rel.max()) if len(rel) and rel.max() > 0 else 0
        ok = rel >= 0
        levels = np.zeros((len(topics), top + 1), dtype=np.int64)
        np.add.at(levels, (q[ok], rel[ok]), 1)
        table = pa.table({"q": q, "d": docs, "rel": rel})
        return cls(qrels, topics, index, table, levels)

    def num_rel(self, level: int) -> np.ndarray:
        """Per topic: qrels documents with grade >= ``level`` (negatives never count)."""
        lo = max(level, 0)
        return self.levels[:, lo:].sum(axis=1)


@dataclass(frozen=True)
class Ranked:
    """A run in trec_eval order, restricted to the evaluated topics.

    Rows of topic ``t`` are ``offsets[t]:offsets[t+1]`` of ``rel`` (and of
    ``docs``). ``missing[t]`` is True for a qrels topic absent from the run
    (evaluated only with ``-c``: zero documents).
    """

    topics: list[str]
    topic_codes: np.ndarray      # index of each evaluated topic in JudgedTopics.topics
    offsets: np.ndarray
    rel: np.ndarray
    docs: pa.Array
    missing: np.ndarray
    run_id: str

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)


def rank(
    run: Run,
    judged: JudgedTopics,
    *,
    float32_scores: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
) -> Ranked:
    """Put ``run`` into trec_eval order and look up each document's grade.

    Parameters
    ----------
    float32_scores
        Round scores to single precision first (trec_eval 9.0.8, pytrec_eval).
    max_docs
        ``-M``: keep the top ``max_docs`` of each topic after sorting.
    judged_only
        ``-J``: drop documents without a non-negative grade after the cut.
    complete
        ``-c``: evaluate every qrels topic; those missing from the run get an
        empty ranking. Otherwise only topics in both are evaluated.
    """
    src = run.arrow()
    q_all = _dictionary_codes(src["query_id"], judged.index)
    keep = np.flatnonzero(q_all >= 0)
    docs_all = src["doc_id"]
    if pa.types.is_dictionary(docs_all.type):
        docs_all = docs_all.cast(pa.string())
    scores = src["score"].to_numpy()
    if float32_scores:
        scores = scores.astype(np.float32).astype(np.float64)
    if len(keep) != len(q_all):
        take = pa.array(keep)
        q, s, d = q_all[keep], scores[keep], pc.take(docs_all, take)
    else:
        q, s, d = q_all, scores, docs_all
    order = pc.sort_indices(
        pa.table({"q": q, "s": s, "d": d}),
        sort_keys=[("q", "ascending"), ("s", "descending"), ("d", "descending")],
    ).to_numpy()
    q = q[order]
    rows = keep[order]                      # original frame row of each ranked row
    T = len(judged.topics)
    counts = np.bincount(q, minlength=T)
    starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
    if max_docs is not None:
        pos = np.arange(len(q)) - starts[q]
        cut = np.flatnonzero(pos < max_docs)
        q, rows = q[cut], rows[cut]
        counts = np.minimum(counts, max_docs)
    docs = pc.take(docs_all, pa.array(rows)) if len(rows) else pa.array([], pa.string())
    if isinstance(docs, pa.ChunkedArray):
        docs = docs.combine_chunks()
    dup = _first_duplicate(q, docs)
    if dup is not None:
        row = int(rows[dup[1]])
        raise DuplicateDocumentError(run.source, run.line_of(row), judged.topics[q[dup[1]]],
                                     str(docs[dup[1]]))
    rel = np.full(len(q), NONPOOL, dtype=np.int64)
    if len(q):
        joined = pa.table({"q": q, "d": docs, "i": np.arange(len(q))}).join(
            judged.table, keys=["q", "d"], join_type="inner")
        grades = joined["rel"].to_numpy()
        rel[joined["i"].to_numpy()] = np.where(grades < 0, UNJUDGED, grades)
    if judged_only:
        ok = rel >= 0
        q, rel = q[ok], rel[ok]
        docs = docs.filter(pa.array(ok))
        counts = np.bincount(q, minlength=T)
    present = counts > 0
    if complete:
        evaluated = np.arange(T)
    else:
        evaluated = np.flatnonzero(np.bincount(q_all[q_all >= 0], minlength=T) > 0)
    sel_counts = counts[evaluated]
    offsets = np.concatenate(([0], np.cumsum(sel_counts))).astype(np.int64)
    # Rows are already grouped by topic in topic order; topics absent from
    # `evaluated` have no rows (a run topic exists only if it had rows).
    missing = ~np.bincount(q_all[q_all >= 0], minlength=T).astype(bool)[evaluated]
    del present
    return Ranked(
        topics=[judged.topics[i] for i in evaluated],
        topic_codes=evaluated,
        offsets=offsets,
        rel=rel,
        docs=docs,
        missing=missing,
        run_id=run.name,
    )


def ranked_docnos(run: Run, *, float32_scores: bool = False,
                  max_docs: int | None = None) -> dict[str, list[str]]:
    """Each topic's docnos in trec_eval order (for the prefs and jg modes).

    Topics are keyed by id; every run topic is included. Duplicates within the
    kept depth raise :class:`DuplicateDocumentError`.
    """
    src = run.arrow()
    topics = topic_order(column_values(src["query_id"]))
    fake = Qrels(pa.table({"query_id": pa.array(topics, pa.string()),
                           "doc_id": pa.array([""] * len(topics), pa.string()),
                           "relevance": pa.array([0] * len(topics), pa.int64())}))
    judged = JudgedTopics.prepare(fake)
    ranked = rank(run, judged, float32_scores=float32_scores, max_docs=max_docs)
    docs = ranked.docs.to_pylist()
    return {t: docs[ranked.offsets[i]:ranked.offsets[i + 1]]
            for i, t in enumerate(ranked.topics)}
