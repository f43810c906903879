"""trec_eval's judgment-group mode (``-R qrels_jg``, ``-m qrels_jg``).

A qrels_jg file has lines ``qid jg docno rel`` (``get_qrels_jg.c``): the same
topic judged by several judgment groups (JGs, e.g. users). Each measure is
computed per JG exactly like its ordinary counterpart, against that JG's
judgments, and the topic's value is the mean over its JGs
(``form_res_rels_jg.c``). Ranking is trec_eval's usual one (ties by docno
descending), so :func:`relkit.metrics.ranking.ranked_docnos` supplies it.

Per JG, with ``rel(i)`` the JG's grade of the document at rank i (``-1``
not judged by the JG, ``-2`` judged negative), ``L`` the relevance level,
``R`` the JG's count of grades ``>= max(L, 0)`` and ``n`` documents retrieved:

* ``map_avgjg`` (``m_map_avgjg.c``): AP = (1/R) sum over ranks i with
  rel(i) >= L of (relevant in top i) / i; 0 if none retrieved.
* ``P_avgjg_k`` (``m_P_avgjg.c``): (relevant in top k) / k, missing ranks
  count as nonrelevant. Default k: 5, 10, 15, 20, 30, 100, 200, 500, 1000.
* ``Rprec_mult_avgjg_m`` (``m_Rprec_mult_avgjg.c``): precision at rank
  ``c = floor(m R + 0.9)``; 0 when c = 0, and ``num_rel_ret / c`` when
  c > n. Default m: 0.20, 0.40, ..., 2.00.

Summaries are means over topics; ``runid`` and ``num_q`` appear in the
summary only.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.core.errors import DuplicateDocumentError, FormatError
from relkit.metrics.data import Run
from relkit.metrics.ranking import ranked_docnos
from relkit.metrics.readers import sources as _sources
from relkit.metrics.trec_eval.rows import (
    Params,
    Row,
    div,
    double_cutoffs,
    long_cutoffs,
    render,
    resolve_measures,
    select_topics,
    seq_sum,
    summary_rows,
)

if TYPE_CHECKING:  # pandas is imported only when a frame is asked for
    import pandas as pd

__all__ = ["JG_MEASURES", "JgQrels", "Row", "evaluate_jg", "evaluate_jg_run",
           "read_qrels_jg", "render"]

JG_MEASURES = ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
NICKNAMES = {"qrels_jg": JG_MEASURES}
P_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RPREC_MULTS = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)
_PARSERS = {"P_avgjg": long_cutoffs, "Rprec_mult_avgjg": double_cutoffs}
NONPOOL, UNJUDGED = -1, -2


@dataclass(frozen=True, eq=False)
class JgQrels:
    """Judgments of several judgment groups: parallel columns, one entry per line.

    ``query_id``, ``jg`` and ``doc_id`` are strings, ``relevance`` ints.
    """

    query_id: list[str]
    jg: list[str]
    doc_id: list[str]
    relevance: list[int]
    source: str = "<qrels_jg>"
    lines: np.ndarray | None = field(default=None, repr=False)

    def __len__(self) -> int:
        return len(self.query_id)

    @property
    def frame(self) -> pd.DataFrame:
        """The judgments as a pandas frame: ``query_id, jg, doc_id, relevance``."""
        import pandas as pd

        return pd.DataFrame({"query_id": self.query_id, "jg": self.jg,
                             "doc_id": self.doc_id, "relevance": self.relevance})


def read_qrels_jg(source: _sources.Source) -> JgQrels:
    """Read a qrels_jg file (``-R qrels_jg``): ``qid jg docno rel`` per line.

    Raises :class:`~relkit.metrics.core.errors.FormatError` naming the file and 1-based
    line for a line without exactly 4 fields or a non-integer grade, and
    :class:`~relkit.metrics.core.errors.DuplicateDocumentError` for a docno judged twice
    by one JG of a topic (trec_eval rejects that too).
    """
    name = _sources.source_name(source)
    data = _sources.read_bytes(source)
    qids: list[str] = []
    jgs: list[str] = []
    docs: list[str] = []
    grades: list[int] = []
    lines: list[int] = []
    seen: set[tuple[str, str, str]] = set()
    # Blank and '#' lines are skipped, like the package's other readers.
    for number, fields in _sources.content_lines(data, name):
        if len(fields) != 4:
            raise FormatError(name, number, "4 whitespace-separated fields: qid jg docno rel",
                              f"{len(fields)} field(s): {' '.join(fields)!r}")
        qid, jg, doc, grade = fields
        try:
            rel = int(grade)
        except ValueError:
            raise FormatError(name, number, "an integer grade in the last field",
                              repr(grade)) from None
        if (qid, jg, doc) in seen:
            raise DuplicateDocumentError(name, number, qid, doc)
        seen.add((qid, jg, doc))
        qids.append(qid)
        jgs.append(jg)
        docs.append(doc)
        grades.append(rel)
        lines.append(number)
    if not lines:
        raise FormatError(name, None, "at least one judgment line", "no content lines")
    return JgQrels(qids, jgs, docs, grades, name, np.asarray(lines, dtype=np.int64))


def _jg_lists(ranked: list[str], judged: dict[str, int], level: int, judged_only: bool
              ) -> tuple[np.ndarray, int, int]:
    """(rel per rank, R, num_rel_ret) of one JG for one ranking."""
    in_pool = np.array([d in judged for d in ranked], dtype=bool)
    grade = np.array([judged.get(d, 0) for d in ranked], dtype=np.int64)
    rel = np.where(in_pool, np.where(grade < 0, UNJUDGED, grade), NONPOOL)
    if judged_only:
        # -J: unjudged documents leave the ranking and ranks close up.
        rel = rel[rel >= 0]
    grades = np.fromiter(judged.values(), dtype=np.int64, count=len(judged))
    num_rel = int(np.count_nonzero((grades >= 0) & (grades >= level)))
    num_rel_ret = int(np.count_nonzero((rel >= 0) & (rel >= level)))
    return rel, num_rel, num_rel_ret


def _topic_values(jgs: list[dict[str, int]], ranked: list[str], level: int,
                  judged_only: bool, want: dict[str, Params | None]) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    cuts = want.get("P_avgjg") or P_CUTOFFS
    mults = want.get("Rprec_mult_avgjg") or RPREC_MULTS
    ap_total, p_total, r_total = 0.0, [0.0] * len(cuts), [0.0] * len(mults)
    for judged in jgs:
        rel, num_rel, num_rel_ret = _jg_lists(ranked, judged, level, judged_only)
        hits = rel >= level
        n = len(rel)
        found = np.concatenate(([0], np.cumsum(hits)))        # relevant in top i
        ranks = np.flatnonzero(hits) + 1
        if len(ranks):
            ap_total += div(seq_sum(found[ranks] / ranks), num_rel)
        for j, k in enumerate(cuts):
            p_total[j] += found[min(k, n)] / k
        for j, m in enumerate(mults):
            c = int(m * num_rel + 0.9)                        # C: (long)(m R + 0.9)
            if c > n:
                r_total[j] += div(num_rel_ret, c)
            elif c > 0:
                # trec_eval walks up from the bottom while relevant docs remain;
                # that leaves num_rel_ret minus the hits below rank c.
                left = num_rel_ret - int(found[n] - found[c])
                if left > 0:
                    r_total[j] += left / c
    k = len(jgs)

    def scale(x: float) -> float:
        return x / k if k > 1 else x

    out["map_avgjg"] = [scale(ap_total)]
    out["P_avgjg"] = [scale(x) for x in p_total]
    out["Rprec_mult_avgjg"] = [scale(x) for x in r_total]
    return out


def _names(want: dict[str, Params | None]) -> list[tuple[str, str, int]]:
    """(family, printed name, index) of every value, in print order."""
    names = []
    for fam in want:
        if fam == "map_avgjg":
            names.append((fam, fam, 0))
        elif fam == "P_avgjg":
            names += [(fam, f"P_avgjg_{k}", j)
                      for j, k in enumerate(want[fam] or P_CUTOFFS)]
        elif fam == "Rprec_mult_avgjg":
            names += [(fam, f"Rprec_mult_avgjg_{m:3.2f}", j)
                      for j, m in enumerate(want[fam] or RPREC_MULTS)]
    return names


def evaluate_jg(
    qrels: JgQrels,
    ranking: dict[str, list[str]],
    measures: Sequence[str] | None = None,
    *,
    run_id: str = "",
    relevance_level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
    missing: str = "error",
) -> list[Row]:
    """Evaluate ranked docnos against multi-group judgments, as trec_eval does.

    Parameters
    ----------
    qrels
        From :func:`read_qrels_jg`.
    ranking
        Each topic's docnos best first, from
        :func:`relkit.metrics.ranking.ranked_docnos` (with ``max_docs`` for ``-M``).
    measures
        trec_eval ``-m`` arguments: ``map_avgjg``, ``P_avgjg[.k1,k2...]``,
        ``Rprec_mult_avgjg[.m1,m2...]``, ``runid``, ``num_q`` or the nickname
        ``qrels_jg``. ``None`` means ``qrels_jg``.
    run_id
        Printed on the ``runid`` line.
    relevance_level
        ``-l``: grades at or above it are relevant.
    judged_only
        ``-J``: per JG, drop retrieved documents that JG did not judge.
    complete, missing
        Topic policy, as in :func:`relkit.metrics.trec_eval.prefs.evaluate_prefs`.

    Returns
    -------
    list of Row
        Per-topic rows (topics in ``strcmp`` order), then the ``all`` rows.
    """
    want = resolve_measures(measures, JG_MEASURES, NICKNAMES, "qrels_jg", _PARSERS, "qrels_jg")
    topics = select_topics(qrels.query_id, ranking, complete=complete, missing=missing)
    groups: dict[str, dict[str, dict[str, int]]] = {}
    for qid, jg, doc, rel in zip(qrels.query_id, qrels.jg, qrels.doc_id, qrels.relevance,
                                 strict=True):
        groups.setdefault(qid, {}).setdefault(jg, {})[doc] = int(rel)
    names = _names(want)
    per_topic: list[list[Row]] = []
    for qid, ranked in topics:
        jgs = [groups[qid][g] for g in sorted(groups[qid])]   # JGs in strcmp order
        values = _topic_values(jgs, ranked, relevance_level, judged_only, want)
        per_topic.append([Row(name, qid, values[fam][j], "float") for fam, name, j in names])
    summary = summary_rows(per_topic, want, run_id, len(groups), complete)
    return [row for rows in per_topic for row in rows] + summary


def evaluate_jg_run(
    judgments: JgQrels | _sources.Source,
    run: Run,
    measures: Sequence[str] | None = None,
    *,
    float32_scores: bool = False,
    max_docs: int | None = None,
    relevance_level: int = 1,
    judged_only: bool = False,
    complete: bool = False,
    missing: str = "error",
) -> list[Row]:
    """``trec_eval -R qrels_jg -q <judgments> <run>`` as rows (``runid`` = ``run.name``)."""
    if not isinstance(judgments, JgQrels):
        judgments = read_qrels_jg(judgments)
    ranking = ranked_docnos(run, float32_scores=float32_scores, max_docs=max_docs)
    return evaluate_jg(judgments, ranking, measures, run_id=run.name,
                       relevance_level=relevance_level, judged_only=judged_only,
                       complete=complete, missing=missing)
