"""Subtopic qrels: the TREC Web track diversity judgments that ndeval reads.

One judgment per line, four whitespace-separated fields::

    topic subtopic docno grade

``subtopic`` names an intent (an aspect) of the topic; a document judged for several
subtopics has one line for each. A grade at or above the relevance level (1 unless
asked) makes the document relevant to that subtopic; lower grades, negatives included,
make it not relevant (pyndeval's rule; ndeval itself refuses negative grades and reads
grades above 1 as 1). Blank lines and ``#`` comment lines are skipped, ``.gz`` is
read, and ids are strings (ndeval wants numbers; relkit does not).

The plain qrels file has four fields too (``qid iter docno grade``): the two read
the same way, and only the meaning of the second field differs. Which one a file is
comes from how it is passed (``relkit eval -R subtopics``); a subtopic file passed as
plain qrels is recognised by the same document judged twice for a topic under
different second fields (:func:`looks_like_subtopics`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from relkit.metrics.errors import DuplicateDocumentError, FormatError, RelkitError
from relkit.metrics.readers import io as _io

EXPECTED = "4 fields 'topic subtopic docno grade'"


class SubtopicQrels:
    """Subtopic judgments: one row per (topic, subtopic, document) with an int grade.

    Ids are kept as codes into sorted tables of distinct ids, computed once here and
    used by every evaluation (:mod:`relkit.metrics.diversity.evaluator`).

    Attributes
    ----------
    topics : list of str
        The distinct topic ids in trec_eval's order (``strcmp``).
    q, s : numpy.ndarray
        Per row: the topic's index in ``topics``; the subtopic's number in order of
        first appearance in the file (pyndeval numbers them so, and ndeval adds a
        document's gains in that order).
    pair : numpy.ndarray
        Per row: the index of its (topic, document) among the distinct pairs (in no
        particular order).
    pair_topic, pair_doc : numpy.ndarray
        Per distinct pair: its topic's index in ``topics``, and its docno (fixed-width
        UTF-8 bytes, or ``str`` objects for ids that form cannot hold).
    relevance : numpy.ndarray
        The int64 grade of each row.
    source : str
        The file name (or ``<text>``, ``<records>``) for messages.
    lines : numpy.ndarray or None
        The 1-based line of each row in ``source`` (None: row i is line i + 1).

    Examples
    --------
    >>> from relkit.metrics.diversity.subtopics import SubtopicQrels
    >>> q = SubtopicQrels.read("1 a d1 1\\n1 b d1 1\\n1 b d2 0\\n")
    >>> len(q), q.topics, q.s.tolist()
    (3, ['1'], [0, 1, 1])
    """

    def __init__(self, query_id: Any, subtopic: Any, doc_id: Any, relevance: Any,
                 source: str = "<records>", lines: np.ndarray | None = None) -> None:
        self.relevance = np.asarray(relevance, dtype=np.int64)
        self.source = source
        self.lines = lines
        topics, _, self.q = _unique(_ids(query_id))
        self.topic_ids = topics
        self.topics = [t.decode() if isinstance(t, bytes) else t for t in topics.tolist()]
        subs, first, s = _unique(_ids(subtopic))
        order = np.empty(len(first), np.int64)
        order[np.argsort(first, kind="stable")] = np.arange(len(first))
        self.s = order[s]
        self.n_subtopics = len(subs)
        self.subtopic_ids = subs[np.argsort(first, kind="stable")]
        self.pair, self.pair_topic, self.pair_doc, checked = _pairs(
            self.q, _ids(doc_id), self.s, self.n_subtopics)
        if not checked:
            self._check_unique()

    def __len__(self) -> int:
        return len(self.relevance)

    def __repr__(self) -> str:
        return f"SubtopicQrels({len(self)} judgments from {self.source})"

    def line_of(self, row: int) -> int:
        """The line of row ``row`` in the source (its 1-based row number otherwise)."""
        return int(self.lines[row]) if self.lines is not None else row + 1

    def _check_unique(self) -> None:
        """One grade per (topic, subtopic, document): ndeval would count a repeated line
        twice in a subtopic's relevant total, so a repeat is refused."""
        if not len(self):
            return
        key = self.pair * max(self.n_subtopics, 1) + self.s
        if not (np.diff(np.sort(key)) == 0).any():
            return                                    # the usual case: one quick sort
        order = np.argsort(key, kind="stable")
        again = order[1:][key[order][1:] == key[order][:-1]]
        if len(again):
            row = int(again.min())
            raise FormatError(self.source, self.line_of(row),
                              "each (topic, subtopic, document) at most once",
                              f"document {_text(self.pair_doc[self.pair[row]])!r} again for topic "
                              f"{self.topics[self.q[row]]!r}, subtopic "
                              f"{_text(self.subtopic_ids[self.s[row]])!r}")

    @classmethod
    def read(cls, source: _io.Source) -> SubtopicQrels:
        """Read a subtopic qrels file (a path, ``.gz`` too, an open file, or literal text).

        Raises
        ------
        FormatError
            A line without exactly four fields, or a grade that is not an integer,
            naming ``file:line``; a (topic, subtopic, document) given twice.
        """
        import io

        from relkit.metrics.id_columns import id_strings

        name = _io.source_name(source)
        data = _io.read_bytes(source)
        for number, fields in _io.content_lines(data, name):
            # plain qrels' reader takes 3 fields too; subtopic qrels are 4 on every line
            # (it checks that each line has as many as the first)
            if len(fields) != 4:
                raise FormatError(name, number, EXPECTED,
                                  f"{len(fields)} field(s): {' '.join(fields)!r}")
            break
        stream = io.BytesIO(data)
        stream.name = name
        cols, lines, _ = _io.read_qrels_columns(stream)
        get = cols.__getitem__ if isinstance(cols, dict) else cols.column
        return cls(id_strings(get("query_id")), id_strings(get("iteration")),
                   id_strings(get("doc_id")), np.asarray(_to_np(get("relevance")), np.int64),
                   name, lines)

    @classmethod
    def from_records(cls, records: Iterable[Any], source: str = "<records>"
                     ) -> SubtopicQrels:
        """From ``(topic, subtopic, docno, grade)`` tuples, or pyndeval's ``SubtopicQrel``
        and ir_measures' ``GenericQrel`` (whose ``iteration`` is the subtopic).

        Raises
        ------
        FormatError
            A record of another shape, or a grade that is not an integer.
        """
        qid: list[str] = []
        sub: list[str] = []
        doc: list[str] = []
        grades: list[int] = []
        for row, rec in enumerate(records, start=1):
            if hasattr(rec, "subtopic_id"):
                fields = (rec.query_id, rec.subtopic_id, rec.doc_id, rec.relevance)
            elif hasattr(rec, "iteration") and hasattr(rec, "relevance"):
                fields = (rec.query_id, rec.iteration, rec.doc_id, rec.relevance)
            else:
                fields = tuple(rec) if isinstance(rec, (tuple, list)) else ()
            if len(fields) != 4:
                raise FormatError(source, row, "(topic, subtopic, docno, grade)", repr(rec))
            grade = fields[3]
            if isinstance(grade, bool) or not float(grade).is_integer():
                raise FormatError(source, row, "an integer grade", repr(grade))
            qid.append(str(fields[0]))
            sub.append(str(fields[1]))
            doc.append(str(fields[2]))
            grades.append(int(grade))
        return cls(qid, sub, doc, np.asarray(grades, dtype=np.int64), source)

    @classmethod
    def coerce(cls, obj: Any) -> SubtopicQrels:
        """A ``SubtopicQrels`` from itself, a path or open file, or records."""
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, str) or hasattr(obj, "__fspath__") or callable(
                getattr(obj, "read", None)):
            return cls.read(obj)
        return cls.from_records(obj)


