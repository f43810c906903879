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

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import EvaluationError
from relkit.metrics.evaluator import CHUNK_ROWS, _topic_chunks, measure_requests
from relkit.metrics.measures.context import seq_sum
from relkit.metrics.measures.diversity import (
    NDEVAL_DEFAULT,
    REGISTRY,
    DiversityMeasure,
    parse_diversity,
)
from relkit.metrics.ranking import JudgedTopics, rank
from relkit.metrics.subtopics import SubtopicQrels

if TYPE_CHECKING:
    import pandas as pd

# Cells of one topics x documents x subtopics block of the greedy ideal ranking.
_GREEDY_CELLS = 1 << 22


def _seq(n: int, first: float, factor: float) -> np.ndarray:
    """``first, first*f, (first*f)*f, ...``: repeated multiplication, as ndeval keeps its
    running gains (``x *= 1 - alpha``), which a power function would not reproduce."""
    out = np.empty(n)
    x = first
    for i in range(n):
        out[i] = x
        x *= factor
    return out


def _discounts(n: int) -> np.ndarray:
    """ndeval's ``discount(i)`` for 0-based rank i: ``log(2)/log(i+2)``, with C's ``log``
    (``math.log``), which numpy's vectorised log may not match in the last bit."""
    return np.array([math.log(2.0) / math.log(i + 2.0) for i in range(n)])


def _ideal_ideal(S: np.ndarray, k: int, alpha: float, dcg: bool) -> np.ndarray:
    """Per topic, ndeval's "ideal ideal" normaliser at depth k >= 2: the running total
    of ``|S| (1-alpha)^i`` times the discount (DCG) or over the rank (ERR), the gain
    kept by repeated multiplication and each term formed as ndeval forms it."""
    out = np.zeros(len(S))
    disc = _discounts(k)
    for s in np.unique(S).tolist():
        gains = _seq(k, float(s), 1.0 - alpha)
        total = 0.0
        for i in range(k):
            total += gains[i] * disc[i] if dcg else gains[i] / (i + 1.0)
        out[s == S] = total
    return out


def _by_topic_docno_descending(rows: np.ndarray, topic: np.ndarray, docs: np.ndarray
                               ) -> np.ndarray:
    """``rows`` sorted by topic, then docno descending (byte order)."""
    if docs.dtype.kind == "S":
        from relkit.metrics.ranking import _words

        words = ~_words(docs[rows])            # inverted words: descending byte order
        keys = [words[:, j] for j in reversed(range(words.shape[1]))]
        return rows[np.lexsort([*keys, topic[rows]])]
    ordered = sorted(rows.tolist(), key=lambda r: str(docs[r]).encode(), reverse=True)
    ordered.sort(key=lambda r: int(topic[r]))     # stable: docnos stay descending
    return np.asarray(ordered, dtype=np.int64)


def _starts(n: np.ndarray) -> np.ndarray:
    """Where each of consecutive blocks of sizes ``n`` starts."""
    return np.concatenate(([0], np.cumsum(n)[:-1])).astype(np.int64) if len(n) else n


