"""Expected reciprocal rank (ERR, ERR@k) as gdeval computes it.

gdeval (the TREC 2010-2014 Web track's ``gdeval.pl``, which ir_measures runs for its
``ERR@k``) maps a grade g to the probability that the user stops at the document,
R(g) = (2^g - 1) / 2^4 (its ``$MAX_JUDGMENT = 4``; it refuses higher grades), and
walks the ranking keeping the probability of reaching each rank. The formula is
evaluated in gdeval's operation order, so every per-topic value is the same double as
gdeval's before it prints it to 5 decimals.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.measures.base import Family
from relkit.metrics.measures.context import Ctx

# gdeval's $MAX_JUDGMENT: the grade of a document that certainly satisfies the user.
MAX_GRADE = 4


def segment_cumprod(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Cumulative product restarting at each segment, multiplied left to right.

    Sequential like the C and Perl loops (``decay *= 1 - r``), so the result is the
    same double. Segments of equal length are a reshape; others go through a padded
    grid (padding 1.0 changes no product).

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.measures.err import segment_cumprod
    >>> segment_cumprod(np.array([0.5, 0.5, 2.0, 3.0, 0.5]), np.array([0, 2, 5]))
    array([0.5 , 0.25, 2.  , 6.  , 3.  ])
    """
    n = np.diff(offsets)
    total = len(values)
    if total == 0:
        return values.astype(np.float64, copy=True)
    width = int(n.max())
    if len(n) * width == total:
        return np.cumprod(values.reshape(len(n), width), axis=1).ravel()
    grid = np.ones((len(n), width), dtype=np.float64)
    mask = np.arange(width)[None, :] < n[:, None]
    grid[mask] = values
    return np.cumprod(grid, axis=1)[mask]


def grade_error(ctx: Ctx, rows: np.ndarray | None, why: str) -> MeasureError:
    """The error for a ranked document (among ``rows``, a mask; None: all) graded above
    :data:`MAX_GRADE`, naming the first one as the user can find it in the qrels."""
    rel = ctx.rel if rows is None else np.where(rows, ctx.rel, 0)
    i = int(np.argmax(rel > MAX_GRADE))
    topic, doc = ctx.ranked.topics[int(ctx.tid[i])], ctx.ranked.doc_list()[i]
    return MeasureError(f"topic {topic!r}, document {doc!r}: grade {int(rel[i])} in the "
                        f"qrels; {why}")


def _err_at(ctx: Ctx, k: int | None) -> np.ndarray:
    if k is None:
        rel, depth, tid, rank = ctx.rel, ctx.n, ctx.tid, ctx.rank
    else:
        first_k = ctx.pos < k                       # each topic's first k rows
        rel, depth = ctx.rel[first_k], np.minimum(ctx.n, k)
        tid, rank = ctx.tid[first_k], ctx.rank[first_k]
    if len(rel) and int(rel.max()) > MAX_GRADE:
        # gdeval stops on such qrels ("format error"); a silent cap would change ERR.
        raise grade_error(ctx, None if k is None else first_k,
                          f"ERR follows gdeval, whose grades go up to {MAX_GRADE}")
    # R(g) = (2^g - 1) / 2^4 by table (exact); unjudged and negative grades give 0
    table = (np.exp2(np.arange(MAX_GRADE + 1)) - 1.0) / 2.0 ** MAX_GRADE
    r = table[np.maximum(rel, 0)]
    offsets = np.concatenate(([0], np.cumsum(depth)))
    after = segment_cumprod(1.0 - r, offsets)
    # Probability of reaching each row: the product over the rows above it (1 at the top).
    decay = np.empty_like(r)
    decay[1:] = after[:-1]
    decay[offsets[:-1][depth > 0]] = 1.0
    # gdeval: $score += $r * $decay / ($i + 1), summed in rank order (bincount adds in
    # row order).
    return np.bincount(tid, weights=r * decay / rank, minlength=ctx.T)


def err(ctx: Ctx, _: None) -> np.ndarray:
    r"""Expected reciprocal rank over the whole ranking (Chapelle et al. 2009).

    .. math:: ERR = \sum_{i=1}^{n} \frac{1}{i} R_i \prod_{j<i} (1 - R_j), \qquad
              R_i = \frac{2^{g_i} - 1}{2^{4}}

    with g_i the grade of the document at rank i (0 when unjudged or negative); the
    denominator 2^4 is gdeval's maximum grade 4 (a higher grade is an error). 0 on an
    empty ranking and on a topic without a positive grade.

    Reference: O. Chapelle, D. Metzler, Y. Zhang, P. Grinspan, "Expected reciprocal
    rank for graded relevance", CIKM 2009; gdeval.pl (TREC Web track 2010).
    """
    return _err_at(ctx, None)


def err_cut(ctx: Ctx, k: int) -> np.ndarray:
    r"""ERR@k: ERR over the first k documents (gdeval's ``err@k``).

    .. math:: ERR@k = \sum_{i=1}^{\min(k, n)} \frac{1}{i} R_i \prod_{j<i} (1 - R_j),
              \qquad R_i = \frac{2^{g_i} - 1}{2^{4}}

    0 on an empty ranking and on a topic without a positive grade. gdeval leaves such
    topics out of its output (so ir_measures' mean skips them); relkit scores them 0
    and counts them, as trec_eval does for nDCG. gdeval prints 5 decimals; relkit keeps
    the double it rounds. Reference: Chapelle et al., CIKM 2009; gdeval.pl.
    """
    return _err_at(ctx, k)


# Registered by relkit.metrics.measures.families, in its order.
FAMILIES: tuple[Family, ...] = (
    Family("err", "mean", "float", "none", None, err,
           "Expected reciprocal rank (gdeval's grades up to 4)", doc=err.__doc__ or "",
           trec=False, readable="ERR"),
    Family("err_cut", "mean", "float", "cutoffs", "5,10,20", err_cut,
           "Expected reciprocal rank at k (gdeval's err@k)", doc=err_cut.__doc__ or "",
           trec=False, readable="ERR@{}"),
)
