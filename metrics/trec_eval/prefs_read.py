"""Inputs of trec_eval's preference modes (``-R prefs`` and ``-R qrels_prefs``).

A *prefs* file has lines ``qid jg jsg docno rel_level`` (``get_prefs.c``):
within one judgment sub-group (JSG) a document with a higher ``rel_level`` is
preferred to every document with a lower one; the JSGs of one judgment group
(JG, one user) combine transitively; different JGs may disagree.
``rel_level`` is a real number; ``0`` means "nonrelevant".

``-R qrels_prefs`` reads an ordinary qrels file ``qid iter docno rel`` as prefs
(``get_qrels_prefs.c``): the iter field becomes the JG and every line gets the
JSG ``"0"``, so each JG is one complete ranking by relevance level.

The ranking is trec_eval's usual one except for ties: ``form_prefs_counts.c``
breaks equal scores by docno *ascending*, where every other mode (and
:func:`relkit.metrics.ranking.ranked_docnos`) uses descending. :func:`prefs_ranking`
applies that difference on top of ``ranked_docnos``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.core.errors import FormatError
from relkit.metrics.data import Qrels, Run
from relkit.metrics.ranking import ranked_docnos
from relkit.metrics.readers import sources as _sources

if TYPE_CHECKING:  # pandas is imported only when a frame is asked for
    import pandas as pd

__all__ = ["Prefs", "read_prefs", "read_qrels_prefs", "prefs_from_qrels", "prefs_ranking"]

PREFS_COLUMNS = ("query_id", "jg", "jsg", "doc_id", "rel_level")


@dataclass(frozen=True, eq=False)
class Prefs:
    """Preference judgments: parallel columns, one entry per input line.

    ``query_id``, ``jg``, ``jsg`` and ``doc_id`` are strings, ``rel_level``
    a float array. A document may appear in several lines (other JSGs or JGs).
    """

    query_id: list[str]
    jg: list[str]
    jsg: list[str]
    doc_id: list[str]
    rel_level: np.ndarray
    source: str = "<prefs>"
    lines: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.query_id)

    def topics(self) -> list[str]:
        """Judged topic ids in trec_eval (``strcmp``) order."""
        return sorted(set(self.query_id))

    @property
    def frame(self) -> pd.DataFrame:
        """The judgments as a pandas frame (columns as in ``PREFS_COLUMNS``)."""
        import pandas as pd

        return pd.DataFrame(dict(zip(PREFS_COLUMNS, (self.query_id, self.jg, self.jsg,
                                                     self.doc_id, self.rel_level), strict=True)))


def _level(text: str, name: str, number: int) -> float:
    # trec_eval uses atof (garbage reads as 0.0); we refuse it instead.
    try:
        value = float(text)
    except ValueError:
        raise FormatError(name, number, "a numeric rel_level in the last field",
                          repr(text)) from None
    if not math.isfinite(value):
        raise FormatError(name, number, "a finite rel_level in the last field", repr(text))
    return value


def _read(source: _sources.Source, width: int, expected: str) -> Prefs:
    name = _sources.source_name(source)
    data = _sources.read_bytes(source)
    cols: tuple[list[str], list[str], list[str], list[str]] = ([], [], [], [])
    levels: list[float] = []
    lines: list[int] = []
    # Blank lines and lines whose first field starts with '#' are skipped, like
    # the package's other readers (trec_eval 10 skips '#' lines, rejects blanks).
    for number, fields in _sources.content_lines(data, name):
        if len(fields) != width:
            raise FormatError(name, number, expected,
                              f"{len(fields)} field(s): {' '.join(fields)!r}")
        levels.append(_level(fields[-1], name, number))
        cols[0].append(fields[0])
        cols[1].append(fields[1])
        cols[2].append(fields[2] if width == 5 else "0")   # qrels_prefs: one JSG "0"
        cols[3].append(fields[-2])
        lines.append(number)
    if not lines:
        raise FormatError(name, None, "at least one judgment line", "no content lines")
    return Prefs(*cols, np.asarray(levels, dtype=np.float64), name,
                 np.asarray(lines, dtype=np.int64))


def read_prefs(source: _sources.Source) -> Prefs:
    """Read a prefs file (``-R prefs``): ``qid jg jsg docno rel_level`` per line.

    Raises :class:`~relkit.metrics.core.errors.FormatError` naming the file and 1-based
    line for a line without exactly 5 fields or with a non-numeric level.
    """
    return _read(source, 5, "5 whitespace-separated fields: qid jg jsg docno rel_level")


def read_qrels_prefs(source: _sources.Source) -> Prefs:
    """Read qrels as prefs (``-R qrels_prefs``): ``qid iter docno rel`` per line.

    The iter field is the judgment group; the JSG is ``"0"`` throughout.
    Levels may be real numbers, as ``get_qrels_prefs.c`` reads them with atof.
    """
    return _read(source, 4, "4 whitespace-separated fields: qid iter docno rel")


def prefs_from_qrels(qrels: Qrels) -> Prefs:
    """Convert an already-read :class:`~relkit.metrics.data.Qrels` to prefs (iter -> JG)."""
    t = qrels.arrow()
    qid = [str(x) for x in t["query_id"].to_pylist()]
    return Prefs(qid, [str(x) for x in t["iteration"].to_pylist()], ["0"] * len(qid),
                 [str(x) for x in t["doc_id"].to_pylist()],
                 np.asarray(t["relevance"].to_numpy(), dtype=np.float64),
                 qrels.source, qrels.lines)


def prefs_ranking(run: Run, *, float32_scores: bool = False,
                  max_docs: int | None = None) -> dict[str, list[str]]:
    """Each run topic's docnos in the order the prefs modes use: trec_eval's
    ranking with equal scores in docno *ascending* order (its prefs code sorts
    that way), cut to ``max_docs`` (``-M``) after sorting."""
    return ranked_docnos(run, float32_scores=float32_scores, max_docs=max_docs,
                         ties="ascending")
