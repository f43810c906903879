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

from functools import cached_property
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from relkit.metrics import io as _io
from relkit.metrics._arrow import loaded, to_np, true_positions
from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import DuplicateDocumentError, EvaluationError, FormatError
from relkit.metrics.grades import is_judged

if TYPE_CHECKING:
    import pyarrow as pa

TieOrder = Literal["descending", "ascending"]

# Codes of a ranked row, not qrels grades: outside the qrels, and in it without a
# judgment (a grade that is not one by the rule of relkit.metrics.grades).
NONPOOL = -1
UNJUDGED = -2

# A string column as read: fixed-width bytes (a numpy ``S`` array: small inputs,
# no pyarrow) or an Arrow (chunked) array. The ranking rules below are written once;
# only the handful of operations on strings (encode, take, sort within groups, find
# a repeated pair, look up grades) have one implementation per form, in the helpers
# that follow.
Strings = Any

# Cap on the topics x grades table of counts (8 bytes each: 256 MiB).
MAX_LEVEL_CELLS = 2**25


def topic_order(ids: list[str]) -> list[str]:
    """Sort topic ids as trec_eval does (``strcmp``: ``q1 < q10 < q2``).

    Python compares ``str`` by code point, which is the byte order of UTF-8.
    """
    return sorted(set(ids))


def distinct(values: np.ndarray) -> bool:
    """Whether no value repeats (a sort, not ``np.unique``, which imports numpy.ma)."""
    s = np.sort(values)
    return not bool(np.any(s[1:] == s[:-1]))


def _strings(column: Strings) -> Strings:
    """A column in the form ranking works on: fixed-width bytes. An Arrow column
    is converted (a chunk of a large run at a time), a list of str encoded; only
    ids bytes cannot hold (longer than :data:`~relkit.metrics.io.MAX_ID_BYTES`, or
    with a NUL byte) stay Arrow strings."""
    if isinstance(column, np.ndarray):
        return column
    if isinstance(column, list):
        as_b = _io.as_bytes(column)
        if as_b is not None:
            return as_b
        from relkit.metrics._arrow import import_pyarrow

        arrow = import_pyarrow()
        return arrow.chunked_array([arrow.array(column, type=arrow.string())])
    import pyarrow as pa

    from relkit.metrics._arrow import to_bytes

    as_b = to_bytes(column, _io.MAX_ID_BYTES)
    if as_b is not None:
        return as_b
    return column.cast(pa.string()) if pa.types.is_dictionary(column.type) else column


def _value(column: Strings, row: int) -> str:
    """One value of a column, as str."""
    v = column[row]
    return v.decode() if isinstance(v, bytes) else str(v)