def _to_np(column: Any) -> np.ndarray:
    if isinstance(column, np.ndarray):
        return column
    from relkit.metrics.readers._arrow import to_np

    return np.asarray(to_np(column))


def _ids(values: Any) -> np.ndarray:
    """Ids as fixed-width UTF-8 bytes, or ``str`` objects when that form cannot hold
    them (an id with a NUL byte, or longer than relkit's limit)."""
    if isinstance(values, np.ndarray) and values.dtype.kind == "O":
        return values
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        return _tight(values)
    if isinstance(values, np.ndarray):
        values = values.tolist()
    if not isinstance(values, list):          # an Arrow column ranking could not convert
        values = values.to_pylist()
    as_b = _io.as_bytes([str(v) for v in values])
    return as_b if as_b is not None else np.array(values, dtype=object)


def _tight(ids: np.ndarray) -> np.ndarray:
    """Fixed-width bytes at the width of their longest value: an array made wider
    than its ids (numpy's ``astype("S")`` of numbers gives 21 bytes) would make every
    sort below compare padding."""
    if ids.dtype.itemsize <= 1 or not len(ids):
        return ids
    grid = ids.view(np.uint8).reshape(len(ids), -1)
    width = ids.dtype.itemsize
    while width > 1 and not grid[:, width - 1].any():   # usually one column looked at
        width -= 1
    return ids if width == ids.dtype.itemsize else ids.astype(f"S{width}")


