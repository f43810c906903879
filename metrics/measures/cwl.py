"""The C/W/L family as cwl_eval computes it (INST, INSQ, RBP, BPM, NERR, SDCG).

In the C/W/L framework (Moffat et al. 2013; Azzopardi, Thomas & Moffat, "cwl_eval: an
evaluation tool for information retrieval", SIGIR 2019) a measure is a continuation
probability C(i) of going on from rank i to rank i + 1. The weight of rank i is
W(i) = prod_{j<i} C(j) / sum_k prod_{j<k} C(j), and the measure is the expected utility
per document, EU = sum_i W(i) g_i. As in cwl_eval (and ir_measures' ``cwl_eval``
provider, which fixes its depth at 1,000), the ranking is cut or padded to exactly
``DEPTH`` = 1,000 ranks: documents past it are ignored, missing ranks have gain 0.

Gains, as ir_measures hands them to cwl_eval: a grade g (negative ones as 0) becomes
(min(max(g, min_rel), max_rel) - min_rel) / (max_rel - min_rel), in [0, 1]; ``max_rel``
defaults to the largest grade in the qrels (ir_measures requires it), ``min_rel`` to 0.
RBP is binary, as ir_measures' ``RBP(rel=...)``: gain 1 at grade >= the relevance level.
Documents outside the qrels have gain 0; ``residual=True`` gives instead cwl_eval's
residual, EU with those documents and the missing ranks at gain 1 minus EU.

The per-topic work is vectorised over blocks of topics (a topics x 1,000 matrix).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.core.params import Param
from relkit.metrics.judged import NONPOOL
from relkit.metrics.measures.base import Family
from relkit.metrics.measures.context import Ctx
from relkit.metrics.measures.named import Named, Value

DEPTH = 1000          # cwl_eval's --max_depth default; ir_measures passes max_n=1000
BLOCK = 1000          # topics per block: 1,000 x 1,000 doubles = 8 MB per matrix

# c(value, gains, cumulative gains, ranks 1..DEPTH) -> continuation probabilities
CFun = Callable[[dict[str, float], np.ndarray, np.ndarray, np.ndarray], np.ndarray]


def _gains(ctx: Ctx, v: dict[str, float], binary: bool, best: bool) -> np.ndarray:
    """Gain of each ranked row in [0, 1]; ``best``: unknown documents at 1."""
    rel = ctx.rel
    g: np.ndarray
    if binary:
        g = (np.maximum(rel, 0) >= ctx.level).astype(np.float64)
        g[rel == NONPOOL] = 0.0
    else:
        lo = int(v["min_rel"])
        top = ctx.judged.levels.shape[1] - 1
        hi = int(v["max_rel"]) if v["max_rel"] is not None else max(top, lo + 1)
        if hi <= lo:
            raise MeasureError(f"max_rel ({hi}) must be greater than min_rel ({lo})")
        g = (np.clip(np.maximum(rel, 0), lo, hi) - lo) / (hi - lo)
        g[rel == NONPOOL] = 0.0
    if best:
        # cwl_eval's best case: an unjudged document has the maximum gain. A negative
        # grade in the qrels is a judgment of 0 to cwl_eval (ir_measures clips it).
        g[rel == NONPOOL] = 1.0
    return g


def _eu(ctx: Ctx, v: dict[str, float], c_fun: CFun, binary: bool, best: bool) -> np.ndarray:
    row_gain = _gains(ctx, v, binary, best)
    keep = ctx.pos < DEPTH
    out = np.zeros(ctx.T)
    ranks = np.arange(1, DEPTH + 1, dtype=np.float64)
    for start in range(0, ctx.T, BLOCK):
        stop = min(start + BLOCK, ctx.T)
        a, b = ctx.offsets[start], ctx.offsets[stop]
        sel = np.flatnonzero(keep[a:b]) + a
        G = np.full((stop - start, DEPTH), 1.0 if best else 0.0)
        # ranks past a short ranking: gain 0, or 1 in the best case (cwl's padding)
        G[ctx.tid[sel] - start, ctx.pos[sel]] = row_gain[sel]
        cg = np.cumsum(G, axis=1)
        c = c_fun(v, G, cg, ranks)
        prod = np.ones_like(G)
        np.cumprod(c[:, :-1], axis=1, out=prod[:, 1:])
        w1 = 1.0 / prod.sum(axis=1)
        w = prod * w1[:, None]
        w[:, 0] = w1
        out[start:stop] = np.einsum("ij,ij->i", w, G)
    return out


def _family(name: str, named: Named, c_fun: CFun, description: str, doc: str,
            binary: bool = False) -> Family:
    def compute(ctx: Ctx, value: Value) -> np.ndarray:
        v = dict(value)
        worst = _eu(ctx, v, c_fun, binary, best=False)
        if v.get("residual"):
            resid: np.ndarray = _eu(ctx, v, c_fun, binary, best=True) - worst
            return resid
        return worst

    compute.__doc__ = doc
    return Family(name, "mean", "float", "named", "", compute, description, doc=doc,
                  trec=False, named=named, readable=named.head)


def _params(*extra: Param) -> tuple[Param, ...]:
    return (*extra,
            Param("min_rel", int, 0, "grade of gain 0"),
            Param("max_rel", int, None, "grade of gain 1 (default: the qrels' largest)"),
            Param("residual", bool, False, "the residual instead of the value"))


_T = Param("T", float, 1.0, "total gain wanted", 0, open_low=True)
_P = Param("p", float, 0.8, "persistence", 0, 1, open_low=True)
_PHI = Param("p", float, 0.9, "persistence", 0, 1, open_low=True)
_K = Param("k", int, 10, "cutoff", 1)


def _inst(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    T = v["T"]
    Ti = T - cg
    return ((i + T + Ti - 1.0) / (i + T + Ti)) ** 2.0


def _insq(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    T = v["T"]
    return np.broadcast_to(((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2.0, G.shape)


def _rbp(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    return np.full(G.shape, v["p"])


def _bpm(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    # Go on while the gain so far is below T and the cost so far (one per document) below K.
    return ((cg < v["T"]) & (i < v["K"])[None, :]).astype(np.float64)


def _nerr8(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    return np.where(i < v["k"], 1.0 - G, 0.0)


def _nerr9(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    return np.where(i < v["k"], (1.0 * i / (i + 1.0)) * (1.0 - G), 0.0)


def _nerr10(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    return v["p"] * (1.0 - G)


def _nerr11(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    T = v["T"]
    return (((i + 2.0 * T - 1.0) / (i + 2.0 * T)) ** 2.0) * (1.0 - G)


def _sdcg(v: dict[str, float], G: np.ndarray, cg: np.ndarray, i: np.ndarray) -> np.ndarray:
    # cwl's NDCGCWLMetric: C(i) = log2(i + 1) / log2(i + 2) before k, so W(i) is the DCG
    # discount 1 / log2(i + 1) over its sum to k.
    ratio = (np.log(i + 1.0) / np.log(2.0)) / (np.log(i + 2.0) / np.log(2.0))
    return np.broadcast_to(np.where(i < v["k"], ratio, 0.0), G.shape)


_REF = ("Reference: L. Azzopardi, P. Thomas, A. Moffat, \"cwl_eval: an evaluation tool for "
        "information retrieval\", SIGIR 2019 (cwl_eval's ``{}``).")
_EU = (r"EU = \sum_{{i=1}}^{{1000}} W(i) g_i, \quad "
       r"W(i) = \frac{{\prod_{{j<i}} C(j)}}{{\sum_k \prod_{{j<k}} C(j)}}")


def _doc(title: str, c: str, ref: str, cls: str, zero: str = "0") -> str:
    return (f"{title}\n\n.. math:: {_EU.format()}\n\nwith continuation {c} (i = rank, g_i in "
            f"[0, 1]). {zero} on an empty ranking and on a topic without a positive gain. "
            + (f"{ref} " if ref else "")
            + "``residual=True`` gives cwl_eval's residual instead: the same sum with the "
            "documents outside the qrels and the ranks past the ranking at gain 1, minus "
            f"EU (1 on an empty ranking). {_REF.format(cls)}")


# Registered by relkit.metrics.measures.families, in its order.
FAMILIES: tuple[Family, ...] = (
    _family("inst", Named("INST", _params(_T)), _inst, "INST: adaptive expected rate of gain",
            _doc("INST (Moffat, Bailey, Scholer & Thomas, ADCS 2015).",
                 r"C(i) = ((i + T + T_i - 1) / (i + T + T_i))^2, T_i = T - \sum_{j \le i} g_j",
                 "", "INSTCWLMetric")),
    _family("insq", Named("INSQ", _params(_T)), _insq, "INSQ: INST without the gain term",
            _doc("INSQ (Moffat, Scholer & Thomas, ADCS 2012).",
                 "C(i) = ((i + 2T - 1) / (i + 2T))^2", "", "INSQCWLMetric")),
    _family("rbp_cwl", Named("RBP", (_P, Param("residual", bool, False, "the residual")),
                             rel=True),
            _rbp, "Rank-biased precision as cwl_eval computes it (binary, depth 1000)",
            _doc("Rank-biased precision (Moffat & Zobel, TOIS 27(1), 2008), binary gains at "
                 "the relevance level (ir_measures' ``RBP(rel=1)``).", "C(i) = p",
                 "Unlike trec_eval's ``rbp`` (weights (1 - p) p^(i-1) over the whole "
                 "ranking), the weights are normalised over 1,000 ranks.", "RBPCWLMetric"),
            binary=True),
    _family("bpm", Named("BPM", _params(_T, Param("K", int, 10, "cost budget", 1)),
                         cutoff="K"), _bpm, "Bejeweled player model (static)",
            _doc("Static Bejeweled player model (Zhang et al., SIGIR 2017).",
                 r"C(i) = 1 while \sum_{j \le i} g_j < T and i < K, else 0", "",
                 "BPMCWLMetric")),
    _family("nerr8", Named("NERR8", _params(_K), cutoff="k"), _nerr8,
            "Not (but nearly) ERR, eq. 8: gain-based stopping, cut at k",
            _doc("NERR, equation 8 (Azzopardi, Mackenzie & Moffat, ICTIR 2021).",
                 "C(i) = 1 - g_i for i < k, else 0", "", "NERReq8CWLMetric")),
    _family("nerr9", Named("NERR9", _params(_K), cutoff="k"), _nerr9,
            "Not (but nearly) ERR, eq. 9: gain-based stopping and discount, cut at k",
            _doc("NERR, equation 9 (Azzopardi, Mackenzie & Moffat, ICTIR 2021).",
                 "C(i) = i / (i + 1) (1 - g_i) for i < k, else 0", "", "NERReq9CWLMetric")),
    _family("nerr10", Named("NERR10", _params(_PHI)), _nerr10,
            "Not (but nearly) ERR, eq. 10: gain-based stopping with RBP's persistence p",
            _doc("NERR, equation 10 (Azzopardi, Mackenzie & Moffat, ICTIR 2021).",
                 "C(i) = p (1 - g_i)", "", "NERReq10CWLMetric")),
    _family("nerr11", Named("NERR11", _params(_T)), _nerr11,
            "Not (but nearly) ERR, eq. 11: gain-based stopping with INST's goal T",
            _doc("NERR, equation 11 (Azzopardi, Mackenzie & Moffat, ICTIR 2021).",
                 "C(i) = ((i + 2T - 1) / (i + 2T))^2 (1 - g_i)", "", "NERReq11CWLMetric")),
    _family("sdcg", Named("SDCG", _params(_K), cutoff="k"), _sdcg,
            "Scaled DCG at k: DCG over the DCG of k documents of gain 1",
            _doc("Scaled DCG@k: DCG@k with gains in [0, 1] over the DCG of k documents "
                 "of gain 1 (not the ideal ranking's, as nDCG).",
                 "C(i) = log2(i + 1) / log2(i + 2) for i < k, else 0",
                 "Equivalently SDCG@k = sum_{i<=k} g_i / log2(i + 1) / "
                 "sum_{i<=k} 1 / log2(i + 1).", "NDCGCWLMetric")),
)
