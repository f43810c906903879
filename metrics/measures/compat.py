"""Compatibility (Clarke, Vtyurina & Smucker 2020): how close a ranking is to an ideal one.

The ideal ranking lists the topic's relevant documents, higher grade first; documents of
one grade are put in the order the run ranks them, and the ones it did not retrieve
after those (the ideal most compatible with the run, as in the authors' code and
ir_measures' ``Compat``). Rank-biased overlap (Webber, Moffat & Zobel 2010) with
persistence p, taken to depth d = max(n, |ideal|), compares the two; normalised, it is
divided by the ideal's overlap with itself.

Ties in the run's scores are broken as everywhere in relkit (trec_eval's rule: docno
descending); ir_measures sorts tied documents by docno ascending, so runs with ties can
differ from it (the same on any tie-free run).

Negative scores: the authors' code (claclark/Compatibility, ``idealize``) orders a grade's
documents by their rank in the run, the ones not retrieved last; relkit does the same.
ir_measures' provider sorts them by run score, giving a document not retrieved the score
0.0, so on a run with negative scores it puts the relevant documents the run missed
*before* those it retrieved, and scores differ (qrels a and b relevant, run ``a -1``:
relkit 0.7564, as the authors' code; ir_measures 0.2436). relkit's value depends on the
ranking only, so a run with negative scores gets what ir_measures gives once the scores
are shifted above 0 (tests/test_measures_compat.py).
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.core.params import Param
from relkit.metrics.measures.base import Family
from relkit.metrics.measures.context import Ctx, segment_cumsum
from relkit.metrics.measures.named import Named, Value


def compat(ctx: Ctx, value: Value) -> np.ndarray:
    r"""Compatibility: normalised rank-biased overlap with the ideal ranking.

    .. math:: RBO(r, I) = \frac{\sum_{i=1}^{d} p^{i-1} |r_{:i} \cap I_{:i}| / i}
                               {\sum_{i=1}^{d} p^{i-1}}, \qquad
              Compat = \frac{RBO(r, I)}{RBO(I, I)}

    with I the ideal ranking (relevant documents, grade >= the relevance level, at least
    1; higher grades first, then in the run's order) and d = max(n, |I|).
    ``normalize=False`` gives RBO(r, I) itself. 0 on a topic without a relevant
    document; on an empty ranking (``-c``) 0. Within a grade the ideal follows the run's
    ranks, not its scores (as the authors' code): on negative scores ir_measures, which
    gives a document not retrieved the score 0.0, puts the relevant documents the run
    missed first and differs (qrels a, b relevant, run ``a -1``: relkit 0.7564,
    ir_measures 0.2436).

    Reference: C. L. A. Clarke, A. Vtyurina, M. D. Smucker, "Assessing top-k preferences",
    TOIS 39(3), 2021 (and "Offline evaluation without gain", ICTIR 2020).
    """
    v = dict(value)
    p, normalize = float(v["p"]), bool(v["normalize"])
    lvl = max(ctx.level, 1)
    # ideal size per topic: judged documents at the level or above
    L = ctx.levels[:, lvl:].sum(axis=1) if ctx.levels.shape[1] > lvl else np.zeros(ctx.T, int)
    depth = np.maximum(ctx.n, L).astype(np.int64)
    off = np.concatenate(([0], np.cumsum(depth)))
    total = int(off[-1])
    seg_tid = np.repeat(np.arange(ctx.T), depth)
    i = (np.arange(total) - off[:-1][seg_tid] + 1).astype(np.float64)
    # weight p^(i-1), multiplied step by step as the reference loop does
    w = np.ones(total)
    if total:
        steps = np.full(total, p)
        steps[off[:-1][depth > 0]] = 1.0
        w = segment_cumprod(steps, off)

    # Each relevant retrieved document adds 1 to the overlap from rank
    # max(its run rank, its ideal rank) on.
    rows = np.flatnonzero(ctx.rel >= lvl)
    t = ctx.tid[rows]
    grade = ctx.rel[rows]
    top = ctx.levels.shape[1]
    # documents of a higher grade come first in the ideal ...
    above = np.zeros((ctx.T, top + 1), dtype=np.int64)
    if top > lvl:
        counts = np.zeros((ctx.T, top), dtype=np.int64)
        counts[:, lvl:] = ctx.levels[:, lvl:]
        above[:, :top] = np.cumsum(counts[:, ::-1], axis=1)[:, ::-1]
    higher = above[t, grade + 1]
    # ... then those of the same grade, in the run's order
    key = t.astype(np.int64) * (top + 1) + grade
    order = np.argsort(key, kind="stable")
    sk = key[order]
    first = np.r_[True, sk[1:] != sk[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(sk)), 0))
    same_above = np.empty(len(rows), dtype=np.int64)
    same_above[order] = np.arange(len(sk)) - start
    ideal_rank = higher + same_above + 1
    enter = np.maximum(ctx.pos[rows] + 1, ideal_rank)
    cnt = np.bincount(off[:-1][t] + enter - 1, minlength=total).astype(np.float64)
    overlap = segment_cumsum(cnt, off)

    norm = np.bincount(seg_tid, weights=w, minlength=ctx.T)
    score = np.bincount(seg_tid, weights=w * overlap / i, minlength=ctx.T)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = np.where(norm > 0, score / norm, 0.0)
        if normalize:
            best = np.bincount(seg_tid, weights=w * np.minimum(i, L[seg_tid]) / i,
                               minlength=ctx.T)
            best = np.where(norm > 0, best / norm, 0.0)
            out = np.where(best > 0, out / best, out)
    return out


def segment_cumprod(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Running product within each segment (see :func:`relkit.metrics.measures.err.
    segment_cumprod`)."""
    from relkit.metrics.measures.err import segment_cumprod as impl

    return impl(values, offsets)


# Registered by relkit.metrics.measures.families, in its order.
FAMILIES: tuple[Family, ...] = (
    Family("compat", "mean", "float", "named", "", compat,
           "Compatibility: rank-biased overlap with the ideal ranking (Clarke et al.)",
           doc=compat.__doc__ or "", trec=False, readable="Compat",
           named=Named("Compat", (Param("p", float, 0.95, "persistence", 0, 1, open_low=True),
                                  Param("normalize", bool, True, "divide by the ideal's")))),
)