def _unique(ids: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``np.unique(ids, return_index=True, return_inverse=True)``, in byte order.

    Fixed-width bytes are sorted as rows of big-endian 64-bit words (the order of
    ``strcmp``, zero padding first as a shorter prefix): a numeric sort, several times
    faster than numpy's sort of strings on millions of judgments.
    """
    if ids.dtype.kind != "S" or not len(ids):
        found: tuple[np.ndarray, np.ndarray, np.ndarray] = np.unique(
            ids, return_index=True, return_inverse=True)
        return found
    if ids.dtype.itemsize <= 2:
        # short ids (subtopic numbers) are 8- or 16-bit numbers in byte order: counted,
        # not sorted
        small = (ids.view(np.uint8) if ids.dtype.itemsize == 1 else ids.view(">u2")
                 ).astype(np.intp)
        present = np.flatnonzero(np.bincount(small))
        code = np.zeros(int(present[-1]) + 1, np.int64)
        code[present] = np.arange(len(present))
        inverse = code[small]
        first = _first_rows(inverse, len(present))
        return ids[first], first, inverse
    # A column grouped as files are (a topic's lines together) has few runs of equal
    # values: sort the first row of each run only.
    change = np.ones(len(ids), bool)
    change[1:] = ids[1:] != ids[:-1]
    heads = np.flatnonzero(change)
    if len(heads) < len(ids):
        names, first, inverse = _unique(ids[heads])
        lengths = np.diff(np.append(heads, len(ids)))
        return names, heads[first], np.repeat(inverse, lengths)
    from relkit.metrics.ranking import byte_words

    n = len(ids)
    words = byte_words(ids)
    new = np.ones(n, bool)
    if words.shape[1] == 1:
        order = np.argsort(words[:, 0], kind="stable")
        w = words[order, 0]
        new[1:] = w[1:] != w[:-1]
    else:
        order = np.lexsort([words[:, j] for j in reversed(range(words.shape[1]))])
        w2 = words[order]
        new[1:] = (w2[1:] != w2[:-1]).any(axis=1)
    inverse = np.empty(n, np.int64)
    inverse[order] = np.cumsum(new) - 1
    first = order[new]            # stable: each value's first row
    return ids[first], first, inverse


def _first_rows(codes: np.ndarray, k: int) -> np.ndarray:
    """The first row of each code ``0..k-1`` (each occurs): looked for in a small
    block at the head, then blocks twice as large, until every code is found (in a
    file, the few subtopic ids usually all appear among its first lines)."""
    first = np.full(k, -1, np.int64)
    missing, start, step = k, 0, 4096
    while missing:
        found, at = np.unique(codes[start:start + step], return_index=True)
        new = first[found] < 0
        first[found[new]] = start + at[new]
        missing -= int(new.sum())
        start, step = start + step, step * 2
    return first


def _pairs(q: np.ndarray, docs: np.ndarray, s: np.ndarray | None = None, n_sub: int = 0
           ) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """Each row's (topic, document) pair as an index into the distinct pairs, each
    pair's topic and docno, and whether no (topic, subtopic, document) repeats was
    checked on the way (False: not checked, :meth:`SubtopicQrels._check_unique` must).

    Pairs are found by a 63-bit hash of (topic, docno) and one numeric sort (millions of
    judgments: sorting the docno strings themselves costs several times more), a topic
    at a time when the file keeps each topic's lines together. With up to 256
    subtopics the hash's low 8 bits give way to the subtopic code, so that the same
    sort also puts a repeated (topic, subtopic, document) next to its first line. Every
    row is then checked against its pair's first row, and the exact, sorting path runs
    if two pairs ever shared a hash (over its 55 or 63 bits).
    """
    n = len(q)
    if docs.dtype.kind == "S" and n:
        from relkit.metrics.pairs import grouped_order, pair_hash

        h = pair_hash(docs, q)
        with_s = s is not None and n_sub <= 256
        if with_s:
            assert s is not None
            h = (h & ~np.uint64(0xFF)) | s.astype(np.uint64)
        order = grouped_order(h, q)
        if order is None:            # a topic's lines in several places: one flat sort
            order = np.lexsort((h, q))
        hs, qs = h[order], q[order]
        same_topic = qs[1:] == qs[:-1]
        # the pair is the hash without its subtopic bits
        ps = hs >> np.uint64(8) if with_s else hs
        new = np.ones(n, bool)
        new[1:] = (ps[1:] != ps[:-1]) | ~same_topic
        pair = np.empty(n, np.int64)
        pair[order] = np.cumsum(new) - 1
        first = order[new]
        if (q[first][pair] == q).all() and (docs[first][pair] == docs).all():
            # distinct pairs, so an equal full key is the same subtopic of one pair
            again = bool(((hs[1:] == hs[:-1]) & same_topic).any()) if with_s else True
            return pair, q[first], docs[first], with_s and not again
    names, _, d = _unique(docs)
    width = max(len(names), 1)
    keys, pair = np.unique(q.astype(np.int64) * width + d, return_inverse=True)
    return pair.astype(np.int64), keys // width, names[keys % width], False


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)


def as_plain_qrels_error(qrels: Any, exc: DuplicateDocumentError) -> RelkitError:
    """The error for a document judged twice in plain qrels: if the two lines differ in
    the second field, the file is subtopic qrels (``topic subtopic docno grade``) and the
    message says how to evaluate it; otherwise ``exc`` itself.

    Parameters
    ----------
    qrels : relkit.metrics.data.Qrels
        The plain qrels that raised ``exc``.
    exc : DuplicateDocumentError
        The repeated (topic, document) found while preparing them.
    """
    frame = qrels.frame     # only on this error path: pandas is already affordable
    same = frame[(frame["query_id"] == exc.query_id) & (frame["doc_id"] == exc.doc_id)]
    seen = set(same["iteration"])
    if len(seen) < 2:
        return exc
    where = f"{exc.source}:{exc.line}" if exc.line is not None else exc.source
    return FormatError(where, None, "plain qrels (each document once per topic)",
                       f"document {exc.doc_id!r} judged again for topic {exc.query_id!r} "
                       "under another subtopic: these are subtopic qrels "
                       "('topic subtopic docno grade'); evaluate them with -R subtopics")
