"""Graded measures: the nDCG family, G and RBP, as trec_eval computes them.

Gains (``gain_init.c``): a document's gain is its qrels grade unless a
``level=gain`` parameter overrides it (values stored as C floats); documents
outside the pool or judged negative earn 0. The **ideal list** walks the
topic's gain table from the highest gain down, emitting each level's documents,
and stops at the first populated level whose gain is <= 0. The discount is
1 / log2(rank + 1).

trec_eval sorts the gain table with a comparator that truncates the gain
difference to an int; we replay glibc's merge sort with that comparator so
fractional gains order exactly as trec_eval orders them.
"""

from __future__ import annotations

from functools import cache

import numpy as np

from relkit.metrics.core.record import Record
from relkit.metrics.measures.context import Ctx, Ints, safe_div, segment_cumsum

Pairs = tuple[tuple[str, float], ...]


def powers(p: float, count: int) -> np.ndarray:
    """[1, p, p*p, ...] multiplied step by step, as the C loops do."""
    seq = np.full(max(count, 1), p)
    seq[0] = 1.0
    return np.cumprod(seq)


def _is_int(text: str) -> bool:
    body = text[1:] if text[:1] in "+-" else text
    return body.isdigit()


def _msort(items: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """glibc ``msort`` (top-down merge sort) with trec_eval's ``comp_rel_gain``,
    which returns the gain difference truncated to an int."""
    if len(items) <= 1:
        return items
    n1 = len(items) // 2
    a, b = _msort(items[:n1]), _msort(items[n1:])
    out = []
    i = j = 0
    while i < len(a) and j < len(b):
        if int(a[i][1] - b[j][1]) <= 0:
            out.append(a[i])
            i += 1
        else:
            out.append(b[j])
            j += 1
    return out + a[i:] + b[j:]


@cache
def _walk(custom: Pairs, max_level: int) -> tuple[tuple[int, float], ...]:
    """Gain table of a topic whose highest grade is ``max_level``, highest first."""
    table: list[tuple[int, float]] = []
    for key, gain in custom:
        if _is_int(key):
            table.append((int(key), gain))
    known = {lvl for lvl, _ in table}
    for lvl in range(max_level + 1):
        if lvl not in known:
            table.append((lvl, float(lvl)))
    return tuple(reversed(_msort(table)))


class Gains(Record):
    """Row gains and per-topic ideal gain lists for one gain setting."""

    row: np.ndarray          # gain of each ranked row
    ideal: np.ndarray        # ideal gains of all topics, back to back
    ideal_off: Ints          # topic t owns ideal[ideal_off[t]:ideal_off[t+1]]
    table_min: np.ndarray    # per topic min / max gain of its table (for RBP)
    table_max: np.ndarray
    dcg_cum: np.ndarray | None = None    # cached running DCG of the ranking
    idcg_cum: np.ndarray | None = None   # cached running DCG of the ideal list


def gains(ctx: Ctx, custom: Pairs = ()) -> Gains:
    """Build the gains for ``ctx`` (cached per gain setting)."""
    cache_: dict[Pairs, Gains] = ctx.__dict__.setdefault("_gains", {})
    if custom in cache_:
        return cache_[custom]
    levels = ctx.levels
    K = levels.shape[1]
    nz = levels > 0
    max_level = np.where(nz.any(axis=1), K - 1 - np.argmax(nz[:, ::-1], axis=1), -1)
    # level -> gain; the first custom pair for a level wins, as in get_gain
    lookup_pos: dict[int, float] = {}
    neg: dict[int, float] = {}
    for key, g in custom:
        if _is_int(key):
            lvl = int(key)
            (lookup_pos if lvl >= 0 else neg).setdefault(lvl, g)
    T = ctx.T
    ideal_parts: list[np.ndarray] = []
    ideal_tids: list[np.ndarray] = []
    tmin = np.zeros(T)
    tmax = np.zeros(T)
    for m in sorted(set(max_level.tolist())):   # not np.unique: it imports numpy.ma
        rows = np.flatnonzero(max_level == m)
        walk = _walk(custom, int(m))
        if walk:
            gs = np.array([g for _, g in walk])
            tmin[rows], tmax[rows] = gs.min(), gs.max()
        cols = [lvl for lvl, _ in walk]
        gvec = np.array([g for _, g in walk], dtype=np.float64)
        counts = np.zeros((len(rows), len(cols)), dtype=np.int64)
        for j, lvl in enumerate(cols):
            if 0 <= lvl < K:
                counts[:, j] = levels[rows, lvl]
        stop = (counts > 0) & (gvec[None, :] <= 0)
        if stop.size:
            first = np.where(stop.any(axis=1), np.argmax(stop, axis=1), len(cols))
            counts[np.arange(len(cols))[None, :] >= first[:, None]] = 0
        flat = np.repeat(np.tile(gvec, len(rows)), counts.ravel())
        ideal_parts.append(flat)
        ideal_tids.append(np.repeat(rows, counts.sum(axis=1)))
    ideal = np.concatenate(ideal_parts) if ideal_parts else np.zeros(0)
    tids = np.concatenate(ideal_tids) if ideal_tids else np.zeros(0, np.int64)
    order = np.argsort(tids, kind="stable")
    ideal = ideal[order]
    ideal_off = np.concatenate(([0], np.cumsum(np.bincount(tids, minlength=T))))
    rel = ctx.rel
    maxrel = int(rel.max()) if len(rel) else 0
    lut = np.arange(max(maxrel, 0) + 1, dtype=np.float64)
    for lvl, g in lookup_pos.items():
        if lvl < len(lut):
            lut[lvl] = g
    row = np.where(rel >= 0, lut[np.clip(rel, 0, None)], 0.0)
    for lvl, g in neg.items():
        row[rel == lvl] = g
    out = Gains(row, ideal, ideal_off, tmin, tmax)
    cache_[custom] = out
    return out


def _disc(pos: np.ndarray) -> np.ndarray:
    return np.log2(pos + 2.0)


def _dcg_cum(ctx: Ctx, g: Gains) -> np.ndarray:
    if g.dcg_cum is None:   # shared by ndcg, dcg, ndcg_cut... with the same gains
        g.dcg_cum = segment_cumsum(g.row / _disc(ctx.pos), ctx.offsets)
    return g.dcg_cum


def _ideal_pos(g: Gains) -> np.ndarray:
    sizes = np.diff(g.ideal_off)
    return np.arange(len(g.ideal)) - np.repeat(g.ideal_off[:-1], sizes)


def _idcg_cum(g: Gains) -> np.ndarray:
    if g.idcg_cum is None:
        g.idcg_cum = segment_cumsum(g.ideal / _disc(_ideal_pos(g)), g.ideal_off)
    return g.idcg_cum


def _at(cum: np.ndarray, off: np.ndarray, depth: np.ndarray) -> np.ndarray:
    """cum value after ``depth`` items of each segment (0 for depth 0)."""
    size = np.diff(off)
    depth = np.minimum(depth, size)
    out = np.zeros(len(size))
    ok = depth > 0
    out[ok] = cum[off[:-1][ok] + depth[ok] - 1]
    return out


def dcg(ctx: Ctx, custom: Pairs) -> np.ndarray:
    """DCG over the whole ranking: sum of gain / log2(rank + 1) (``m_ndcg.c``,
    trec_eval 10 ``dcg``). Järvelin & Kekäläinen, TOIS 2002."""
    g = gains(ctx, custom)
    return _at(_dcg_cum(ctx, g), ctx.offsets, ctx.n)


def ideal_dcg(ctx: Ctx, custom: Pairs) -> np.ndarray:
    """DCG of the full ideal list, not truncated to n (trec_eval 10 ``ideal_dcg``)."""
    g = gains(ctx, custom)
    return _at(_idcg_cum(g), g.ideal_off, np.diff(g.ideal_off))


def ndcg(ctx: Ctx, custom: Pairs) -> np.ndarray:
    r"""nDCG = DCG(ranking) / DCG(full ideal list), 0 if the ideal is 0.

    Linear gains (the grade), discount 1/log2(rank+1), ideal list not cut at n
    (``m_ndcg.c``). Järvelin & Kekäläinen, TOIS 20(4), 2002.
    """
    return safe_div(dcg(ctx, custom), ideal_dcg(ctx, custom))


def ndcg_cut(ctx: Ctx, k: int) -> np.ndarray:
    """nDCG@k = DCG@k / IDCG@k with the grade as gain (no custom gains),
    0 if IDCG@k = 0 (``m_ndcg_cut.c``)."""
    g = gains(ctx, ())
    d = _at(_dcg_cum(ctx, g), ctx.offsets, np.full(ctx.T, k))
    i = _at(_idcg_cum(g), g.ideal_off, np.full(ctx.T, k))
    return safe_div(d, i)


def ndcg_rel(ctx: Ctx, custom: Pairs) -> np.ndarray:
    """nDCG averaged over the P positive-gain documents (``m_ndcg_rel.c``):
    a retrieved one at rank i adds DCG@i / IDCG@min(i, P); each one not
    retrieved adds DCG@n / IDCG@P; the sum is divided by P."""
    g = gains(ctx, custom)
    P = np.diff(g.ideal_off)
    dcum = _dcg_cum(ctx, g)
    icum = _idcg_cum(g)
    pos_rows = g.row > 0
    depth = np.minimum(ctx.pos + 1, P[ctx.tid])
    t = ctx.tid[pos_rows]
    idx = g.ideal_off[:-1][t] + depth[pos_rows] - 1
    with np.errstate(divide="ignore", invalid="ignore"):
        terms = dcum[pos_rows] / np.where(idx >= 0, icum[np.maximum(idx, 0)], 0.0)
    total = np.bincount(t, weights=terms, minlength=ctx.T)
    got = np.bincount(t, minlength=ctx.T)
    full_d = _at(dcum, ctx.offsets, ctx.n)
    full_i = _at(icum, g.ideal_off, P)
    with np.errstate(divide="ignore", invalid="ignore"):
        # same operation order as the C code: ((P - got) * dcg) / idcg
        total = total + (P - got) * full_d / full_i
        out = np.where(total > 0, total / P, 0.0)
    return np.nan_to_num(out, nan=0.0)


def rndcg(ctx: Ctx, custom: Pairs) -> np.ndarray:
    """nDCG averaged at the depths where the ideal gain changes (``m_Rndcg.c``).

    At each ideal-level boundary d (1 <= d <= P, the last being P) the point is
    DCG@min(d, n) / IDCG@d; when n > P + 1 one more point DCG@n / IDCG@P is
    taken. 0 when R = 0.
    """
    g = gains(ctx, custom)
    P = np.diff(g.ideal_off)
    dcum = _dcg_cum(ctx, g)
    icum = _idcg_cum(g)
    # boundary after ideal position i (0-based) when the next gain differs, or at P
    ipos = _ideal_pos(g)
    nxt = np.r_[g.ideal[1:], 0.0]
    last = ipos == (P[np.repeat(np.arange(ctx.T), P)] - 1)
    bnd = last | (g.ideal != nxt)
    bt = np.repeat(np.arange(ctx.T), P)[bnd]
    bd = ipos[bnd] + 1
    dd = np.minimum(bd, ctx.n[bt])
    dvals = np.zeros(len(bt))
    ok = dd > 0
    dvals[ok] = dcum[ctx.starts[bt[ok]] + dd[ok] - 1]
    ivals = icum[g.ideal_off[:-1][bt] + bd - 1]
    total = np.bincount(bt, weights=dvals / ivals, minlength=ctx.T).astype(np.float64)
    count = np.bincount(bt, minlength=ctx.T).astype(np.float64)
    extra = ctx.n > P + 1
    full_d = _at(dcum, ctx.offsets, ctx.n)
    full_i = _at(icum, g.ideal_off, P)
    ex = extra & (full_i > 0)
    total[ex] += full_d[ex] / full_i[ex]
    count[ex] += 1
    with np.errstate(divide="ignore", invalid="ignore"):
        out = total / count
    out[ctx.R == 0] = 0.0
    return out


def g_measure(ctx: Ctx, custom: Pairs) -> np.ndarray:
    """G (``m_G.c``): sum over retrieved documents with gain g != 0 of
    g / log2(2 + cost_i - got_i), cost_i = sum_{j<=i} max(ideal_j, 1) and
    got_i the cumulative gain, divided by the total ideal gain."""
    g = gains(ctx, custom)
    P = np.diff(g.ideal_off)
    ideal_row = np.zeros(len(ctx.rel))
    inside = ctx.pos < P[ctx.tid]
    ideal_row[inside] = g.ideal[g.ideal_off[:-1][ctx.tid[inside]] + ctx.pos[inside]]
    cost = segment_cumsum(np.where(ideal_row >= 1.0, ideal_row, 1.0), ctx.offsets)
    got = segment_cumsum(g.row, ctx.offsets)
    nz = g.row != 0
    with np.errstate(divide="ignore"):
        terms = g.row / np.log2(2.0 + cost - got)
    total = ctx.topic_sum(terms, nz)
    ideal_total = _at(segment_cumsum(g.ideal, g.ideal_off), g.ideal_off, P)
    return safe_div(total, ideal_total)


def rbp(ctx: Ctx, params: Pairs) -> np.ndarray:
    """Rank-biased precision (Moffat & Zobel, TOIS 27(1), 2008), ``m_rbp.c``.

    (1 - p) sum_i g'(i) p^(i-1), p = 0.9 unless ``rbp.p=...``. Gains are the
    grades (or ``level=gain``), mapped per topic to (g - min)/(max - min) over
    the topic's gain table when any lies outside [0, 1].
    """
    p = 0.9
    for key, val in params:
        if key == "p":
            p = val
    g = gains(ctx, params)
    row = g.row.copy()
    lo, hi = g.table_min[ctx.tid], g.table_max[ctx.tid]
    norm = ((lo < 0) | (hi > 1)) & (ctx.rel >= 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        row[norm] = (row[norm] - lo[norm]) / (hi[norm] - lo[norm])
    pw = powers(p, int(ctx.n.max()) + 1 if ctx.T else 1)
    nz = row != 0
    s = ctx.topic_sum(row * pw[ctx.pos], nz)
    return (1.0 - p) * s
