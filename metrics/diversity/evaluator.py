"""Evaluate runs on subtopic qrels: ``DiversityEvaluator(qrels, measures).compute(run)``.

The numbers are ndeval's (TREC Web track ``ndeval.c`` 4.5, as pyndeval wraps it),
bit for bit; the conventions, each found against pyndeval, are in docs/measures.md
("Diversity measures"). In short: the run is ranked by relkit's one ranking module
(trec_eval's order, which is ndeval ``-traditional``'s); a topic is evaluated when
it is in both the run and the qrels (``complete``: every qrels topic, missing ones
0); a document is relevant to a subtopic when its grade is >= the level.

Everything is vectorised over topics. The run's relevant rows (rank order) expand to
(row, subtopic) pairs; a pair's novelty discount is the count of earlier pairs of its
topic and subtopic, and each sum runs in ndeval's order (``np.bincount`` adds in array
order) so that no floating-point result differs. The ideal ranking is ndeval's greedy
one, computed one rank at a time for all topics at once on a topics x documents x
subtopics array.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.data import Run
from relkit.metrics.diversity.prep import (
    _by_topic_subtopic_rank,
    _discounts,
    _div,
    _ideal_ideal,
    _Prepared,
    _Rows,
    _seq,
)
from relkit.metrics.diversity.subtopics import SubtopicQrels
from relkit.metrics.errors import EvaluationError
from relkit.metrics.evaluator import CHUNK_ROWS, measure_requests
from relkit.metrics.measures.context import seq_sum
from relkit.metrics.measures.diversity import (
    NDEVAL_DEFAULT,
    DiversityMeasure,
    parse_diversity,
)
from relkit.metrics.ranking import rank
from relkit.metrics.topic_chunks import whole_topic_chunks

if TYPE_CHECKING:
    import pandas as pd

@dataclass
class DiversityResult:
    """One run's diversity evaluation: per-topic values and their means."""

    run_id: str
    topics: list[str]
    measures: list[DiversityMeasure]
    values: list[np.ndarray]
    summary: list[float]


