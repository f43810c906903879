"""trec_eval's measure table, in its print order (``measures.c``)."""

from __future__ import annotations

from collections.abc import Callable

from relkit.metrics.measures import trec_gain as g
from relkit.metrics.measures import trec_judged as j
from relkit.metrics.measures import trec_rank as r
from relkit.metrics.measures.base import Family, parse_floats, parse_pairs

CUTS = "5,10,15,20,30,100,200,500,1000"
POINTS = "0.0,0.1,0.2,0.3,0.4,0.5,0.6,0.7,0.8,0.9,1.0"
_GAIN_KEYS = parse_pairs
_levels = "pairs 'level=gain' (e.g. 1=3,2=9)"


def _gain_pairs(name: str) -> Callable[[str], g.Pairs]:
    return _GAIN_KEYS(name, lambda k: k.lstrip("+-").isdigit(), _levels)


def _rbp_pairs(name: str) -> Callable[[str], g.Pairs]:
    return _GAIN_KEYS(name, lambda k: k == "p" or k.lstrip("+-").isdigit(),
                      "pairs 'p=0.95' or 'level=gain'")


def _none(_: object, __: None) -> None:  # runid / num_q are filled by the evaluator
    return None


def _relstring_param(text: str) -> tuple[float, ...]:
    return parse_floats("relstring", 1)(text)


def _points(text: str) -> tuple[float, ...]:
    return parse_floats("11pt_avg")(text)


# Registered by relkit.metrics.measures.families, in its order.
FAMILIES: tuple[Family, ...] = (
    Family("runid", "runid", "str", "none", None, _none, "Run id of the last run line",
           per_query=False),
    Family("num_q", "num_q", "int", "none", None, _none, "Number of topics evaluated",
           per_query=False, readable="NumQ"),
    Family("num_ret", "sum", "int", "none", None, r.num_ret, "Documents retrieved",
           readable="NumRet"),
    Family("num_rel", "sum", "int", "none", None, r.num_rel, "Relevant documents (judged)",
           readable="NumRel"),
    Family("num_rel_ret", "sum", "int", "none", None, r.num_rel_ret,
           "Relevant documents retrieved", readable="NumRelRet"),
    Family("map", "mean", "float", "none", None, r.ap, "Mean average precision",
           readable="AP"),
    Family("gm_map", "gm", "float", "none", None, r.ap,
           "Geometric mean of AP (floor 1e-5)", per_query=False, readable="GMAP"),
    Family("Rprec", "mean", "float", "none", None, r.rprec, "Precision at rank R",
           readable="R-prec"),
    Family("bpref", "mean", "float", "none", None, j.bpref, "Binary preference"),
    Family("recip_rank", "mean", "float", "none", None, r.recip_rank,
           "Reciprocal rank of the first relevant document", readable="RR"),
    Family("iprec_at_recall", "mean", "float", "points", POINTS, r.iprec_at_recall,
           "Interpolated precision at recall levels", readable="iP@{}"),
    Family("P", "mean", "float", "cutoffs", CUTS, r.precision, "Precision at k",
           readable="P@{}"),
    Family("relstring", "none", "str", "raw", "10", j.relstring,
           "Grades of the top documents as a string (per query only)",
           parse=_relstring_param),
    Family("recall", "mean", "float", "cutoffs", CUTS, r.recall, "Recall at k",
           readable="R@{}"),
    Family("infAP", "mean", "float", "none", None, j.infap, "Inferred AP"),
    Family("gm_bpref", "gm", "float", "none", None, j.bpref,
           "Geometric mean of bpref", per_query=False),
    Family("Rprec_mult", "mean", "float", "points", "0.2,0.4,0.6,0.8,1.0,1.2,1.4,1.6,1.8,2.0",
           r.rprec_mult, "Precision at rank x*R"),
    Family("utility", "mean", "float", "raw", "1,-1,0,0", r.utility,
           "Linear utility p1*a+p2*(n-a)+p3*(R-a)+p4*(N+a-n-R)",
           parse=parse_floats("utility", 4)),
    Family("11pt_avg", "mean", "float", "raw", POINTS, r.eleven_pt_avg,
           "Mean interpolated precision at the 11 recall points", parse=_points),
    Family("binG", "mean", "float", "none", None, j.bin_g, "Binary G"),
    Family("G", "mean", "float", "pairs", "", g.g_measure, "Normalised gain G",
           parse=_gain_pairs("G")),
    Family("dcg", "mean", "float", "pairs", "", g.dcg, "DCG over the whole ranking",
           parse=_gain_pairs("dcg"), v10_only=True),
    Family("ideal_dcg", "mean", "float", "pairs", "", g.ideal_dcg, "Ideal DCG",
           parse=_gain_pairs("ideal_dcg"), v10_only=True),
    Family("ndcg", "mean", "float", "pairs", "", g.ndcg, "nDCG over the whole ranking",
           parse=_gain_pairs("ndcg"), readable="nDCG"),
    Family("ndcg_rel", "mean", "float", "pairs", "", g.ndcg_rel,
           "nDCG averaged over relevant documents", parse=_gain_pairs("ndcg_rel")),
    Family("Rndcg", "mean", "float", "pairs", "", g.rndcg, "nDCG averaged at R levels",
           parse=_gain_pairs("Rndcg")),
    Family("ndcg_cut", "mean", "float", "cutoffs", CUTS, g.ndcg_cut, "nDCG at k",
           readable="nDCG@{}"),
    Family("map_cut", "mean", "float", "cutoffs", CUTS, r.map_cut, "AP cut at k",
           readable="AP@{}"),
    Family("relative_P", "mean", "float", "cutoffs", CUTS, r.relative_precision,
           "Relevant in top k over min(k, R)"),
    Family("success", "mean", "float", "cutoffs", "1,5,10", r.success,
           "1 if a relevant document is in the top k", readable="Success@{}"),
    Family("set_P", "mean", "float", "none", None, r.set_p, "Set precision a/n"),
    Family("set_relative_P", "mean", "float", "none", None, r.set_relative_p,
           "a / min(n, R)"),
    Family("set_recall", "mean", "float", "none", None, r.set_recall, "Set recall a/R"),
    Family("set_map", "mean", "float", "none", None, r.set_map, "Set precision x recall"),
    Family("set_F", "mean", "float", "raw", "1.0", r.set_f,
           "Set F, parameter = beta squared", parse=parse_floats("set_F", 1)),
    Family("num_nonrel_judged_ret", "sum", "int", "none", None, r.num_nonrel_judged_ret,
           "Judged non-relevant documents retrieved"),
    Family("yaap", "mean", "float", "none", None, r.yaap, "Yet another AP (log odds)"),
    Family("rbp", "mean", "float", "pairs", "", g.rbp, "Rank-biased precision",
           parse=_rbp_pairs("rbp"), v10_only=True),
    Family("rbp_resid", "mean", "float", "none", None, j.rbp_resid, "RBP residual (p=0.9)",
           v10_only=True),
    Family("unj", "mean", "float", "cutoffs", "5,10,20", j.unjudged,
           "Fraction of the top k that is unjudged", v10_only=True),
)

NICKNAMES: dict[str, tuple[str, ...]] = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                 "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel",
                 "Rndcg", "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map",
                 "set_F", "num_nonrel_judged_ret", "rbp", "rbp_resid", "unj"),
}
