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

from relkit.metrics import io as _io
from relkit.metrics.errors import DuplicateDocumentError, FormatError, RelkitError

EXPECTED = "4 fields 'topic subtopic docno grade'"


class SubtopicQrels:
    """Subtopic judgments: one row per (topic, subtopic, document) with an int grade.

    Attributes
    ----------
    query_id, subtopic, doc_id : list of str
        The ids of each row, as read.
    relevance : numpy.ndarray
        The int64 grade of each row.
    source : str
        The file name (or ``<text>``, ``<records>``) for messages.
    lines : numpy.ndarray or None
        The 1-based line of each row in ``source`` (None when not read from text).

    Examples
    --------
    >>> from relkit.metrics.subtopics import SubtopicQrels
    >>> q = SubtopicQrels.read("1 a d1 1\\n1 b d1 1\\n1 b d2 0\\n")
    >>> len(q), q.topics()
    (3, ['1'])
    """

    def __init__(self, query_id: list[str], subtopic: list[str], doc_id: list[str],
                 relevance: np.ndarray, source: str = "<records>",
                 lines: np.ndarray | None = None) -> None:
        self.query_id = query_id
        self.subtopic = subtopic
        self.doc_id = doc_id
        self.relevance = np.asarray(relevance, dtype=np.int64)
        self.source = source
        self.lines = lines
        self._check_unique()

    def __len__(self) -> int:
        return len(self.query_id)

    def __repr__(self) -> str:
        return f"SubtopicQrels({len(self)} judgments from {self.source})"

    def line_of(self, row: int) -> int:
        """The line of row ``row`` in the source (its 1-based row number otherwise)."""
        return int(self.lines[row]) if self.lines is not None else row + 1

    def topics(self) -> list[str]:
        """The topic ids, in trec_eval's order (``strcmp``)."""
        from relkit.metrics.ranking import topic_order

        return topic_order(self.query_id)

    def _check_unique(self) -> None:
        """One grade per (topic, subtopic, document): ndeval would count a repeated line
        twice in a subtopic's relevant total, so a repeat is refused."""
        seen: set[tuple[str, str, str]] = set()
        for row, key in enumerate(zip(self.query_id, self.subtopic, self.doc_id,
                                      strict=True)):
            if key in seen:
                raise FormatError(self.source, self.line_of(row),
                                  "each (topic, subtopic, document) at most once",
                                  f"document {key[2]!r} again for topic {key[0]!r}, "
                                  f"subtopic {key[1]!r}")
            seen.add(key)

    @classmethod
    def read(cls, source: _io.Source) -> SubtopicQrels:
        """Read a subtopic qrels file (a path, ``.gz`` too, an open file, or literal text).

        Raises
        ------
        FormatError
            A line without exactly four fields, or a grade that is not an integer,
            naming ``file:line``; a (topic, subtopic, document) given twice.
        """
        name = _io.source_name(source)
        data = _io._read_bytes(source)
        qid: list[str] = []
        sub: list[str] = []
        doc: list[str] = []
        grades: list[int] = []
        lines: list[int] = []
        for number, fields in _io._lines(data, name):
            if len(fields) != 4:
                raise FormatError(name, number, EXPECTED,
                                  f"{len(fields)} field(s): {' '.join(fields)!r}")
            try:
                value = int(fields[3])
            except ValueError:
                raise FormatError(name, number, "an integer grade in the last field",
                                  repr(fields[3])) from None
            if not _io.GRADE_MIN <= value <= _io.GRADE_MAX:
                raise FormatError(name, number, _io.GRADE_EXPECTED, repr(fields[3]))
            qid.append(fields[0])
            sub.append(fields[1])
            doc.append(fields[2])
            grades.append(value)
            lines.append(number)
        return cls(qid, sub, doc, np.asarray(grades, dtype=np.int64), name,
                   np.asarray(lines, dtype=np.int64))

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