class DiversityEvaluator:
    """Evaluate runs against subtopic qrels prepared once, with ndeval's numbers.

    Parameters
    ----------
    qrels : SubtopicQrels, a path or open file (``topic subtopic docno grade``), or
        ``(topic, subtopic, docno, grade)`` records (pyndeval's ``SubtopicQrel`` too).
    measures : names (``alpha_nDCG@20``, ``ERR_IA@20``, ``NRBP``, ``P_IA@20``,
        ``StRecall@20``, ndeval's spellings too) or :class:`DiversityMeasure` objects;
        default ndeval's 21 columns.
    level : lowest grade that counts as relevant (a measure's ``rel=`` overrides it).
    max_docs : evaluate only the top ``max_docs`` of each topic (ndeval ``-M``).
    complete : average over every qrels topic, those missing from the run scoring 0
        (ndeval ``-c``).

    Examples
    --------
    >>> from relkit.metrics.diversity.evaluator import DiversityEvaluator
    >>> qrels = "1 a d1 1\\n1 b d2 1\\n1 a d3 1\\n"
    >>> run = "1 Q0 d1 1 3 r\\n1 Q0 d3 2 2 r\\n1 Q0 d2 3 1 r\\n"
    >>> ev = DiversityEvaluator(qrels, ["alpha_nDCG@3", "StRecall@2"])
    >>> [round(x, 4) for x in ev.aggregate(run)]
    [0.9652, 0.5]
    """

    def __init__(self, qrels: SubtopicQrels | Any,
                 measures: Iterable[str | DiversityMeasure] | str = NDEVAL_DEFAULT, *,
                 level: int = 1, max_docs: int | None = None, complete: bool = False) -> None:
        self.qrels = SubtopicQrels.coerce(qrels)
        chosen: list[DiversityMeasure] = []
        for m in measure_requests(measures):
            dm = m if isinstance(m, DiversityMeasure) else parse_diversity(str(m))
            if dm not in chosen:
                chosen.append(dm)
        self.measures = chosen
        self.level = level
        self.max_docs = max_docs
        self.complete = complete
        self._prepared: dict[int, _Prepared] = {}

    def _prep(self, level: int) -> _Prepared:
        if level not in self._prepared:
            self._prepared[level] = _Prepared(self.qrels, level)
        return self._prepared[level]

    def compute(self, run: Run | Any) -> DiversityResult:
        """Per-topic values and means of every measure for ``run``.

        Raises
        ------
        EvaluationError
            No topic has both run lines and subtopic judgments.
        DuplicateDocumentError
            A document twice in a topic of the run.
        """
        run = Run.coerce(run)
        values: list[np.ndarray] = []
        topics: list[str] | None = None
        memo: dict[tuple[Any, ...], Any] = {}
        for m in self.measures:
            level = self.level if m.rel is None else m.rel
            if ("rank", level) not in memo:
                memo[("rank", level)] = self._ranked(run, level)
            ctx = memo[("rank", level)]
            if topics is None:
                topics = ctx[0]
            values.append(self._value(m, level, ctx, memo))
        if topics is None:
            topics = self._ranked(run, self.level)[0]
        if not topics:
            raise EvaluationError(f"{run.source}: no topic has both run lines and subtopic "
                                  f"judgments in {self.qrels.source}")
        summary = [seq_sum(v) / len(topics) for v in values]   # ndeval's running total
        return DiversityResult(run.name, topics, self.measures, values, summary)

    def _ranked(self, run: Run, level: int) -> tuple[list[str], np.ndarray, np.ndarray,
                                                      np.ndarray, np.ndarray]:
        """The evaluated topics (codes into the qrels' topics) and the run's relevant
        rows: topic (evaluated index), 0-based rank, relevant-document number.

        A large run is ranked a group of whole topics at a time, as ``Evaluator`` does
        (smaller sorts, bounded memory); only the relevant rows are kept.
        """
        prep = self._prep(level)
        parts_code, parts_pos, parts_g, seen = [], [], [], []
        for part, part_codes in whole_topic_chunks(run, prep.judged, CHUNK_ROWS):
            ranked = rank(part, prep.judged, max_docs=self.max_docs, codes=part_codes)
            n = np.diff(ranked.offsets)
            tid = np.repeat(np.arange(len(ranked.topics)), n)
            hit = np.flatnonzero(ranked.rel >= 1)
            code = ranked.topic_codes[tid[hit]]
            parts_code.append(code)
            parts_pos.append(hit - ranked.offsets[:-1][tid[hit]])
            parts_g.append(prep.doc_base[code] + ranked.rel[hit] - 1)
            seen.append(ranked.topic_codes)
        codes = (np.arange(len(prep.topics)) if self.complete
                 else np.sort(np.concatenate(seen)) if seen else np.zeros(0, np.int64))
        code, pos, g = (np.concatenate(x) if x else np.zeros(0, np.int64)
                        for x in (parts_code, parts_pos, parts_g))
        order = np.lexsort((pos, code))          # chunks in topic order, ranks in order
        tid = np.searchsorted(codes, code[order])
        return [prep.topics[c] for c in codes.tolist()], codes, tid, pos[order], g[order]

    def _value(self, m: DiversityMeasure, level: int, ctx: tuple[Any, ...],
               memo: dict[tuple[Any, ...], Any]) -> np.ndarray:
        prep = self._prep(level)
        topics, codes, tid, pos, g = ctx
        T = len(topics)
        S = prep.S[codes]
        key = ("rows", level, m.alpha)
        if key not in memo:
            memo[key] = prep.rows(tid, pos, g, m.alpha)
        r: _Rows = memo[key]
        fam, k = m.family, m.cutoff
        ok = S > 0
        if fam in ("alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA"):
            assert k is not None
            run_v = _cut_sum(r.tid, r.pos, r.score, k, T, fam)
            # ndeval divides from rank 2 on only: @1 is the raw gain
            norm = _ideal_ideal(S, k, m.alpha, "DCG" in fam) if k >= 2 else np.ones(T)
            run_v = _div(run_v, norm, ok)
            if fam in ("alpha_DCG", "ERR_IA"):
                return run_v
            it, ip, isc = prep.ideal(k, m.alpha)
            where_topic = np.full(len(prep.topics), -1)
            where_topic[codes] = np.arange(T)
            sel = where_topic[it] >= 0
            ideal_v = _cut_sum(where_topic[it[sel]], ip[sel], isc[sel], k, T, fam)
            ideal_v = _div(ideal_v, norm, ok)
            return _div(run_v, ideal_v, run_v != 0)
        if fam in ("NRBP", "nNRBP"):
            run_v = _nrbp(r.tid, r.pos, r.score, T, S, m.alpha, m.beta)
            if fam == "NRBP":
                return run_v
            depth = int(prep.n_rel.max()) if len(prep.n_rel) else 0
            it, ip, isc = prep.ideal(depth, m.alpha)
            where_topic = np.full(len(prep.topics), -1)
            where_topic[codes] = np.arange(T)
            sel = where_topic[it] >= 0
            ideal_v = _nrbp(where_topic[it[sel]], ip[sel], isc[sel], T, S, m.alpha, m.beta)
            return _div(run_v, ideal_v, ideal_v != 0)
        if fam == "P_IA":
            assert k is not None
            count = np.bincount(r.p_tid[r.p_pos < k], minlength=T).astype(np.float64)
            return _div(count, (k * S).astype(np.float64), ok)
        if fam == "StRecall":
            assert k is not None
            first = (r.p_prior == 0) & (r.p_pos < k)
            count = np.bincount(r.p_tid[first], minlength=T).astype(np.float64)
            return _div(count, S.astype(np.float64), ok)
        if fam == "AP_IA":
            return _ap_ia(prep, r, codes, T, S)
        raise AssertionError(f"no computation for {fam}")   # every family is above

    def evaluate(self, run: Run | Any) -> pd.DataFrame:
        """Tidy per-topic values: columns ``run_id, query_id, measure, value``."""
        import pandas as pd

        res = self.compute(run)
        frames = [pd.DataFrame({"query_id": res.topics, "measure": str(m), "value": v})
                  for m, v in zip(res.measures, res.values, strict=True)]
        out = pd.concat(frames, ignore_index=True)
        out.insert(0, "run_id", res.run_id)
        return out

    def aggregate(self, run: Run | Any) -> list[float]:
        """The mean of each measure over the evaluated topics, in measure order."""
        return self.compute(run).summary


