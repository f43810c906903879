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

from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from functools import cached_property
from typing import Literal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from relkit.metrics._arrow import to_np, true_positions
from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import DuplicateDocumentError

TieOrder = Literal["descending", "ascending"]

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
        idx = to_np(chunk.indices)
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
    order = to_np(pc.sort_indices(table, sort_keys=[("q", "ascending"), ("d", "ascending")]))
    qs = q[order]
    ds = pc.take(docs, pa.array(order))
    same = pc.and_(pc.equal(pa.array(qs[1:]), pa.array(qs[:-1])),
                   pc.equal(ds[1:], ds[:-1]))
    hits = true_positions(same)
    if len(hits) == 0:
        return None
    a, b = int(order[hits[0]]), int(order[hits[0] + 1])
    return min(a, b), max(a, b)


@dataclass(frozen=True, eq=False)
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
        rel = to_np(src["relevance"])
        rel = np.asarray(rel, dtype=np.int64)
        top = int(rel.max()) if len(rel) and rel.max() > 0 else 0
        ok = rel >= 0
        levels = np.zeros((len(topics), top + 1), dtype=np.int64)
        np.add.at(levels, (q[ok], rel[ok]), 1)
        table = pa.table({"q": q, "d": docs, "rel": rel})
        return cls(qrels, topics, index, table, levels)

    @cached_property
    def _by_topic(self) -> tuple[np.ndarray, np.ndarray]:
        """Row order grouping the qrels by topic, and each topic's offsets."""
        q = to_np(self.table["q"])
        order = np.argsort(q, kind="stable")
        offsets = np.concatenate(([0], np.cumsum(np.bincount(q, minlength=len(self.topics)))))
        return order, offsets

    def for_topics(self, codes: np.ndarray) -> pa.Table:
        """The judgments of the topics ``codes`` only (what a chunk joins against)."""
        codes = np.unique(codes[codes >= 0])
        if len(codes) == len(self.topics):
            return self.table
        order, offsets = self._by_topic
        lens = offsets[codes + 1] - offsets[codes]
        start = np.repeat(offsets[codes] - np.concatenate(([0], np.cumsum(lens)[:-1])), lens)
        rows = order[start + np.arange(int(lens.sum()))]
        return self.table.take(pa.array(rows))

    def num_rel(self, level: int) -> np.ndarray:
        """Per topic: qrels documents with grade >= ``level`` (negatives never count)."""
        lo = max(level, 0)
        return self.levels[:, lo:].sum(axis=1)


@dataclass(frozen=True)
class Ranked:
    """A run in trec_eval order, restricted to the evaluated topics.

    Rows of topic ``t`` are ``offsets[t]:offsets[t+1]`` of ``rel``.
    ``missing[t]`` is True for a qrels topic absent from the run (evaluated
    only with ``-c``: zero documents).
    """

    topics: list[str]
    topic_codes: np.ndarray      # index of each evaluated topic in JudgedTopics.topics
    offsets: np.ndarray
    rel: np.ndarray
    missing: np.ndarray
    run_id: str
    source_docs: pa.ChunkedArray | pa.Array = field(repr=False)
    rows: np.ndarray = field(repr=False)   # source row of each ranked row

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def docs(self) -> pa.Array:
        """Docnos in ranked order (built on demand: a copy of every string)."""
        docs = pc.take(self.source_docs, pa.array(self.rows))
        return docs.combine_chunks() if isinstance(docs, pa.ChunkedArray) else docs


def _presorted_order(q: np.ndarray, s: np.ndarray) -> np.ndarray | None:
    """Order by (topic, score desc) without a full sort, when each topic's rows
    are contiguous and already by non-increasing score (as systems write runs).
    Returns None otherwise. Ties are left in input order (fixed by the caller)."""
    n = len(q)
    if n == 0:
        return np.empty(0, np.int64)
    change = q[1:] != q[:-1]
    if np.any(~change & (s[1:] > s[:-1])):
        return None
    seg_start = np.concatenate(([0], np.flatnonzero(change) + 1))
    seg_q = q[seg_start]
    if len(np.unique(seg_q)) != len(seg_q):
        return None                                  # a topic split in two blocks
    seg_len = np.diff(np.concatenate((seg_start, [n])))
    perm = np.argsort(seg_q, kind="stable")
    lens = seg_len[perm]
    new_start = np.concatenate(([0], np.cumsum(lens)[:-1]))
    return np.arange(n) - np.repeat(new_start, lens) + np.repeat(seg_start[perm], lens)