def _ranges(first: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``first[i], first[i]+1, ..., first[i]+n[i]-1`` for every i, back to back."""
    total = int(n.sum())
    out: np.ndarray = np.repeat(first, n) + np.arange(total) - np.repeat(_starts(n), n)
    return out


def _div(a: np.ndarray, b: np.ndarray, where: np.ndarray) -> np.ndarray:
    """``a / b`` where ``where``, else 0 (a topic without relevant documents)."""
    out: np.ndarray = np.divide(a, b, out=np.zeros(len(a)), where=where)
    return out


@dataclass
class _Rows:
    """Relevant ranked rows of one ranking (a run, or the ideal), in rank order.

    ``tid`` topic (evaluated index), ``pos`` 0-based rank, ``score`` ndeval's gain;
    pairs: one per (row, relevant subtopic), with its topic, rank, subtopic and how
    many earlier rows of the topic were relevant to that subtopic (``prior``).
    """

    tid: np.ndarray
    pos: np.ndarray
    score: np.ndarray
    p_tid: np.ndarray
    p_pos: np.ndarray
    p_sub: np.ndarray
    p_prior: np.ndarray


class _Prepared:
    """Subtopic qrels at one relevance level, arranged for evaluation."""

    def __init__(self, q: SubtopicQrels, level: int) -> None:
        self.topics = q.topics
        T = len(self.topics)
        qc, sc, jp = q.q, q.s, q.pair
        p_topic = q.pair_topic                     # per judged (topic, doc) pair
        positive = q.relevance >= level
        relevant = np.zeros(len(p_topic), bool)
        relevant[jp[positive]] = True
        # Relevant documents numbered per topic in docno *descending* order, so that the
        # greedy ideal's argmax (first of equal gains) takes the greatest docno, as ndeval.
        rp = _by_topic_docno_descending(np.flatnonzero(relevant), p_topic, q.pair_doc)
        n_rel = np.bincount(p_topic[rp], minlength=T)
        self.doc_base = np.concatenate(([0], np.cumsum(n_rel)))
        local = np.full(len(p_topic), -1, np.int64)
        local[rp] = np.arange(len(rp)) - self.doc_base[p_topic[rp]]
        self.n_rel = n_rel
        # (relevant doc, subtopic) pairs, subtopics ascending within a document.
        g = self.doc_base[qc[positive]] + local[jp[positive]]
        s = sc[positive]
        order = np.lexsort((s, g))
        self.pair_sub = s[order]
        self.pair_off = np.concatenate(([0], np.cumsum(np.bincount(g, minlength=len(rp)))))
        # Subtopics with a relevant document per topic (|S|), and their relevant counts.
        self.n_sub = max(q.n_subtopics, 1)
        ts, ts_count = np.unique(qc[positive].astype(np.int64) * self.n_sub + s,
                                 return_counts=True)
        self.ts_topic = ts // self.n_sub
        self.ts_sub = ts % self.n_sub
        self.ts_count = ts_count
        self.S = np.bincount(self.ts_topic, minlength=T)
        # Plain qrels for the ranking module: grade = 1 + the document's number, for the
        # relevant documents only (any other run document is not relevant, judged or
        # not); a topic without one keeps a judged document at grade 0, so that it is
        # still a qrels topic (evaluated, scoring 0).
        keep = relevant.copy()
        one_each = np.full(T, -1)
        one_each[p_topic] = np.arange(len(p_topic))      # some judged pair of each topic
        keep[one_each[n_rel == 0]] = True
        rows = np.flatnonzero(keep)
        grade = np.where(relevant[rows], local[rows] + 1, 0)
        ids = {"query_id": q.topic_ids[p_topic[rows]], "doc_id": q.pair_doc[rows]}
        if any(v.dtype.kind == "O" for v in ids.values()):
            # ids bytes cannot hold: as str, which the ranking keeps as Arrow strings
            ids = {k: [x.decode() if isinstance(x, bytes) else x for x in v.tolist()]
                   for k, v in ids.items()}
        plain = Qrels({**ids, "relevance": grade.astype(np.int64)}, q.source)
        self.judged = JudgedTopics.prepare(plain)
        # both orders are strcmp's, so a topic's code is the same in each
        assert self.judged.topics == self.topics
        self._ideal: dict[tuple[float, int], tuple[np.ndarray, np.ndarray, np.ndarray]] = {}

    def rows(self, tid: np.ndarray, pos: np.ndarray, g: np.ndarray, alpha: float) -> _Rows:
        """Pairs and gains of relevant rows (``g``: relevant-document numbers)."""
        cnt = self.pair_off[g + 1] - self.pair_off[g]
        total = int(cnt.sum())
        row = np.repeat(np.arange(len(g)), cnt)
        p_sub = self.pair_sub[_ranges(self.pair_off[g], cnt)]
        p_tid, p_pos = tid[row], pos[row]
        order = np.lexsort((p_pos, p_sub, p_tid))
        key_t, key_s = p_tid[order], p_sub[order]
        new = np.ones(total, bool)
        new[1:] = (key_t[1:] != key_t[:-1]) | (key_s[1:] != key_s[:-1])
        idx = np.arange(total)
        start = np.maximum.accumulate(np.where(new, idx, 0)) if total else idx
        prior = np.empty(total, np.int64)
        prior[order] = idx - start
        top = int(prior.max()) + 1 if total else 1
        gains = _seq(top, 1.0, 1.0 - alpha)[prior]
        # bincount adds in array order: each row's gains in subtopic order, as ndeval
        score = np.bincount(row, weights=gains, minlength=len(g))
        return _Rows(tid, pos, score, p_tid, p_pos, p_sub, prior)

    def ideal(self, depth: int, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """ndeval's greedy ideal ranking to ``depth``: (topic, rank, gain) of its relevant
        rows, for every qrels topic."""
        key = (alpha, depth)
        if key not in self._ideal:
            self._ideal[key] = self._greedy(depth, alpha)
        return self._ideal[key]

    def _greedy(self, depth: int, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        T = len(self.topics)
        # each topic's subtopics numbered locally, ascending in the global order
        sub_local = np.zeros(T * self.n_sub, np.int64)
        first_of = np.concatenate(([0], np.cumsum(self.S)))
        sub_local[self.ts_topic * self.n_sub + self.ts_sub] = (
            np.arange(len(self.ts_topic)) - first_of[self.ts_topic])
        out_t: list[np.ndarray] = []
        out_p: list[np.ndarray] = []
        out_s: list[np.ndarray] = []
        by_size = np.argsort(self.n_rel, kind="stable")
        by_size = by_size[self.n_rel[by_size] > 0]
        i = 0
        sizes, subs = self.n_rel[by_size].tolist(), self.S[by_size].tolist()
        while i < len(by_size):
            # a block of topics of similar size whose dense array stays small
            j, widest = i + 1, subs[i]
            while j < len(by_size) and (j + 1 - i) * sizes[j] * max(widest, subs[j]) \
                    <= _GREEDY_CELLS:
                widest = max(widest, subs[j])
                j += 1
            block = by_size[i:j]
            t, p, s = self._greedy_block(block, depth, alpha, sub_local)
            out_t.append(t)
            out_p.append(p)
            out_s.append(s)
            i = j
        if not out_t:
            return np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(0)
        t_all, p_all, s_all = (np.concatenate(x) for x in (out_t, out_p, out_s))
        order = np.lexsort((p_all, t_all))
        return t_all[order], p_all[order], s_all[order]

    def _greedy_block(self, block: np.ndarray, depth: int, alpha: float,
                      sub_local: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        B = len(block)
        D = int(self.n_rel[block].max())
        J = int(self.S[block].max())
        rel = np.zeros((B, D, J), bool)
        n = self.n_rel[block]
        bi = np.repeat(np.arange(B), n)
        di = np.arange(int(n.sum())) - np.repeat(_starts(n), n)
        g = np.repeat(self.doc_base[block], n) + di
        cnt = self.pair_off[g + 1] - self.pair_off[g]
        subs = self.pair_sub[_ranges(self.pair_off[g], cnt)]
        pb, pd_ = np.repeat(bi, cnt), np.repeat(di, cnt)
        rel[pb, pd_, sub_local[block[pb] * self.n_sub + subs]] = True
        avail = np.arange(D)[None, :] < self.n_rel[block][:, None]
        gain = np.ones((B, J))
        steps = min(depth, D)
        chosen_score = np.zeros((B, steps))
        has = np.zeros((B, steps), bool)
        rows = np.arange(B)
        factor = 1.0 - alpha
        for step in range(steps):
            score = np.zeros((B, D))
            for j in range(J):   # subtopics in order: ndeval's order of addition
                score += np.where(rel[:, :, j], gain[:, j][:, None], 0.0)
            score[~avail] = -np.inf
            w = np.argmax(score, axis=1)        # first maximum: the greatest docno
            ok = avail[rows, w]
            has[:, step] = ok
            chosen_score[ok, step] = score[rows[ok], w[ok]]
            avail[rows[ok], w[ok]] = False
            hit = rel[rows[ok], w[ok], :]
            gain[ok] = np.where(hit, gain[ok] * factor, gain[ok])
        bt, bp = np.nonzero(has)
        return block[bt], bp, chosen_score[bt, bp]


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
    >>> from relkit.metrics.diversity import DiversityEvaluator
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
        for part, part_codes in _topic_chunks(run, prep.judged, CHUNK_ROWS):
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
    order = np.lexsort((r.p_pos, r.p_sub, r.p_tid))
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


def ndeval_families() -> list[str]:
    """The registered family names (for help texts)."""
    return list(REGISTRY)
