"""Subtopic qrels arranged for evaluation, ndeval's greedy ideal ranking, and the gains
of a ranking's relevant rows (used by :mod:`relkit.metrics.diversity.evaluator`).

Sums run in ndeval's order (``np.bincount`` adds in array order) and running gains are
kept by repeated multiplication, so that no floating-point result differs from ndeval's.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from relkit.metrics.data import Qrels
from relkit.metrics.diversity.subtopics import SubtopicQrels
from relkit.metrics.judged import JudgedTopics

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
        from relkit.metrics.ranking import byte_words

        words = ~byte_words(docs[rows])            # inverted words: descending byte order
        order = _grouped_lexsort(words, topic[rows])
        if order is not None:
            out: np.ndarray = rows[order]
            return out
        keys = [words[:, j] for j in reversed(range(words.shape[1]))]
        return rows[np.lexsort([*keys, topic[rows]])]
    ordered = sorted(rows.tolist(), key=lambda r: str(docs[r]).encode(), reverse=True)
    ordered.sort(key=lambda r: int(topic[r]))     # stable: docnos stay descending
    return np.asarray(ordered, dtype=np.int64)


def _grouped_lexsort(words: np.ndarray, group: np.ndarray) -> np.ndarray | None:
    """The order sorting rows by ``group``, then by ``words`` (columns most significant
    first), when ``group`` is non-decreasing and no row's first word is the all-ones
    padding; None otherwise.

    Each group's rows are one row of a groups x largest-group grid, sorted a word at a
    time (least significant first, stable): sorting many short rows is several times
    faster than ``np.lexsort`` over everything. Padding cells hold the all-ones word;
    the last pass, on the first word, puts them after every real row.
    """
    n = len(group)
    pad = np.uint64(np.iinfo(np.uint64).max)
    if not n or np.any(group[1:] < group[:-1]) or np.any(words[:, 0] == pad):
        return None
    starts = np.flatnonzero(np.concatenate(([True], group[1:] != group[:-1])))
    sizes = np.diff(np.append(starts, n))
    width = int(sizes.max())
    if len(sizes) * width > 4 * n + 4096:          # very uneven groups: a flat sort
        return None
    block = np.repeat(np.arange(len(sizes)), sizes)
    col = np.arange(n) - np.repeat(starts, sizes)
    cell = np.full((len(sizes), width), n, np.int64)   # the input row of each cell
    cell[block, col] = np.arange(n)
    perm = cell
    for j in reversed(range(words.shape[1])):
        key = np.append(words[:, j], pad)[perm]        # row n: the padding
        perm = np.take_along_axis(perm, np.argsort(key, axis=1, kind="stable"), axis=1)
    out: np.ndarray = perm[perm < n]
    return out


def _by_topic_subtopic_rank(tid: np.ndarray, sub: np.ndarray, pos: np.ndarray, n_sub: int
                            ) -> np.ndarray:
    """The order sorting (row, subtopic) pairs by topic, subtopic, rank: one sort of a
    single 64-bit key (unique: a topic's rank is one document, its subtopics distinct),
    ``np.lexsort`` of the three when the key would not fit."""
    if not len(tid):
        return np.zeros(0, np.int64)
    n_pos = int(pos.max()) + 1
    if (int(tid.max()) + 1) * n_sub * n_pos >= 1 << 62:
        return np.lexsort((pos, sub, tid))
    key = (tid.astype(np.int64) * n_sub + sub) * n_pos + pos
    out: np.ndarray = np.argsort(key)
    return out


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
        rows = rows[np.argsort(p_topic[rows], kind="stable")]   # a topic's rows together
        grade = np.where(relevant[rows], local[rows] + 1, 0).astype(np.int64)
        ids = {"query_id": q.topic_ids[p_topic[rows]], "doc_id": q.pair_doc[rows]}
        if any(v.dtype.kind == "O" for v in ids.values()):
            # ids bytes cannot hold: as str, which the ranking keeps as Arrow strings
            ids = {k: [x.decode() if isinstance(x, bytes) else x for x in v.tolist()]
                   for k, v in ids.items()}
            self.judged = JudgedTopics.prepare(Qrels({**ids, "relevance": grade}, q.source))
        else:
            # The topics are coded already and the pairs are distinct: built directly,
            # not by JudgedTopics.prepare, which would decode and code every topic id
            # again (a second the size of the plain qrels' own preparation).
            # The "grades" here are document numbers, not levels: the ranking reads only
            # grade >= 1 (relevant), so the level counts are 0 and relevant (a table to
            # the highest number could take gigabytes; prepare refused it past 2**25).
            levels = np.stack((np.bincount(p_topic[rows], minlength=T) - n_rel, n_rel),
                              axis=1).astype(np.int64)
            index = {t: i for i, t in enumerate(self.topics)}
            self.judged = JudgedTopics(Qrels({**ids, "relevance": grade}, q.source),
                                       list(self.topics), index,
                                       p_topic[rows].astype(np.int32), ids["doc_id"], grade,
                                       levels)
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
        order = _by_topic_subtopic_rank(p_tid, p_sub, p_pos, self.n_sub)
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
        # one contiguous documents grid per subtopic: a subtopic's gains are a product
        # (0.0 or the gain, as adding nothing leaves a sum as it is), not a gather
        by_sub = np.ascontiguousarray(rel.transpose(2, 0, 1))
        term = np.empty((B, D))
        for step in range(steps):
            score = np.zeros((B, D))
            for j in range(J):   # subtopics in order: ndeval's order of addition
                np.multiply(by_sub[j], gain[:, j, None], out=term)
                score += term
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