def _order(q: np.ndarray, s: np.ndarray, d: pa.ChunkedArray | pa.Array,
           ties: TieOrder = "descending") -> np.ndarray:
    """Row order: topic code ascending, score descending, docno ``ties`` (bytes)."""
    order = _presorted_order(q, s)
    if order is None:
        return to_np(pc.sort_indices(
            pa.table({"q": q, "s": s, "d": d}),
            sort_keys=[("q", "ascending"), ("s", "descending"), ("d", ties)],
        ))
    qs, ss = q[order], s[order]
    tie = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not tie.any():
        return order
    member = np.zeros(len(order), bool)
    member[:-1] |= tie
    member[1:] |= tie
    pos = np.flatnonzero(member)
    group = np.cumsum(np.concatenate(([True], ~tie[pos[:-1]])))
    sub = to_np(pc.sort_indices(
        pa.table({"g": group, "d": pc.take(d, pa.array(order[pos]))}),
        sort_keys=[("g", "ascending"), ("d", ties)],
    ))
    order = order.copy()
    order[pos] = order[pos][sub]
    return order


def rank(
    run: Run,
    judged: JudgedTopics,
    *,
    float32_scores: bool = False,
    max_docs: int | None = None,
    judged_only: bool = False,
    complete: bool = False,
    codes: np.ndarray | None = None,
    ties: TieOrder = "descending",
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
    codes
        Each row's topic index in ``judged`` (-1: not judged), when the caller
        has computed it already.
    ties
        Docno order within equal scores: ``"descending"`` everywhere in
        trec_eval except its preference modes, which sort ``"ascending"``.
    """
    src = run.arrow()
    q_all = _dictionary_codes(src["query_id"], judged.index) if codes is None else codes
    docs_all = src["doc_id"]
    if pa.types.is_dictionary(docs_all.type):
        docs_all = docs_all.cast(pa.string())
    scores = np.asarray(to_np(src["score"]), dtype=np.float64)
    if float32_scores:
        scores = scores.astype(np.float32).astype(np.float64)
    keep = np.flatnonzero(q_all >= 0)
    if len(keep) != len(q_all):
        d_keep = pc.take(docs_all, pa.array(keep))
        rows = keep[_order(q_all[keep], scores[keep], d_keep, ties)]
    else:
        rows = _order(q_all, scores, docs_all, ties)
    q = q_all[rows]
    T = len(judged.topics)
    counts = np.bincount(q, minlength=T)
    if max_docs is not None:
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        cut = np.flatnonzero(np.arange(len(q)) - starts[q] < max_docs)
        q, rows = q[cut], rows[cut]
        counts = np.minimum(counts, max_docs)
    # Duplicate check and grade lookup work in input order on the kept rows,
    # so the docno strings are never copied into ranked order.
    kept = np.sort(rows) if max_docs is not None or len(keep) != len(q_all) else None
    grades = _grades(run, judged, q_all, docs_all, kept)
    rel = grades[rows]
    del grades
    if judged_only:
        ok = rel >= 0
        q, rel, rows = q[ok], rel[ok], rows[ok]
        counts = np.bincount(q, minlength=T)
    in_run = np.bincount(q_all[q_all >= 0], minlength=T) > 0
    evaluated = np.arange(T) if complete else np.flatnonzero(in_run)
    offsets = np.concatenate(([0], np.cumsum(counts[evaluated]))).astype(np.int64)
    # Rows are grouped by topic in topic order, and a topic outside `evaluated`
    # has no rows, so the selection needs no reindexing.
    return Ranked(
        topics=[judged.topics[i] for i in evaluated],
        topic_codes=evaluated,
        offsets=offsets,
        rel=rel,
        missing=~in_run[evaluated],
        run_id=run.name,
        source_docs=docs_all,
        rows=rows,
    )


def _grades(run: Run, judged: JudgedTopics, q_all: np.ndarray,
            docs_all: pa.ChunkedArray | pa.Array, kept: np.ndarray | None) -> np.ndarray:
    """Per source row: qrels grade, NONPOOL or UNJUDGED; duplicates raise."""
    if kept is None:
        q, d, idx = q_all, docs_all, np.arange(len(q_all), dtype=np.int32)
    else:
        q, idx = q_all[kept], kept
        d = pc.take(docs_all, pa.array(kept))
    # The duplicate check is a single-threaded Arrow sort; run it on the second
    # core while the (multi-threaded, GIL-free) hash join runs here.
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(_first_duplicate, q, d)
        grades = np.full(len(q_all), NONPOOL, dtype=np.int64)
        if len(q):
            joined = pa.table({"q": q, "d": d, "i": idx}).join(
                judged.for_topics(q), keys=["q", "d"], join_type="inner")
            g = to_np(joined["rel"])
            grades[to_np(joined["i"])] = np.where(g < 0, UNJUDGED, g)
            del joined
        dup = pending.result()
    if dup is not None:
        row = int(idx[dup[1]])
        raise DuplicateDocumentError(run.source, run.line_of(row), judged.topics[q[dup[1]]],
                                     str(d[dup[1]]))
    return grades


def ranked_docnos(run: Run, *, float32_scores: bool = False, max_docs: int | None = None,
                  ties: TieOrder = "descending") -> dict[str, list[str]]:
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
    ranked = rank(run, judged, float32_scores=float32_scores, max_docs=max_docs, ties=ties)
    docs = ranked.docs.to_pylist()
    return {t: docs[ranked.offsets[i]:ranked.offsets[i + 1]]
            for i, t in enumerate(ranked.topics)}