def _runs(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and length of each run of equal consecutive values."""
    if not len(column):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    heads = np.concatenate(([0], np.flatnonzero(column[1:] != column[:-1]) + 1))
    return heads, np.diff(np.append(heads, len(column)))


def codes_of(column: Strings, mapping: dict[str, int]) -> np.ndarray:
    """Map each value of a string column to ``mapping[value]`` (or -1)."""
    if isinstance(column, list):
        column = _strings(column)
    if isinstance(column, np.ndarray):
        if not len(column):
            return np.empty(0, np.int32)
        # topics come in runs of lines: look up one value per run
        heads, lengths = _runs(column)
        get = mapping.get
        vals = np.array([get(v, -1) for v in _io.decode(column[heads])], dtype=np.int32)
        return np.repeat(vals, lengths)
    import pyarrow as pa

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


_dictionary_codes = codes_of   # the former name


def column_values(column: Strings) -> list[str]:
    """Distinct values of a (dictionary) string column, first-seen order not kept."""
    if isinstance(column, (np.ndarray, list)):
        column = _strings(column)
    if isinstance(column, np.ndarray):
        return list(set(_io.decode(column[_runs(column)[0]])))
    import pyarrow as pa
    import pyarrow.compute as pc

    seen: set[str] = set()
    for chunk in column.chunks:
        dictionary = chunk.dictionary if pa.types.is_dictionary(chunk.type) else pc.unique(chunk)
        seen.update(dictionary.to_pylist())
    return list(seen)


def _take(column: Strings, rows: np.ndarray) -> Strings:
    """The values at positions ``rows``."""
    if isinstance(column, np.ndarray):
        return column[rows]
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.take(column, pa.array(rows))


def _sort_in_groups(docs: Strings, group: np.ndarray, ties: TieOrder) -> np.ndarray:
    """Positions of ``docs`` sorted by ``group`` ascending, then docno ``ties``
    (byte order), equal docnos of a group kept in input order."""
    if isinstance(docs, np.ndarray) and loaded() is None:
        # Byte order is the order of the docnos' bytes read as big-endian 64-bit
        # words (zero padding sorts first, as a shorter prefix does); inverting
        # every word reverses it. lexsort is stable, like Arrow's sort (which a
        # large input, pyarrow loaded, uses: many ties sort faster there).
        words = _words(docs)
        if ties == "descending":
            words = ~words
        return np.lexsort([*(words[:, j] for j in reversed(range(words.shape[1]))), group])
    import pyarrow as pa
    import pyarrow.compute as pc

    if isinstance(docs, np.ndarray):
        docs = pa.array(docs, pa.binary(docs.dtype.itemsize))   # compared byte by byte
    return to_np(pc.sort_indices(pa.table({"g": group, "d": docs}),
                                 sort_keys=[("g", "ascending"), ("d", ties)]))


def _words(values: np.ndarray) -> np.ndarray:
    """A bytes array as rows of big-endian 64-bit words (zero padded)."""
    width = values.dtype.itemsize
    grid = values.view(np.uint8).reshape(len(values), width)
    if width % 8:
        grid = np.concatenate((grid, np.zeros((len(values), 8 - width % 8), np.uint8)), axis=1)
    return np.ascontiguousarray(grid).view(">u8").astype(np.uint64)


_MIX = np.uint64(0x9E3779B97F4A7C15)


def _hash(values: np.ndarray, q: np.ndarray) -> np.ndarray:
    """A 63-bit hash of each ``(q, value)`` of a bytes array (equal pairs, equal
    hashes; unequal ones may collide, so matches are checked afterwards)."""
    width = values.dtype.itemsize
    grid = values.view(np.uint8).reshape(len(values), width)
    if width % 8:
        grid = np.concatenate((grid, np.zeros((len(values), 8 - width % 8), np.uint8)), axis=1)
    words = np.ascontiguousarray(grid).view(np.uint64)
    h = q.astype(np.uint64) * _MIX
    for j in range(words.shape[1]):
        h ^= words[:, j]
        h *= _MIX
        h ^= h >> np.uint64(29)
    return h >> np.uint64(1)           # 63 bits: _PAD sorts after every hash


_PAD = np.uint64(np.iinfo(np.uint64).max)


def _topic_keys(q: np.ndarray, h: np.ndarray, topics: int) -> np.ndarray:
    """One sortable 64-bit key per ``(q, hash)``: the topic code in the high bits,
    the hash's high bits below (order by topic, then by hash)."""
    bits = max(int(topics).bit_length(), 1)
    return (q.astype(np.uint64) << np.uint64(64 - bits)) | (h >> np.uint64(bits))


def _same_width(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Two bytes arrays with one itemsize (hashes depend on it)."""
    w = max(a.dtype.itemsize, b.dtype.itemsize)
    return a.astype(f"S{w}", copy=False), b.astype(f"S{w}", copy=False)


def _repeated_pair(q: np.ndarray, docs: np.ndarray, order: np.ndarray, hs: np.ndarray,
                   source: np.ndarray | None = None) -> tuple[int, int] | None:
    """:func:`_first_duplicate` for bytes, given the pairs' hashes in an order
    where equal ones are neighbours (``hs``) and that order (``order``).
    ``source`` maps positions to the input rows whose order decides which two
    occurrences are reported (default: the positions themselves), and the pair
    is returned as such rows."""
    same = hs[1:] == hs[:-1]
    if not same.any():
        return None
    # rows whose hash repeats hold every repeated pair: settle those exactly
    member = np.zeros(len(hs), bool)
    member[:-1] |= same
    member[1:] |= same
    at = order[member]
    src = at if source is None else source[at]
    first: dict[tuple[int, bytes], int] = {}
    pairs = []
    for r, i in sorted(zip(src.tolist(), at.tolist(), strict=True)):
        key = (int(q[i]), bytes(docs[i]))
        if key not in first:
            first[key] = r
        elif first[key] >= 0:
            pairs.append((key, first[key], r))
            first[key] = -1                          # only its first two occurrences
    if not pairs:
        return None
    _, a, b = min(pairs)
    return a, b


def _grouped_order(h: np.ndarray, q: np.ndarray) -> np.ndarray | None:
    """An order sorting the rows by ``(q, h)``, when each topic's rows are one
    contiguous block (ranked rows; most qrels files); None otherwise.

    Sorting each topic's row of a topics x longest-topic grid is several times
    faster than one sort of everything; a very uneven run sorts the flat key.
    """
    n = len(h)
    if not n:
        return np.zeros(0, np.int64)
    starts = np.flatnonzero(np.concatenate(([True], q[1:] != q[:-1])))
    heads = q[starts]
    by_topic = np.argsort(heads, kind="stable")
    if np.any(heads[by_topic][1:] == heads[by_topic][:-1]):
        return None                                  # a topic in several blocks
    sizes = np.diff(np.append(starts, n))
    starts, sizes = starts[by_topic], sizes[by_topic]
    width = int(sizes.max())
    if len(sizes) * width > 4 * n + 4096:
        return np.lexsort((h, q))
    grid = np.full((len(sizes), width), _PAD, dtype=np.uint64)
    block = np.repeat(np.arange(len(sizes)), sizes)
    col = np.arange(n) - np.repeat(np.cumsum(sizes) - sizes, sizes)
    rows = np.repeat(starts, sizes) + col          # the input row of each grid cell
    grid[block, col] = h[rows]
    perm = np.argsort(grid, axis=1)                # _PAD is above every hash: last
    return (starts[:, None] + perm)[perm < sizes[:, None]]


def _first_duplicate(q: np.ndarray, docs: Strings) -> tuple[int, int] | None:
    """Positions ``(first, second)`` of one repeated ``(q, doc)`` pair, or None.

    The pair reported is the smallest by (topic code, docno), with its first two
    occurrences, whichever form the column has.
    """
    n = len(q)
    if n < 2:
        return None
    if isinstance(docs, np.ndarray):
        h = _hash(docs, q)
        order = _grouped_order(h, q)                    # qrels are usually by topic
        if order is None:
            order = np.argsort(h)
        return _repeated_pair(q, docs, order, h[order])
    import pyarrow as pa
    import pyarrow.compute as pc

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


class JudgedTopics:
    """Qrels prepared once for many runs (trec_eval's per-topic REL_INFO).

    A plain class, not a dataclass: generating a dataclass's methods costs a
    millisecond at import, on a command that starts in about 0.15 s.
    """

    def __init__(self, qrels: Qrels, topics: list[str], index: dict[str, int],
                 q: np.ndarray, docs: Strings, rel: np.ndarray, levels: np.ndarray) -> None:
        self.qrels = qrels
        self.topics = topics             # strcmp order
        self.index = index
        self.q = q                       # int32 topic code of each qrels row
        self.docs = docs                 # docno of each qrels row
        self.rel = rel                   # int64 grade of each qrels row
        self.levels = levels             # T x (max_level + 1) counts of non-negative grades

    def __repr__(self) -> str:
        return f"JudgedTopics({len(self.topics)} topics, {len(self.q)} judgments)"

    @classmethod
    def prepare(cls, qrels: Qrels) -> JudgedTopics:
        qid = _strings(qrels.column("query_id"))
        topics = topic_order(column_values(qid))
        index = {t: i for i, t in enumerate(topics)}
        q = codes_of(qid, index)
        docs = _strings(qrels.column("doc_id"))
        dup = _first_duplicate(q, docs)
        if dup is not None:
            row = dup[1]
            raise DuplicateDocumentError(qrels.source, qrels.line_of(row), topics[q[row]],
                                         _value(docs, row))
        rel = np.asarray(to_np(qrels.column("relevance")), dtype=np.int64)
        bad = np.flatnonzero((rel < _io.GRADE_MIN) | (rel > _io.GRADE_MAX))
        if len(bad):   # a frame or dict built in Python, not read from a file
            row = int(bad[0])
            raise FormatError(qrels.source, qrels.line_of(row), _io.GRADE_EXPECTED,
                              repr(str(rel[row])))
        top = int(rel.max()) if len(rel) and rel.max() > 0 else 0
        if len(topics) * (top + 1) > MAX_LEVEL_CELLS:
            # Measures count judged documents per topic and grade (ideal DCG needs them):
            # a table of topics x (top grade + 1) cells. Grades are levels (0-4, 0-100):
            # refuse what would take gigabytes rather than be killed for memory.
            raise EvaluationError(
                f"{qrels.source}: grades up to {top} over {len(topics)} topics need "
                f"{len(topics) * (top + 1):,} counts; relkit supports up to "
                f"{MAX_LEVEL_CELLS:,} (grades are relevance levels, such as 0-4)")
        ok = rel >= 0
        levels = np.zeros((len(topics), top + 1), dtype=np.int64)
        np.add.at(levels, (q[ok], rel[ok]), 1)
        return cls(qrels, topics, index, q, docs, rel, levels)

    @cached_property
    def table(self) -> pa.Table:
        """``q`` (topic code), ``d`` (docno), ``rel``: what an Arrow run joins against."""
        import pyarrow as pa

        docs = self.docs
        if isinstance(docs, np.ndarray):
            docs = pa.array(_io.decode(docs), pa.string())
        return pa.table({"q": self.q, "d": docs, "rel": self.rel})

    @cached_property
    def _bytes_docs(self) -> np.ndarray | None:
        """The docnos as fixed-width bytes (None if that form cannot hold them)."""
        if isinstance(self.docs, np.ndarray):
            return self.docs
        return _io.as_bytes(self.docs.to_pylist())

    @cached_property
    def _exact(self) -> dict[tuple[int, str], int]:
        """``(topic code, docno) -> grade``, for the rare lookups hashes cannot settle."""
        docs = self.docs if not isinstance(self.docs, np.ndarray) else None
        names = _io.decode(self.docs) if docs is None else docs.to_pylist()
        return dict(zip(zip(self.q.tolist(), names, strict=True), self.rel.tolist(),
                        strict=True))

    def _sorted_keys(self, width: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The qrels docnos at ``width`` bytes, their :func:`_topic_keys` sorted,
        and the order that sorts them (cached per width)."""
        cache = self.__dict__.setdefault("_key_cache", {})
        if width not in cache:
            assert self._bytes_docs is not None
            mine = self._bytes_docs.astype(f"S{width}", copy=False)
            h = _hash(mine, self.q)
            order = _grouped_order(h, self.q)
            if order is None:
                order = np.argsort(_topic_keys(self.q, h, len(self.topics)))
            cache[width] = mine, _topic_keys(self.q[order], h[order], len(self.topics)), order
        found: tuple[np.ndarray, np.ndarray, np.ndarray] = cache[width]
        return found

    def grades_and_duplicate(self, q: np.ndarray, docs: np.ndarray, source: np.ndarray
                             ) -> tuple[np.ndarray, tuple[int, int] | None]:
        """For ranked rows of a bytes column (``q`` non-decreasing): the relevance
        of each ``(q, doc)`` for ranking (the qrels grade, :data:`UNJUDGED` for a
        negative one, :data:`NONPOOL` if not in the qrels), and the first repeated
        pair as rows of ``source`` (see :func:`_first_duplicate`).

        One hash per pair and one sort per topic serve both: repeated pairs are
        neighbours in that order, and its keys, ascending, are looked up in the
        qrels' own sorted keys.
        """
        out = np.full(len(q), NONPOOL, dtype=np.int64)
        if not len(q):
            return out, None
        mine = self._bytes_docs
        if mine is not None:
            width = max(mine.dtype.itemsize, docs.dtype.itemsize)
            docs = docs.astype(f"S{width}", copy=False)
        h = _hash(docs, q)
        order = _grouped_order(h, q)                 # ranked rows: one block per topic
        assert order is not None
        hs = h[order]
        dup = _repeated_pair(q, docs, order, hs, source)
        if mine is None:                             # qrels ids bytes cannot hold
            unsettled = np.arange(len(q))
        else:
            mine, keys, q_order = self._sorted_keys(width)
            unsettled = np.zeros(0, np.int64)
            if len(keys):
                wanted = _topic_keys(q[order], hs, len(self.topics))     # ascending
                at = np.minimum(np.searchsorted(keys, wanted), len(keys) - 1)
                cand = np.flatnonzero(keys[at] == wanted)
                rows, j = order[cand], q_order[at[cand]]
                ok = (self.q[j] == q[rows]) & (mine[j] == docs[rows])
                g = self.rel[j[ok]]
                out[rows[ok]] = np.where(is_judged(g), g, UNJUDGED)
                unsettled = rows[~ok]                # a key shared with another pair
        if len(unsettled):
            exact = self._exact
            for r in unsettled.tolist():
                g = exact.get((int(q[r]), _value(docs, r)))
                if g is not None:
                    out[r] = g if is_judged(g) else UNJUDGED
        return out, dup

    @cached_property
    def _by_topic(self) -> tuple[np.ndarray, np.ndarray]:
        """Row order grouping the qrels by topic, and each topic's offsets."""
        order = np.argsort(self.q, kind="stable")
        offsets = np.concatenate(([0], np.cumsum(np.bincount(self.q,
                                                              minlength=len(self.topics)))))
        return order, offsets

    def for_topics(self, codes: np.ndarray) -> pa.Table:
        """The judgments of the topics ``codes`` only (what a chunk joins against)."""
        import pyarrow as pa

        codes = np.flatnonzero(np.bincount(codes[codes >= 0], minlength=len(self.topics)))
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
        counts: np.ndarray = self.levels[:, lo:].sum(axis=1)
        return counts


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


def _order(q: np.ndarray, s: np.ndarray, d: Strings,
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
    docs_all = _strings(run.column("doc_id"))
    scores = np.asarray(to_np(run.column("score")), dtype=np.float64)
    if float32_scores:
        scores = scores.astype(np.float32).astype(np.float64)
    keep = np.flatnonzero(q_all >= 0)
    if len(keep) != len(q_all):
        rows = keep[_order(q_all[keep], scores[keep], _take(docs_all, keep), ties)]
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

    from relkit.metrics._arrow import import_acero

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