def _cut_sum(tid: np.ndarray, pos: np.ndarray, score: np.ndarray, k: int, T: int,
             fam: str) -> np.ndarray:
    """Per topic, the running total of ``score * discount`` (DCG) or ``score / rank``
    (ERR) over the top k, added in rank order as ndeval does."""
    top = pos < k
    p = pos[top]
    # ndeval multiplies by the discount but divides by the rank: so do we
    w = score[top] * _discounts(k)[p] if "DCG" in fam else score[top] / (p + 1.0)
    return np.bincount(tid[top], weights=w, minlength=T)


def _nrbp(tid: np.ndarray, pos: np.ndarray, score: np.ndarray, T: int, S: np.ndarray,
          alpha: float, beta: float) -> np.ndarray:
    depth = int(pos.max()) + 1 if len(pos) else 1
    decay = _seq(depth, 1.0, beta)
    total = np.bincount(tid, weights=score * decay[pos], minlength=T)
    scale = np.divide(1 - (1 - alpha) * beta, S.astype(np.float64),
                      out=np.zeros(T), where=S > 0)
    return np.where(S > 0, total * scale, 0.0)


def _ap_ia(prep: _Prepared, r: _Rows, codes: np.ndarray, T: int, S: np.ndarray) -> np.ndarray:
    """ndeval's MAP-IA: per subtopic, sum of (its count so far) / rank over the run, over
    its relevant total; the mean over the topic's subtopics (added in subtopic order)."""
    order = _by_topic_subtopic_rank(r.p_tid, r.p_sub, r.p_pos, prep.n_sub)
    t, s = r.p_tid[order], r.p_sub[order]
    contrib = (r.p_prior[order] + 1) / (r.p_pos[order] + 1.0)
    key = t.astype(np.int64) * prep.n_sub + s
    groups, first = np.unique(key, return_index=True)
    gid = np.searchsorted(groups, key)
    total = np.bincount(gid, weights=contrib, minlength=len(groups))
    # relevant totals of (evaluated topic, subtopic)
    ts_key = prep.ts_topic * prep.n_sub + prep.ts_sub
    code_key = codes[groups // prep.n_sub] * prep.n_sub + groups % prep.n_sub
    nrel = prep.ts_count[np.searchsorted(ts_key, code_key)]
    sums = np.bincount(groups // prep.n_sub, weights=total / nrel, minlength=T)
    return _div(sums, S.astype(np.float64), S > 0)
