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

The order is decided here; the qrels' side (:class:`~relkit.metrics.judged.JudgedTopics`,
the grade lookup), the hashed (topic, docno) pairs (:mod:`relkit.metrics.pairs`) and
the id columns' two forms (:mod:`relkit.metrics.id_columns`) have their own modules,
and their names that callers use are importable from here too (``__all__``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

import numpy as np

from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import DuplicateDocumentError
from relkit.metrics.id_columns import (
    Strings,
    _take,
    _value,
    codes_of,
    column_values,
    distinct,
    id_strings,
    topic_order,
)
from relkit.metrics.judged import MAX_LEVEL_CELLS, NONPOOL, UNJUDGED, JudgedTopics
from relkit.metrics.pairs import (
    _first_duplicate,
)
from relkit.metrics.readers import io as _io
from relkit.metrics.readers._arrow import loaded, to_np
from relkit.metrics.readers.grades import is_judged

if TYPE_CHECKING:
    import pyarrow as pa

__all__ = [
    "MAX_LEVEL_CELLS", "NONPOOL", "UNJUDGED", "JudgedTopics", "Ranked", "Strings", "TieOrder",
    "byte_words", "codes_of", "column_values", "distinct", "rank", "ranked_docnos",
    "row_order", "topic_order",
]
# Not pair_hash: tests swap in a colliding hash on relkit.metrics.pairs, where every
# lookup finds it; a copy here would take such a swap silently and change nothing.

TieOrder = Literal["descending", "ascending"]


def _sort_in_groups(docs: Strings, group: np.ndarray, ties: TieOrder) -> np.ndarray:
    """Positions of ``docs`` sorted by ``group`` ascending, then docno ``ties``
    (byte order), equal docnos of a group kept in input order."""
    if isinstance(docs, np.ndarray) and loaded() is None:
        # Byte order is the order of the docnos' bytes read as big-endian 64-bit
        # words (zero padding sorts first, as a shorter prefix does); inverting
        # every word reverses it. lexsort is stable, like Arrow's sort (which a
        # large input, pyarrow loaded, uses: many ties sort faster there).
        words = byte_words(docs)
        if ties == "descending":
            words = ~words
        return np.lexsort([*(words[:, j] for j in reversed(range(words.shape[1]))), group])
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(docs, np.ndarray):
        docs = pa.array(docs, pa.binary(docs.dtype.itemsize))   # compared byte by byte
    return to_np(pc.sort_indices(pa.table({"g": group, "d": docs}),
                                 sort_keys=[("g", "ascending"), ("d", ties)]))


def byte_words(values: np.ndarray) -> np.ndarray:
    """A bytes array as rows of big-endian 64-bit words (zero padded)."""
    width = values.dtype.itemsize
    grid = values.view(np.uint8).reshape(len(values), width)
    if width % 8:
        grid = np.concatenate((grid, np.zeros((len(values), 8 - width % 8), np.uint8)), axis=1)
    return np.ascontiguousarray(grid).view(">u8").astype(np.uint64)


class Ranked:
    """A run in trec_eval order, restricted to the evaluated topics.

    Rows of topic ``t`` are ``offsets[t]:offsets[t+1]`` of ``rel``.
    ``missing[t]`` is True for a qrels topic absent from the run (evaluated
    only with ``-c``: zero documents). ``rows`` is the source row of each ranked
    row, ``source_docs`` the run's docno column. (A plain class for the same
    reason as :class:`JudgedTopics`.)
    """

    def __init__(self, *, topics: list[str], topic_codes: np.ndarray, offsets: np.ndarray,
                 rel: np.ndarray, missing: np.ndarray, run_id: str, source_docs: Strings,
                 rows: np.ndarray) -> None:
        self.topics = topics
        self.topic_codes = topic_codes   # index of each evaluated topic in JudgedTopics.topics
        self.offsets = offsets
        self.rel = rel
        self.missing = missing
        self.run_id = run_id
        self.source_docs = source_docs
        self.rows = rows

    def __repr__(self) -> str:
        return f"Ranked({len(self.topics)} topics, {len(self.rel)} rows, run {self.run_id!r})"

    @property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def docs(self) -> pa.Array:
        """Docnos in ranked order, as an Arrow array (built on demand: a copy of
        every string)."""
        import pyarrow as pa

        if isinstance(self.source_docs, np.ndarray):
            return pa.array(self.doc_list(), pa.string())
        docs = _take(self.source_docs, self.rows)
        return docs.combine_chunks() if isinstance(docs, pa.ChunkedArray) else docs

    def doc_list(self) -> list[str]:
        """Docnos in ranked order, as a list."""
        if isinstance(self.source_docs, np.ndarray):
            return _io.decode(self.source_docs[self.rows])
        docs: list[str] = self.docs.to_pylist()
        return docs


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
    if not distinct(seg_q):
        return None                                  # a topic split in two blocks
    seg_len = np.diff(np.concatenate((seg_start, [n])))
    perm = np.argsort(seg_q, kind="stable")
    lens = seg_len[perm]
    new_start = np.concatenate(([0], np.cumsum(lens)[:-1]))
    moved: np.ndarray = np.arange(n) - np.repeat(new_start, lens) + np.repeat(seg_start[perm], lens)
    return moved


def row_order(q: np.ndarray, s: np.ndarray, d: Strings,
           ties: TieOrder = "descending") -> np.ndarray:
    """Row order: topic code ascending, score descending, docno ``ties`` (bytes)."""
    order = _presorted_order(q, s)
    if order is None:
        # stable: rows of equal (topic, score) stay in input order until the docno
        # sort below; -s orders -0.0 and 0.0 as equal, as C's comparison does
        order = np.lexsort((-s, q))
    qs, ss = q[order], s[order]
    tie = (qs[1:] == qs[:-1]) & (ss[1:] == ss[:-1])
    if not tie.any():
        return order
    member = np.zeros(len(order), bool)
    member[:-1] |= tie
    member[1:] |= tie
    pos = np.flatnonzero(member)
    group = np.cumsum(np.concatenate(([True], ~tie[pos[:-1]])))
    sub = _sort_in_groups(_take(d, order[pos]), group, ties)
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
    q_all = codes_of(run.column("query_id"), judged.index) if codes is None else codes
    docs_all = id_strings(run.column("doc_id"))
    scores = np.asarray(to_np(run.column("score")), dtype=np.float64)
    if float32_scores:
        scores = scores.astype(np.float32).astype(np.float64)
    keep = np.flatnonzero(q_all >= 0)
    if len(keep) != len(q_all):
        rows = keep[row_order(q_all[keep], scores[keep], _take(docs_all, keep), ties)]
    else:
        rows = row_order(q_all, scores, docs_all, ties)
    q = q_all[rows]
    T = len(judged.topics)
    counts = np.bincount(q, minlength=T)
    if max_docs is not None:
        starts = np.concatenate(([0], np.cumsum(counts)[:-1]))
        cut = np.flatnonzero(np.arange(len(q)) - starts[q] < max_docs)
        q, rows = q[cut], rows[cut]
        counts = np.minimum(counts, max_docs)
    if isinstance(docs_all, np.ndarray):
        # fixed-width bytes: look up and check the ranked rows (grouped by topic)
        rel, dup = judged.grades_and_duplicate(q, docs_all[rows], rows)
        if dup is not None:
            raise DuplicateDocumentError(run.source, run.line_of(dup[1]),
                                         judged.topics[q_all[dup[1]]], _value(docs_all, dup[1]))
    else:
        # Arrow strings (ids too long for bytes): duplicate check and grade lookup
        # work in input order on the kept rows, so strings are not copied around
        kept = np.sort(rows) if max_docs is not None or len(keep) != len(q_all) else None
        rel = _grades(run, judged, q_all, docs_all, kept)[rows]
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


def _grades(run: Run, judged: JudgedTopics, q_all: np.ndarray, docs_all: Strings,
            kept: np.ndarray | None) -> np.ndarray:
    """Per source row of an Arrow string column: qrels grade, NONPOOL or UNJUDGED;
    duplicates raise."""
    if kept is None:
        q, d, idx = q_all, docs_all, np.arange(len(q_all), dtype=np.int32)
    else:
        q, idx = q_all[kept], kept
        d = _take(docs_all, kept)
    grades = np.full(len(q_all), NONPOOL, dtype=np.int64)
    # The duplicate check is a single-threaded Arrow sort; run it on the second
    # core while the hash join runs here.
    from concurrent.futures import ThreadPoolExecutor

    import pyarrow as pa

    from relkit.metrics.readers._arrow import import_acero

    import_acero()

    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(_first_duplicate, q, d)
        if len(q):
            # use_threads=False: the join runs in this thread, start to end. With
            # Arrow's thread pool a worker could still hold the last batches
            # (numpy-backed) after join() returned and release them during
            # interpreter shutdown, which aborts the process (SIGABRT). On two
            # cores the serial join is no slower.
            joined = pa.table({"q": q, "d": d, "i": idx}).join(
                judged.for_topics(q), keys=["q", "d"], join_type="inner",
                use_threads=False)
            g = to_np(joined["rel"])
            grades[to_np(joined["i"])] = np.where(is_judged(g), g, UNJUDGED)
            del joined
        dup = pending.result()
    if dup is not None:
        row = int(idx[dup[1]])
        raise DuplicateDocumentError(run.source, run.line_of(row), judged.topics[q[dup[1]]],
                                     _value(d, dup[1]))
    return grades


def ranked_docnos(run: Run, *, float32_scores: bool = False, max_docs: int | None = None,
                  ties: TieOrder = "descending") -> dict[str, list[str]]:
    """Each topic's docnos in trec_eval order (for the prefs and jg modes).

    Topics are keyed by id; every run topic is included. Duplicates within the
    kept depth raise :class:`DuplicateDocumentError`.
    """
    topics = topic_order(column_values(run.column("query_id")))
    fake = Qrels({"query_id": topics, "doc_id": [""] * len(topics),
                  "relevance": np.zeros(len(topics), dtype=np.int64)})   # lists: any form
    judged = JudgedTopics.prepare(fake)
    ranked = rank(run, judged, float32_scores=float32_scores, max_docs=max_docs, ties=ties)
    docs = ranked.doc_list()
    return {t: docs[ranked.offsets[i]:ranked.offsets[i + 1]]
            for i, t in enumerate(ranked.topics)}
