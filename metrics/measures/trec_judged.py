"""trec_eval's measures that treat unjudged documents specially.

bpref and infAP skip documents not in the pool; unj and rbp_resid count them;
relstring shows them. Sources: usnistgov/trec_eval ``m_bpref.c``,
``m_infap.c``, ``m_unjudged.c``, ``m_relstring.c``, ``m_binG.c``.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.judged import NONPOOL, UNJUDGED
from relkit.metrics.measures.context import Ctx, safe_div


def bpref(ctx: Ctx, _: None) -> np.ndarray:
    r"""Binary preference (Buckley & Voorhees, SIGIR 2004).

    .. math:: bpref = \frac{1}{R} \sum_{r} \left(1 - \frac{\min(k_r, R)}{\min(N, R)}\right)

    over relevant retrieved r, with k_r the judged non-relevant documents
    above r (the term is 1 when k_r = 0) and N the judged non-relevant count.
    Documents outside the pool or judged negative are skipped.
    """
    rows = ctx.rel_rows
    t = ctx.rel_tid
    k = ctx.count_through((ctx.rel >= 0) & (ctx.rel < ctx.level), rows)
    R = ctx.R[t]
    den = np.minimum(ctx.num_nonrel, ctx.R)[t].astype(np.float64)
    term = np.ones(len(rows))
    pos = k > 0
    term[pos] = 1.0 - np.minimum(k[pos], R[pos]) / den[pos]
    return safe_div(np.bincount(t, weights=term, minlength=ctx.T), ctx.R)


def infap(ctx: Ctx, _: None) -> np.ndarray:
    """Inferred AP (Yilmaz & Aslam, CIKM 2006), as ``m_infap.c`` computes it.

    Walking the ranking with 0-based index j, each relevant document adds 1 at
    j = 0 and otherwise
    ``1/(j+1) + j/(j+1) * (r-1+nr+u)/j * (r-1+eps)/(r-1+nr+2 eps)`` with r, nr,
    u the relevant, judged non-relevant and pooled-unjudged documents so far
    (eps = 1e-5); the sum is divided by R.
    """
    eps = 0.00001
    rows = ctx.rel_rows
    r = ctx.cum_rel[rows].astype(np.float64)
    nr = ctx.count_through((ctx.rel >= 0) & (ctx.rel < ctx.level), rows).astype(np.float64)
    u = ctx.count_through(ctx.rel == UNJUDGED, rows).astype(np.float64)
    j = ctx.pos[rows].astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (j + 1.0) + (j / (j + 1.0)) * ((r - 1 + nr + u) / j) * (
            (r - 1 + eps) / (r - 1 + nr + 2 * eps))
    term[j == 0] = 1.0
    return safe_div(np.bincount(ctx.rel_tid, weights=term, minlength=ctx.T), ctx.R)


def bin_g(ctx: Ctx, _: None) -> np.ndarray:
    """Binary G: (1/R) sum over relevant retrieved of 1/log2(2 + non-relevant
    documents above it, unjudged included) (``m_binG.c``)."""
    rows = ctx.rel_rows
    above = ctx.pos[rows] - (ctx.cum_rel[rows] - 1)
    term = 1.0 / np.log2(2.0 + above)
    return safe_div(np.bincount(ctx.rel_tid, weights=term, minlength=ctx.T), ctx.R)


def unjudged(ctx: Ctx, k: int) -> np.ndarray:
    """Fraction of the top k that is unjudged (not in qrels, or negative),
    divided by k (``m_unjudged.c``, trec_eval 10)."""
    return ctx.count_in_top(ctx.rel < 0, k) / float(k)


def judged(ctx: Ctx, k: int) -> np.ndarray:
    """Judged@k: documents with a (non-negative) judgment in the top k, over
    min(k, n); 0 when nothing is retrieved. Reference: ir_measures ``Judged``."""
    return safe_div(ctx.count_in_top(ctx.rel >= 0, k), np.minimum(k, ctx.n))


def relstring(ctx: Ctx, k: tuple[float, ...] | int) -> list[str]:
    """The first k grades as characters: digits, ``>`` above 9, ``-`` for a
    document outside the pool, ``.`` for a pooled unjudged one (``m_relstring.c``)."""
    depth = int(k[0]) if isinstance(k, tuple) else int(k)
    rel = ctx.rel
    codes = np.where(rel > 9, ord(">"), np.where(rel >= 0, ord("0") + np.clip(rel, 0, 9),
                     np.where(rel == NONPOOL, ord("-"), ord("."))))
    raw = codes.astype(np.uint8).tobytes()
    out = []
    for t in range(ctx.T):
        a = int(ctx.starts[t])
        b = a + min(depth, int(ctx.n[t]))
        out.append("'" + raw[a:b].decode("ascii") + "'")
    return out


def rbp_resid(ctx: Ctx, _: None) -> np.ndarray:
    """RBP residual with p = 0.9 (``m_rbp_resid.c``, trec_eval 10): if any
    retrieved document is unjudged, p^n + (1-p) sum over unjudged of p^(i-1);
    otherwise 0 (trec_eval's choice, although the residual p^n is not 0)."""
    from relkit.metrics.measures.trec_gain import powers

    p = 0.9
    pw = powers(p, int(ctx.n.max()) + 1 if ctx.T else 1)
    unj = ctx.rel < 0
    s = ctx.topic_sum(pw[ctx.pos], unj)
    any_unj = np.bincount(ctx.tid[unj], minlength=ctx.T) > 0
    return np.where(any_unj, pw[ctx.n] + (1 - p) * s, 0.0)
