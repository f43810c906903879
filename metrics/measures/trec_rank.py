"""trec_eval's rank-based measures: AP, precision, recall and friends.

Each function computes one measure for all topics at once from a
:class:`~relkit.metrics.measures.context.Ctx`. Formulas follow trec_eval 10
(usnistgov/trec_eval, the ``m_*.c`` file named in each docstring); "rel" means
grade >= the relevance level (``-l``), R is the number of judged relevant
documents of the topic, n the number retrieved.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.measures.context import Ctx, safe_div


def num_ret(ctx: Ctx, _: None) -> np.ndarray:
    """Documents retrieved, n (``m_num_ret.c``). Summed over topics."""
    return ctx.n.astype(np.float64)


def num_rel(ctx: Ctx, _: None) -> np.ndarray:
    """Judged relevant documents, R (``m_num_rel.c``). Summed over topics."""
    return ctx.R.astype(np.float64)


def num_rel_ret(ctx: Ctx, _: None) -> np.ndarray:
    """Relevant documents retrieved, a (``m_num_rel_ret.c``). Summed."""
    return ctx.num_rel_ret.astype(np.float64)


def num_nonrel_judged_ret(ctx: Ctx, _: None) -> np.ndarray:
    """Judged non-relevant documents retrieved: n - nonpool - unjudged - a."""
    judged = np.bincount(ctx.tid[ctx.rel >= 0], minlength=ctx.T)
    return (judged - ctx.num_rel_ret).astype(np.float64)


def ap(ctx: Ctx, _: None) -> np.ndarray:
    r"""Average precision (``m_map.c``).

    .. math:: AP = \frac{1}{R} \sum_{i:\,rel(i)} P@i

    0 when R = 0 or nothing relevant is retrieved. Reference: Harman, TREC-1.
    """
    total = np.bincount(ctx.rel_tid, weights=ctx.precision_at_rel, minlength=ctx.T)
    return safe_div(total, ctx.R)


def map_cut(ctx: Ctx, k: int) -> np.ndarray:
    """AP with the sum truncated at rank k, still divided by R (``m_map_cut.c``)."""
    top = ctx.pos[ctx.rel_rows] < k
    total = np.bincount(ctx.rel_tid[top], weights=ctx.precision_at_rel[top], minlength=ctx.T)
    return safe_div(total, ctx.R)


def rprec(ctx: Ctx, _: None) -> np.ndarray:
    """R-precision: relevant in the top R, divided by R (``m_Rprec.c``)."""
    return safe_div(ctx.rel_in_top(ctx.R), ctx.R)


def recip_rank(ctx: Ctx, _: None) -> np.ndarray:
    """Reciprocal rank of the first relevant document, 0 if none (``m_recip_rank.c``)."""
    out = np.zeros(ctx.T)
    rows = np.flatnonzero(ctx.is_rel)
    if len(rows):
        first = np.full(ctx.T, -1)
        t = ctx.tid[rows]
        # rows are in rank order: the first row seen per topic is its best rank
        keep = np.r_[True, t[1:] != t[:-1]]
        first[t[keep]] = ctx.pos[rows[keep]]
        ok = first >= 0
        out[ok] = 1.0 / (first[ok] + 1.0)
    return out


def precision(ctx: Ctx, k: int) -> np.ndarray:
    """P@k: relevant in the top k divided by k, even when n < k (``m_P.c``)."""
    return ctx.rel_in_top(k) / float(k)


def recall(ctx: Ctx, k: int) -> np.ndarray:
    """Recall@k: relevant in the top k divided by R, 0 if R = 0 (``m_recall.c``)."""
    return safe_div(ctx.rel_in_top(k), ctx.R)


def relative_precision(ctx: Ctx, k: int) -> np.ndarray:
    """Relevant in the top k divided by min(k, R) (``m_rel_P.c``)."""
    return safe_div(ctx.rel_in_top(k), np.minimum(k, ctx.R))


def success(ctx: Ctx, k: int) -> np.ndarray:
    """1 if a relevant document is in the top k, else 0 (``m_success.c``)."""
    return (ctx.rel_in_top(k) > 0).astype(np.float64)


def rprec_mult(ctx: Ctx, x: float) -> np.ndarray:
    """Precision at rank c = floor(x R + 0.9), not interpolated (``m_Rprec_mult.c``)."""
    c = np.floor(x * ctx.R + 0.9).astype(np.int64)
    return safe_div(ctx.rel_in_top(c), c)


def _suffix_max(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Max of each element and all later ones in its segment (exact, O(n log n))."""
    out = values.copy()
    seg_end = np.repeat(offsets[1:], np.diff(offsets))
    idx = np.arange(len(values))
    step = 1
    longest = int(np.diff(offsets).max()) if len(offsets) > 1 else 0
    while step < longest:
        j = idx + step
        ok = j < seg_end
        out[ok] = np.maximum(out[ok], out[j[ok]])
        step *= 2
    return out


