"""Textbook measures beyond trec_eval, registered after trec_eval's table.

Set-based measures are functions of four counts per topic: a (relevant
retrieved), n (retrieved), R (relevant) and N (documents in the collection,
``-N`` / ``num_docs``). Their macro average is the mean of per-topic values;
their micro average applies the same formula to the counts summed over topics
(``Evaluator.aggregate(run, "micro")``).

References: C. J. van Rijsbergen, *Information Retrieval* (1979), ch. 7;
Manning, Raghavan & Schütze, *Introduction to IR* (2008), ch. 8;
Baeza-Yates & Ribeiro-Neto, *Modern IR* (2011), ch. 4.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.measures import trec_gain as g
from relkit.metrics.measures import trec_judged as j
from relkit.metrics.measures import trec_rank as r
from relkit.metrics.measures.base import Compute, Family, ParamKind, parse_pairs
from relkit.metrics.measures.context import Ctx, safe_div, segment_cumsum
from relkit.metrics.measures.trec_gain import Pairs

# ratio(a, n, R, N, value) -> per-topic values; ``value`` is the family's parsed parameter
# (the F/E weight pairs, or None), so its type depends on the family.
Ratio = Callable[[np.ndarray, np.ndarray, np.ndarray, np.ndarray, Any], np.ndarray]
Arr = np.ndarray   # short, so the ratio signatures fit on a line


def _counts(ctx: Ctx) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    a = ctx.num_rel_ret.astype(np.float64)
    n = ctx.n.astype(np.float64)
    R = ctx.R.astype(np.float64)
    N = np.full(ctx.T, float(ctx.num_docs))
    return a, n, R, N


def _need_n(name: str, ctx: Ctx) -> None:
    if ctx.num_docs <= 0:
        raise MeasureError(f"{name} needs the collection size: pass -N / num_docs=")


def set_family(name: str, ratio: Ratio, description: str, *, needs_n: bool = False,
               param_kind: ParamKind = "none", default: str | None = None,
               parse: Callable[[str], object] | None = None,
               readable: str | None = None) -> Family:
    """A set-based family with both per-topic and micro-averaged values."""

    def compute(ctx: Ctx, value: object) -> np.ndarray:
        if needs_n:
            _need_n(name, ctx)
        a, n, R, N = _counts(ctx)
        return ratio(a, n, R, N, value)

    def micro(ctx: Ctx, value: object) -> np.ndarray:
        if needs_n:
            _need_n(name, ctx)
        a, n, R, N = (np.array([x.sum()]) for x in _counts(ctx))
        return ratio(a, n, R, N, value)

    compute.__doc__ = ratio.__doc__
    return Family(name, "mean", "float", param_kind, default, compute,
                  description, doc=ratio.__doc__ or "", parse=parse, trec=False,
                  micro=micro, readable=readable)


def _alpha(value: Pairs | None) -> float:
    """F's weight: ``beta=b`` gives alpha = 1 / (1 + b^2); ``alpha=x`` directly."""
    alpha = 0.5
    for key, v in value or ():
        alpha = v if key == "alpha" else 1.0 / (1.0 + v * v)
    return alpha


def f_measure(a: Arr, n: Arr, R: Arr, N: Arr, value: Pairs | None) -> Arr:
    r"""F-measure, weighted harmonic mean of precision P = a/n and recall Rc = a/R.

    .. math:: F_\beta = \frac{(1+\beta^2) P R_c}{\beta^2 P + R_c}
              = \frac{1}{\alpha / P + (1-\alpha)/R_c}, \quad \alpha = \frac{1}{1+\beta^2}

    Parameter ``beta=1`` (default) or ``alpha=0.5``; F1 = 2PR/(P+R). 0 when
    nothing relevant is retrieved (and on an empty ranking or R = 0).
    Reference: van Rijsbergen (1979), ch. 7; Manning et al. (2008), §8.3.
    """
    alpha = _alpha(value)
    p, rc = safe_div(a, n), safe_div(a, R)
    den = alpha * rc + (1 - alpha) * p
    return np.where(a > 0, safe_div(p * rc, den), 0.0)


def e_measure(a: Arr, n: Arr, R: Arr, N: Arr, value: Pairs | None) -> Arr:
    """van Rijsbergen's effectiveness E = 1 - F (same parameters as F).

    1 on an empty ranking or when R = 0. Reference: van Rijsbergen (1979), ch. 7.
    """
    return 1.0 - f_measure(a, n, R, N, value)


