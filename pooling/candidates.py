"""What every strategy starts from: each run's ranked documents per topic.

Runs are put in trec_eval's order once, here, by :func:`relkit.metrics.ranking.rank`
(score descending, then docno descending; the rank column is ignored), and cut
at an optional depth. Strategies never sort runs themselves.

Documented behaviour for awkward runs:

* a rank column that disagrees with the scores: the scores decide (as in
  trec_eval); :func:`rank_disagreements` counts such topics so the CLI can warn;
* a document twice in one topic of a run: :class:`DuplicateDocumentError`
  naming the run file and line (trec_eval refuses such runs too);
* a run shorter than the depth contributes what it has;
* topic ids are strings, compared as strings (``"007"`` is not ``"7"``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np
import pyarrow as pa

from relkit.metrics.convert import named_runs
from relkit.metrics.data import Qrels, Run
from relkit.metrics.ranking import (
    JudgedTopics,
    Ranked,
    codes_of,
    column_values,
    distinct,
    rank,
    topic_order,
)
from relkit.metrics.readers._arrow import to_np
from relkit.pooling.errors import PoolingError
from relkit.pooling.pool import natural


def ranked_lists(run: Run, depth: int | None) -> Ranked:
    """Every topic of ``run`` in trec_eval order, top ``depth`` kept (duplicates raise).

    ``rows`` of the result are positions in ``run`` and ``source_docs`` its docno
    column, as :func:`relkit.metrics.ranking.rank` gives them.
    """
    topics, codes = _topic_codes(run.column("query_id"))
    judged = _all_topics(tuple(topics))
    if codes is None:
        codes = codes_of(run.column("query_id"), judged.index)
    head = None if depth is None else _head_rows(codes, run, depth)
    if head is None:
        return rank(run, judged, max_docs=depth, codes=codes)
    # Only the rows that can reach the top ``depth`` are ranked in full (docnos
    # converted, ties sorted, duplicates checked): ~10x fewer at depth 100 of 1,000.
    sub = rank(_subrun(run, head), judged, max_docs=depth, codes=codes[head])
    return Ranked(topics=sub.topics, topic_codes=sub.topic_codes, offsets=sub.offsets,
                  rel=sub.rel, missing=sub.missing, run_id=sub.run_id,
                  source_docs=run.column("doc_id"), rows=head[sub.rows])


@lru_cache(maxsize=8)
def _all_topics(topics: tuple[str, ...]) -> JudgedTopics:
    """Empty qrels over ``topics``, prepared for :func:`rank` (which then ranks every
    topic): once per topic set, not once per run (runs of a pool share their topics)."""
    # Columns as the small-input reader gives them (fixed-width UTF-8 bytes): building
    # Arrow arrays from lists here imported pandas (~0.3 s of `relkit pool`).
    n = len(topics)
    fake = Qrels({"query_id": np.array([t.encode("utf-8", "surrogateescape") for t in topics],
                                       dtype=bytes),
                  "doc_id": np.array([b""] * n, dtype=bytes),
                  "relevance": np.zeros(n, dtype=np.int64)})
    return JudgedTopics.prepare(fake)


def _topic_codes(column: object) -> tuple[list[str], np.ndarray | None]:
    """The distinct topics in trec_eval order, and (for an Arrow column) each row's
    index among them: one dictionary encoding, where ``column_values`` and
    ``codes_of`` would hash every row twice."""
    if not isinstance(column, pa.ChunkedArray) or pa.types.is_dictionary(column.type):
        # numpy bytes, or a dictionary column (whose dictionary may hold unused values)
        return topic_order(column_values(column)), None
    chunks = [c.dictionary_encode() for c in column.chunks]
    values = [c.dictionary.to_pylist() for c in chunks]
    topics = topic_order([v for vs in values for v in vs])
    index = {t: i for i, t in enumerate(topics)}
    parts = [np.array([index[v] for v in vs], dtype=np.int32)[to_np(c.indices)]
             for vs, c in zip(values, chunks, strict=True) if len(c)]
    return topics, (np.concatenate(parts) if parts else np.empty(0, np.int32))


def _head_rows(codes: np.ndarray, run: Run, depth: int) -> np.ndarray | None:
    """Rows (ascending) that can be in a topic's top ``depth`` in trec_eval order:
    those scoring above the topic's ``depth``-th highest score, and every row tied
    with it (the docno decides among those). None when that is every row, or the
    run is not in a form this applies to (then :func:`rank` sees the whole run).

    Exact: trec_eval's order restricted to these rows is its order on the whole
    run, and its top ``depth`` lies within them, so ranking them alone cuts the
    same documents (and finds the same duplicates: those above the cut).
    """
    docs = run.column("doc_id")
    if isinstance(docs, list) or not len(codes):
        return None
    s = np.asarray(to_np(run.column("score")), dtype=np.float64)
    if np.isnan(s).any():
        return None
    change = codes[1:] != codes[:-1]
    heads = np.flatnonzero(np.concatenate(([True], change)))
    if not np.any(~change & (s[1:] > s[:-1])) and distinct(codes[heads]):
        # As systems write runs (each topic one stretch of non-increasing scores): the
        # rows at or above each stretch's depth-th score, found in place, no sort.
        sizes = np.diff(np.append(heads, len(codes)))
        if sizes.max() <= depth:
            return None
        keep = s >= np.repeat(s[heads + np.minimum(sizes, depth) - 1], sizes)
        return None if keep.all() else np.flatnonzero(keep)
    order = np.lexsort((-s, codes))          # as ranking.row_order: topic, score descending
    q = codes[order]
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    sizes = np.diff(np.append(starts, len(q)))
    if sizes.max() <= depth:
        return None
    # The depth-th score of each topic (its last score when it has fewer rows).
    kth = s[order[starts + np.minimum(sizes, depth) - 1]]
    keep = s[order] >= np.repeat(kth, sizes)
    if keep.all():
        return None
    return np.sort(order[keep])


def _subrun(run: Run, rows: np.ndarray) -> Run:
    """``run``'s ``rows`` (ascending positions) as a run: its source lines kept, so a
    duplicate found there names the file's line. Arrow's take from a buffer, not
    ``pa.array`` (whose first numpy conversion imports pandas)."""
    if isinstance(run.column("doc_id"), np.ndarray):
        return run.rows(rows)                   # the small-input form: numpy all through
    lines = run.lines[rows] if run.lines is not None else rows.astype(np.int64) + 1
    idx = np.ascontiguousarray(rows, dtype=np.int64)
    positions = pa.Array.from_buffers(pa.int64(), len(idx), [None, pa.py_buffer(idx)])
    # Only what rank() reads (the caller passes the topic codes): the take copies every
    # string of the columns it keeps.
    table = run.arrow().select(["doc_id", "score"]).take(positions)
    return Run(table, run.source, lines, run.name)   # the whole run's id (its last line)


def _ranked(run: Run, depth: int | None) -> dict[str, tuple[list[str], list[float]]]:
    """``{topic: (docs, scores)}`` in trec_eval order, top ``depth`` kept."""
    src = run.arrow()
    ranked = ranked_lists(run, depth)
    docs = ranked.docs.to_pylist()
    scores = np.asarray(src["score"].to_numpy(), dtype=np.float64)[ranked.rows].tolist()
    off = ranked.offsets
    return {t: (docs[off[i]:off[i + 1]], scores[off[i]:off[i + 1]])
            for i, t in enumerate(ranked.topics)}


def rank_disagreements(run: Run) -> list[str]:
    """Topics where the rank column contradicts the scores (trec_eval ignores it).

    A contradiction is a document ranked above another with a strictly lower
    score. Ties ordered differently from trec_eval's docno rule are not: the
    rank column cannot say how trec_eval breaks ties.
    """
    if "rank" not in run.columns:
        return []
    # Vectorised (one sort over the run): the row-by-row check cost more than the
    # pool itself on 100 runs x 50,000 lines (bench/pool_bench.py).
    try:
        ranks = _numpy(run.column("rank"), np.int64)
    except (ValueError, OverflowError, TypeError, pa.ArrowInvalid):
        return _rank_disagreements_rows(run)   # a non-numeric rank: row by row
    scores = _numpy(run.column("score"), np.float64)
    topics = run.column("query_id")
    if isinstance(topics, np.ndarray):
        uniq, codes = np.unique(topics, return_inverse=True)
    else:
        enc = pa.chunked_array(topics).combine_chunks().dictionary_encode()
        uniq = np.asarray(enc.dictionary.to_pylist(), dtype=object)
        codes = to_np(enc.indices)
    # Runs are written topic by topic in rank order: then file order is the order
    # wanted and the sort is skipped (its stable result would be the identity).
    step = np.diff(codes.astype(np.int64))
    if np.all((step > 0) | ((step == 0) & (ranks[1:] >= ranks[:-1]))):
        c, x = codes, scores
    else:
        order = np.lexsort((ranks, codes))   # stable: equal ranks keep file order
        c, x = codes[order], scores[order]
    up = (c[1:] == c[:-1]) & (x[1:] > x[:-1])
    bad = [_text(t) for t in uniq[np.unique(c[1:][up])]]
    return sorted(bad, key=natural)


def _numpy(column: object, dtype: type) -> np.ndarray:
    """A column as read (numpy for small inputs, else Arrow) as a numpy array of ``dtype``."""
    if isinstance(column, np.ndarray):
        return column.astype(dtype)
    import pyarrow.compute as pc

    # to_np: a view on the buffer; Arrow's to_numpy imports pandas (~0.3 s) to probe for it.
    return to_np(pc.cast(column, pa.from_numpy_dtype(dtype)))


def _text(value: object) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


def _rank_disagreements_rows(run: Run) -> list[str]:
    """:func:`rank_disagreements` row by row, skipping rows whose rank is not a number."""
    frame = run.arrow()
    rows: dict[str, list[tuple[int, float]]] = {}
    for t, k, x in zip(frame["query_id"].to_pylist(), frame["rank"].to_pylist(),
                       frame["score"].to_pylist(), strict=True):
        try:
            rows.setdefault(t, []).append((int(k), float(x)))
        except ValueError:
            continue        # a non-numeric rank column carries no order to check
    bad = []
    for t, pairs in rows.items():
        scores = [x for _, x in sorted(pairs, key=lambda p: p[0])]
        if any(b > a for a, b in zip(scores, scores[1:], strict=False)):
            bad.append(t)
    return sorted(bad, key=natural)


@dataclass(frozen=True)
class Candidates:
    """Each run's ranked list per topic, cut at ``depth`` (None: the whole run).

    ``lists[topic][run] = [doc, ...]`` best first; ``scores`` alike. Topics
    are in natural order; runs in name order.
    """

    lists: dict[str, dict[str, list[str]]]
    scores: dict[str, dict[str, list[float]]] = field(repr=False)
    depth: int | None = None
    # The documents' and topics' text, for strategies that read it (cal:
    # relkit.pooling.cal.texts.TextSource); None for those that look at ranks only.
    text: Any = field(default=None, repr=False, compare=False)

    @classmethod
    def from_runs(cls, runs: Mapping[str, Run], depth: int | Mapping[str, int] | None = None,
                  topics: Sequence[str] | None = None) -> Candidates:
        runs = named_runs(runs)     # a path, frame, dict of dicts... per run
        if not runs:
            raise PoolingError("pooling needs at least one run")
        depths = (dict.fromkeys(runs, depth) if depth is None or isinstance(depth, int)
                  else dict(depth))
        missing = set(runs) - set(depths)
        if missing:
            raise PoolingError(f"no depth given for runs {sorted(missing)}")
        for name, k in depths.items():
            if k is not None and (isinstance(k, bool) or not isinstance(k, int) or k < 1):
                raise PoolingError(f"The 'depth' parameter of pooling must be an int >= 1; "
                                   f"got {k!r} for run {name!r}")
        wanted = set(topics) if topics is not None else None
        lists: dict[str, dict[str, list[str]]] = {}
        scores: dict[str, dict[str, list[float]]] = {}
        for name in sorted(runs):
            for t, (docs, sc) in _ranked(runs[name], depths[name]).items():
                if wanted is not None and t not in wanted:
                    continue
                lists.setdefault(t, {})[name] = docs
                scores.setdefault(t, {})[name] = sc
        order = sorted(lists, key=natural)
        lists = {t: lists[t] for t in order}
        scores = {t: scores[t] for t in order}
        one = depth if isinstance(depth, int) else None
        return cls(lists, scores, one)

    @property
    def topics(self) -> list[str]:
        return list(self.lists)

    @property
    def runs(self) -> list[str]:
        return sorted({r for per in self.lists.values() for r in per})

    def provenance(self, topic: str) -> dict[str, list[tuple[str, int]]]:
        """``{doc: [(run, rank), ...]}`` for one topic (runs in name order)."""
        out: dict[str, list[tuple[str, int]]] = {}
        for run, docs in self.lists[topic].items():
            for k, d in enumerate(docs, 1):
                out.setdefault(d, []).append((run, k))
        return out

    def matrix(self, topic: str) -> TopicMatrix:
        """The topic as a docs x runs rank matrix (for the adaptive strategies)."""
        runs = sorted(self.lists[topic])
        docs = sorted({d for r in runs for d in self.lists[topic][r]})
        index = {d: i for i, d in enumerate(docs)}
        ranks = np.zeros((len(docs), len(runs)), dtype=np.int64)
        order = []
        for j, r in enumerate(runs):
            idx = np.array([index[d] for d in self.lists[topic][r]], dtype=np.int64)
            ranks[idx, j] = np.arange(1, len(idx) + 1)
            order.append(idx)
        return TopicMatrix(topic, docs, index, runs, ranks, order, self.text)


@dataclass(frozen=True, eq=False)
class TopicMatrix:
    """One topic's candidates: ``ranks[i, j]`` is doc i's rank in run j (0: absent);
    ``order[j]`` lists run j's doc indices best first. Docs are in docno order."""

    topic: str
    docs: list[str]
    index: dict[str, int]
    runs: list[str]
    ranks: np.ndarray
    order: list[np.ndarray]
    text: Any = None