def _recall_count(ctx: Ctx, x: float) -> np.ndarray:
    xr = x * ctx.R.astype(np.float64)
    if ctx.compat >= 10:
        # C lround: half away from zero (values are >= 0 here)
        k = np.floor(xr)
        return (k + (xr - k >= 0.5)).astype(np.int64)
    return np.floor(xr + 0.9).astype(np.int64)


def iprec_at_recall(ctx: Ctx, x: float) -> np.ndarray:
    """Interpolated precision at recall x (``m_iprec_at_recall.c``).

    The recall point maps to a count c of relevant documents: ``lround(x R)``
    in trec_eval 10, ``floor(x R + 0.9)`` in 9.0.8. The value is the highest
    precision at or below the rank of the c-th relevant document (the whole
    list when c = 0), 0 when fewer than c are retrieved, NaN when n = 0.
    Reference: Salton & McGill (1983), interpolated precision.
    """
    a = ctx.num_rel_ret
    rel_off = np.concatenate(([0], np.cumsum(a)))
    best = _suffix_max(ctx.precision_at_rel, rel_off)
    c = _recall_count(ctx, x)
    out = np.zeros(ctx.T)
    first = (c == 0) & (a > 0)
    out[first] = best[rel_off[:-1][first]]
    mid = (c >= 1) & (c <= a)
    out[mid] = best[rel_off[:-1][mid] + c[mid] - 1]
    out[(ctx.n == 0) & (c == 0)] = np.nan      # 0/0 in the C code
    return out


def eleven_pt_avg(ctx: Ctx, points: tuple[float, ...]) -> np.ndarray:
    """Mean interpolated precision over recall points, summed from the highest
    point down as trec_eval does (``m_11pt_avg.c``)."""
    total = np.zeros(ctx.T)
    for x in sorted(points, reverse=True):
        total = total + iprec_at_recall(ctx, x)
    return total / len(points)


def yaap(ctx: Ctx, _: None) -> np.ndarray:
    """Yet another AP: log((1 + S) / (1 + R - S)), S = sum of precision at each
    relevant retrieved document (``m_yaap.c``)."""
    s = np.bincount(ctx.rel_tid, weights=ctx.precision_at_rel, minlength=ctx.T)
    return np.log((1.0 + s) / (1.0 + ctx.R - s))


def utility(ctx: Ctx, p: tuple[float, ...]) -> np.ndarray:
    """Linear utility p1 a + p2 (n - a) + p3 (R - a) + p4 (N + a - n - R)
    with N from ``-N`` (``m_utility.c``)."""
    a = ctx.num_rel_ret.astype(np.float64)
    n = ctx.n.astype(np.float64)
    R = ctx.R.astype(np.float64)
    N = float(ctx.num_docs)
    return p[0] * a + p[1] * (n - a) + p[2] * (R - a) + p[3] * (N + a - n - R)


def set_p(ctx: Ctx, _: None) -> np.ndarray:
    """Set precision a / n over everything retrieved (``m_set_P.c``).

    0 on an empty ranking; on a topic with no relevant documents, 0.
    Reference: van Rijsbergen (1979), ch. 7."""
    return safe_div(ctx.num_rel_ret, ctx.n)


def set_relative_p(ctx: Ctx, _: None) -> np.ndarray:
    """Relative set precision a / min(n, R) (``m_set_rel_P.c``): precision that
    can reach 1 even when fewer than n documents are relevant. 0 on an empty
    ranking or when R = 0."""
    return safe_div(ctx.num_rel_ret, np.minimum(ctx.n, ctx.R))


def set_recall(ctx: Ctx, _: None) -> np.ndarray:
    """Set recall a / R over everything retrieved (``m_set_recall.c``).

    0 on an empty ranking and when R = 0. Reference: van Rijsbergen (1979)."""
    return safe_div(ctx.num_rel_ret, ctx.R)


def set_map(ctx: Ctx, _: None) -> np.ndarray:
    """Set precision times set recall, a^2 / (n R) (``m_set_map.c``)."""
    a = ctx.num_rel_ret.astype(np.float64)
    return safe_div(a * a, ctx.n.astype(np.float64) * ctx.R)


def set_f(ctx: Ctx, beta2: tuple[float, ...]) -> np.ndarray:
    r"""Set F with trec_eval's parameter used as beta squared (``m_set_F.c``).

    .. math:: F = \frac{(x + 1) P R_c}{x P + R_c}

    0 when nothing relevant is retrieved. Reference: van Rijsbergen (1979).
    """
    x = beta2[0]
    p, r = set_p(ctx, None), set_recall(ctx, None)
    return safe_div((x + 1.0) * p * r, x * p + r) * (ctx.num_rel_ret > 0)