def fallout(a: Arr, n: Arr, R: Arr, N: Arr, _: None) -> Arr:
    """Fallout (false-positive rate): non-relevant retrieved over non-relevant in
    the collection, (n - a) / (N - R). Needs N. 0 on an empty ranking.
    Reference: Manning et al. (2008), §8.3; van Rijsbergen (1979)."""
    return safe_div(n - a, N - R)


def noise(a: Arr, n: Arr, R: Arr, N: Arr, _: None) -> Arr:
    """Noise factor 1 - P = (n - a) / n: the non-relevant share of what was
    retrieved. 0 on an empty ranking. Reference: Baeza-Yates & Ribeiro-Neto (2011)."""
    return safe_div(n - a, n)


def miss(a: Arr, n: Arr, R: Arr, N: Arr, _: None) -> Arr:
    """Miss ratio 1 - recall = (R - a) / R. 0 when R = 0 (nothing to miss).
    Reference: Baeza-Yates & Ribeiro-Neto (2011)."""
    return safe_div(R - a, R)


def correct_rejection(a: Arr, n: Arr, R: Arr, N: Arr, _: None) -> Arr:
    """Correct-rejection ratio (specificity) = true negatives / non-relevant,
    (N - n - R + a) / (N - R) = 1 - fallout. Needs N. Reference: Swets (1969)."""
    return safe_div(N - n - R + a, N - R)


def generality(a: Arr, n: Arr, R: Arr, N: Arr, _: None) -> Arr:
    """Generality R / N: the share of the collection that is relevant. Needs N.
    Reference: van Rijsbergen (1979), ch. 7."""
    return safe_div(R, N)


def accuracy(a: Arr, n: Arr, R: Arr, N: Arr, _: None) -> Arr:
    """Accuracy (a + N - n - R + a) / N: documents classified correctly as
    retrieved-relevant or not-retrieved-non-relevant. Needs N.
    Reference: Manning et al. (2008), §8.3 (and why it is a poor IR measure)."""
    return safe_div(a + (N - n - R + a), N)


def mean_rank(ctx: Ctx, _: None) -> np.ndarray:
    """Rank of the first relevant document (MR); NaN when none is retrieved, and
    the mean skips such topics (their count is the Hits@n gap). Lower is better.
    Reference: Bordes et al. (2013) "mean rank"; Voorhees (1999) for RR."""
    rr = r.recip_rank(ctx, None)
    with np.errstate(divide="ignore"):
        return np.where(rr > 0, 1.0 / np.where(rr > 0, rr, 1.0), np.nan)


def _linear(ctx: Ctx) -> np.ndarray:
    return np.where(ctx.rel > 0, ctx.rel, 0).astype(np.float64)


def _exp(ctx: Ctx) -> np.ndarray:
    return np.where(ctx.rel > 0, np.exp2(np.maximum(ctx.rel, 0)) - 1.0, 0.0)


def cg_cut(ctx: Ctx, k: int) -> np.ndarray:
    """Cumulative gain CG@k = sum of the grades of the top k (negatives count 0).
    Reference: Järvelin & Kekäläinen, TOIS 20(4), 2002."""
    return ctx.topic_sum(_linear(ctx), ctx.pos < k)


def _dcg_at(ctx: Ctx, gain: np.ndarray, k: int) -> np.ndarray:
    return ctx.topic_sum(gain / np.log2(ctx.pos + 2.0), ctx.pos < k)


def _ideal_at(ctx: Ctx, k: int, exp: bool) -> np.ndarray:
    gains = g.gains(ctx, ())
    ideal = np.exp2(gains.ideal) - 1.0 if exp else gains.ideal
    pos = np.arange(len(ideal)) - np.repeat(gains.ideal_off[:-1], np.diff(gains.ideal_off))
    cum = segment_cumsum(ideal / np.log2(pos + 2.0), gains.ideal_off)
    depth = np.minimum(k, np.diff(gains.ideal_off))
    out = np.zeros(ctx.T)
    ok = depth > 0
    out[ok] = cum[gains.ideal_off[:-1][ok] + depth[ok] - 1]
    return out


def dcg_cut(ctx: Ctx, k: int) -> np.ndarray:
    r"""DCG@k with linear gain: :math:`\sum_{i \le k} g_i / \log_2(i+1)` (trec_eval's
    discount). 0 on an empty ranking. Reference: Järvelin & Kekäläinen (2002)."""
    return _dcg_at(ctx, _linear(ctx), k)


def idcg_cut(ctx: Ctx, k: int) -> np.ndarray:
    """IDCG@k: DCG@k of the ideal ranking (all judged documents by grade, best
    first). 0 when no document has a positive grade."""
    return _ideal_at(ctx, k, exp=False)


def dcg_cut_exp(ctx: Ctx, k: int) -> np.ndarray:
    r"""DCG@k with exponential gain :math:`(2^{g_i}-1)/\log_2(i+1)`.
    Reference: Burges et al., "Learning to rank using gradient descent", ICML 2005."""
    return _dcg_at(ctx, _exp(ctx), k)


def ndcg_cut_exp(ctx: Ctx, k: int) -> np.ndarray:
    """nDCG@k with exponential gain 2^g - 1 (Burges et al. 2005): DCG-exp@k over
    the ideal DCG-exp@k; 0 when no document has a positive grade."""
    return safe_div(dcg_cut_exp(ctx, k), _ideal_at(ctx, k, exp=True))


def _micro_precision(ctx: Ctx, k: int) -> np.ndarray:
    return np.array([ctx.rel_in_top(k).sum() / (k * ctx.T)])


def _micro_recall(ctx: Ctx, k: int) -> np.ndarray:
    return safe_div(np.array([ctx.rel_in_top(k).sum()]), np.array([ctx.R.sum()]))


def _f_params(name: str) -> Callable[[str], Pairs]:
    return parse_pairs(name, lambda k: k in ("beta", "alpha"), "'beta=1' or 'alpha=0.5'",
                       c_float=False)


CUTS = "5,10,15,20,30,100,200,500,1000"

# Registered by relkit.metrics.measures.families, in its order.
FAMILIES: tuple[Family, ...] = (
    set_family("F", f_measure, "F-measure (beta=1 by default, or alpha=)", param_kind="pairs",
               default="", parse=_f_params("F"), readable="F1"),
    set_family("E", e_measure, "van Rijsbergen's E = 1 - F", param_kind="pairs", default="",
               parse=_f_params("E")),
    set_family("fallout", fallout, "Non-relevant retrieved / non-relevant (needs -N)",
               needs_n=True, readable="Fallout"),
    set_family("noise", noise, "Noise factor 1 - precision"),
    set_family("miss", miss, "Miss ratio 1 - recall"),
    set_family("correct_rejection", correct_rejection,
               "True negatives / non-relevant (needs -N)", needs_n=True),
    set_family("generality", generality, "R / N (needs -N)", needs_n=True),
    set_family("accuracy", accuracy, "(TP + TN) / N (needs -N)", needs_n=True),
    Family("MR", "nanmean", "float", "none", None, mean_rank,
           "Rank of the first relevant document (mean over topics that have one)",
           doc=mean_rank.__doc__ or "", trec=False, readable="MR"),
    Family("cg_cut", "mean", "float", "cutoffs", CUTS, cg_cut, "Cumulative gain at k",
           doc=cg_cut.__doc__ or "", trec=False, readable="CG@{}"),
    Family("dcg_cut", "mean", "float", "cutoffs", CUTS, dcg_cut, "DCG at k, linear gain",
           doc=dcg_cut.__doc__ or "", trec=False, readable="DCG@{}"),
    Family("idcg_cut", "mean", "float", "cutoffs", CUTS, idcg_cut, "Ideal DCG at k",
           doc=idcg_cut.__doc__ or "", trec=False, readable="IDCG@{}"),
    Family("dcg_cut_exp", "mean", "float", "cutoffs", CUTS, dcg_cut_exp,
           "DCG at k, gain 2^g - 1", doc=dcg_cut_exp.__doc__ or "", trec=False,
           readable="DCG-exp@{}"),
    Family("ndcg_cut_exp", "mean", "float", "cutoffs", CUTS, ndcg_cut_exp,
           "nDCG at k, gain 2^g - 1 (Burges)", doc=ndcg_cut_exp.__doc__ or "", trec=False,
           readable="nDCG-exp@{}"),
    Family("judged", "mean", "float", "cutoffs", "10", j.judged,
           "Share of the top k with a judgment", doc=j.judged.__doc__ or "", trec=False,
           readable="Judged@{}"),
)

# trec_eval's set and cutoff measures get micro averages too (set on them when the
# families are registered).
MICRO: dict[str, Compute | None] = {
    "set_P": set_family("set_P", lambda a, n, R, N, v: safe_div(a, n), "").micro,
    "set_recall": set_family("set_recall", lambda a, n, R, N, v: safe_div(a, R), "").micro,
    "P": _micro_precision,
    "recall": _micro_recall,
}
