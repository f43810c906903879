"""Measure names in every dialect, and back.

``str(measure)`` gives relkit's readable spelling, which is ir_measures' (``P@5``,
``nDCG@10``, ``AP@100``, ``P(rel=2)@5``), and parses back to an equal measure.
Also accepted: trec_eval's requests (``P.5``, ``ndcg_cut.10``, ``map``) and output names
(``P_5``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``), ir_measures' other spellings
(``Bpref``, ``SetP``, ``IPrec@0.1``, ``NumRet(rel=1)``; its measure objects through
``str``) and ranx's names (:data:`RANX`, with its ``-l2`` relevance suffix on binary
measures). A ranx name is taken only where its numbers are identical to the measure it
maps to; :data:`RANX_DIFFERENT` says why the others are refused. Where a word means
something else in trec_eval (ranx ``recall`` is the whole run's recall, trec_eval
``recall`` is recall at 5..1000), trec_eval's meaning wins.
"""

from __future__ import annotations

import re

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.core.registry import did_you_mean
from relkit.metrics.measures.base import REGISTRY, Family, Measure
from relkit.metrics.measures.trec_table import NICKNAMES

# Extra readable spellings accepted on input (the canonical one is
# Family.readable and is what str() prints). The second line is ir_measures' own
# spellings where they differ from ours (str() of its measure objects).
_ALIASES = {
    "MAP": "AP", "MRR": "RR", "Rprec": "R-prec", "R-precision": "R-prec",
    "Recall@{}": "R@{}", "Hits@{}": "Success@{}", "NDCG@{}": "nDCG@{}", "NDCG": "nDCG",
    "Bpref": "bpref", "SetP": "set_P", "SetR": "set_recall", "SetAP": "set_map",
    "SetF": "set_F", "IPrec@{}": "iP@{}",
}

# ranx's metric names (``ranx.metrics.metric_switch``; ``name@k``) -> ours, only where
# the numbers are identical (checked against ranx in tests/test_ecosystem_oracles.py).
# A name without ``@k`` means the whole run in ranx; ``{}`` is k. ranx's ``recall``,
# ``map``, ``ndcg``, ``dcg``, ``bpref`` without k are trec_eval names and read as such.
RANX: dict[str, str] = {
    "ndcg@{}": "nDCG@{}", "precision@{}": "P@{}", "recall@{}": "R@{}", "map@{}": "AP@{}",
    "hit_rate@{}": "Success@{}", "dcg@{}": "DCG@{}", "dcg_burges@{}": "DCG-exp@{}",
    "ndcg_burges@{}": "nDCG-exp@{}", "mrr": "RR", "r-precision": "R-prec",
    "precision": "set_P", "f1": "set_F", "map": "AP",
}
# ranx names with a relevance level (``precision@10-l2``): binary measures only. ranx's
# level on a graded measure (``ndcg@10-l2``) drops the grades below it, which no
# relkit measure does.
_RANX_LEVELS = frozenset({"precision@{}", "recall@{}", "map@{}", "hit_rate@{}", "mrr",
                          "r-precision", "precision", "f1", "map"})
# ranx names whose numbers differ from every relkit measure: the reason, for the error.
RANX_DIFFERENT: dict[str, str] = {
    "hits": "ranx's hits@k counts the relevant documents in the top k (P@k times k); "
            "use P@k, or Success@k for ranx's hit_rate@k",
    "mrr": "ranx's mrr@k is RR cut at rank k, which trec_eval has no measure for; use RR",
    "f1": "ranx's f1@k is F1 of the top k, which relkit has no measure for; "
          "use F1 or set_F for the whole run",
    "rbp": "ranx's rbp weights by the raw grade; trec_eval's rbp (rbp.p=0.95) maps "
           "grades into [0, 1] first: the same only on binary qrels",
    "hit_rate": "ranx's hit_rate without k is Success over the whole run; give a cutoff "
                "(hit_rate@k is Success@k)",
    "ndcg_burges": "give a cutoff: ndcg_burges@10 is nDCG-exp@10",
    "dcg_burges": "give a cutoff: dcg_burges@10 is DCG-exp@10",
}
# ir_measures' parameters other than rel=, and where relkit has the same thing.
_IRM_PARAMS = re.compile(r"(?P<head>[A-Za-z][\w-]*)\((?P<params>[^()]*)\)(?P<tail>@\S+)?")
_IRM_HINTS = {
    "judged_only": "judged_only is an option of the whole evaluation: "
                   "Evaluator(..., judged_only=True), trec_eval -J",
    "dcg=": "nDCG-exp@k has the gain 2^g - 1 (ir_measures takes nDCG(dcg='exp-log2') from "
            "gdeval, which rounds each topic to 5 decimals, so the numbers differ)",
    "gains=": "trec_eval's ndcg.1=3,2=9 and ndcg_cut give grades their own gains",
}
_RANX_NAME = re.compile(r"(?P<m>[a-z][a-z0-9_-]*?)(?:(?P<sep>[@.])(?P<k>\d+))?(?:-l(?P<l>\d+))?")


def _readable_table() -> dict[str, str]:
    return {f.readable: f.name for f in REGISTRY.values() if f.readable}


_REL = re.compile(r"(?P<head>[^()@\s]+)\(rel=(?P<rel>[+-]?\d+)\)(?P<tail>[@._]\S+)?")


def _rel_output(m: Measure, level: int) -> str:
    """``P_5`` -> ``P(rel=2)_5``: the level right after the family, as in ``P(rel=2)@5``."""
    return f"{m.family}(rel={level}){m.output[len(m.family):]}"


def get_family(name: str) -> Family:
    """The family called ``name`` (trec_eval's spelling); unknown names suggest others.

    Parameters
    ----------
    name : str
        A family's trec_eval name (``ndcg_cut``, ``P``, ``map``).

    Returns
    -------
    Family
        The registered family.

    Raises
    ------
    MeasureError
        For an unknown name, with the close ones suggested.

    Examples
    --------
    >>> from relkit.metrics.names import get_family
    >>> get_family("ndcg_cut").readable
    'nDCG@{}'
    >>> get_family("ndgc_cut")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    relkit.metrics.core.errors.MeasureError: unknown measure 'ndgc_cut'; did you mean 'ndcg_cut'?...
    """
    fam = REGISTRY.get(name)
    if fam is None:
        raise REGISTRY.unknown(name, hint=suggest(name))
    return fam


def expand(family: str, text: str | None) -> list[Measure]:
    """Measures requested by trec_eval syntax ``family[.text]``.

    Parameters
    ----------
    family : str
        The family's trec_eval name.
    text : str or None
        The parameter text after the dot (``5,10`` in ``P.5,10``); ``None`` for the
        family's default parameters.

    Returns
    -------
    list of Measure
        One measure per parameter value, in trec_eval's order.

    Examples
    --------
    >>> from relkit.metrics.names import expand
    >>> [m.output for m in expand("P", "10,5")]
    ['P_5', 'P_10']
    >>> len(expand("P", None))  # trec_eval's default cutoffs
    9
    """
    fam = get_family(family)
    return [Measure(fam.name, v, text if fam.param_kind in ("raw", "pairs") else None, out)
            for v, out in fam.values(text)]


def parse_measure(name: str) -> list[Measure]:
    """Parse one name (readable or trec_eval) into the measures it denotes.

    Parameters
    ----------
    name : str
        A readable name (``P@5``, ``nDCG@10``, ``AP``, also ``MAP``, ``MRR``,
        ``Recall@100``), a trec_eval request (``P.5,10``, ``ndcg_cut.10``,
        ``map``; a family alone means its default parameters) or a trec_eval
        nickname (``official``, ``all_trec``).

    Returns
    -------
    list of Measure
        One measure per parameter value, in trec_eval's order.

    Raises
    ------
    MeasureError
        For an unknown name (with close matches suggested) or a bad parameter.

    Examples
    --------
    >>> from relkit.metrics.names import parse_measure
    >>> [str(m) for m in parse_measure("P.5,10")]
    ['P@5', 'P@10']
    >>> [(str(m), m.trec_name, m.output) for m in parse_measure("nDCG@10")]
    [('nDCG@10', 'ndcg_cut.10', 'ndcg_cut_10')]
    >>> parse_measure("MAP") == parse_measure("map")
    True
    >>> parse_measure("ndgc@10")
    Traceback (most recent call last):
    ...
    relkit.metrics.core.errors.MeasureError: unknown measure 'ndgc@10'; did you mean 'ndcg'?
    >>> parse_measure("P@0")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    relkit.metrics.core.errors.MeasureError: The 'cutoff' parameter of P must be an int >= 1; ...
    """
    from relkit.metrics.measures.diversity_names import is_diversity

    name = name.strip()
    if is_diversity(name):   # ir_measures' pyndeval names: not measures of plain qrels
        raise MeasureError(f"{name!r} is a diversity measure: it needs subtopic "
                           "qrels (relkit eval -R subtopics; DiversityEvaluator)")
    named = _named(name)
    if named is not None:
        return named
    name = _dialect(name)
    own = _REL.fullmatch(name)
    if own:
        # ir_measures' per-measure relevance level: P(rel=2)@5, AP(rel=2), P.5(rel=2).
        level = int(own.group("rel"))
        head = own.group("head")
        # ir_measures' NumRet(rel=1) counts the retrieved documents that are relevant
        # (trec_eval's num_rel_ret); num_ret(rel=1) stays trec_eval's num_ret.
        head = "NumRelRet" if head == "NumRet" else head
        base = head + (own.group("tail") or "")
        if base in NICKNAMES:
            raise MeasureError(f"'{name}': a relevance level applies to one measure, not "
                                 f"to the nickname {base!r} (use -l {level} for all)")
        base_ms = parse_measure(base)
        for bm in base_ms:
            spec = REGISTRY[bm.family].named
            if spec is not None and not spec.rel:   # graded C/W/L measures, Compat
                raise MeasureError(f"'{name}': {spec.head} takes no relevance level "
                                   "(its gains come from the grades)")
        return [bm.replace(rel=level, output=_rel_output(bm, level)) for bm in base_ms]
    if name in NICKNAMES:
        return [m for fam in NICKNAMES[name] for m in expand(fam, None)]
    table = _readable_table()
    m = re.fullmatch(r"([A-Za-z][\w-]*)@([0-9.]+)", name)
    if m:
        pattern = _ALIASES.get(m.group(1) + "@{}", m.group(1) + "@{}")
        if pattern in table:
            return expand(table[pattern], m.group(2))
    plain = _ALIASES.get(name, name)
    if plain in table and "{}" not in plain:
        return expand(table[plain], None)
    if plain in REGISTRY:
        return expand(plain, None)
    family, _, text = name.partition(".")
    get_family(family)  # raises with suggestions when unknown
    return expand(family, text if "." in name else None)


# ir_measures' spelling of a measure with named parameters: INST(T=3.0), NERR8(max_rel=3)@10.
_NAMED = re.compile(r"(?P<head>[A-Za-z][\w-]*)(?:\((?P<params>[^()]*)\))?(?:@(?P<k>[^\s@()]*))?")


def _named(name: str) -> list[Measure] | None:
    """A measure with named parameters (:mod:`relkit.metrics.measures.named`), or None
    when ``name`` is not one."""
    m = _NAMED.fullmatch(name)
    fam = None
    if m:
        same = [f for f in REGISTRY.values() if f.named is not None
                and f.named.head == m["head"]]
        # two families may share a head, one with a cutoff (EBU, EBU@10): "@k" picks
        fam = next((f for f in same if f.named is not None
                    and (f.named.cutoff is None) == (m["k"] is None)),
                   same[0] if same else None)
    if m is None or fam is None or fam.named is None:
        return None
    parts = [p for p in (m["params"] or "").split(",") if p.strip()]
    level = None
    if fam.named.rel:
        rels = [p for p in parts if p.partition("=")[0].strip() == "rel"]
        parts = [p for p in parts if p not in rels]
        if rels:
            value = rels[-1].partition("=")[2].strip()
            if len(rels) > 1 or not re.fullmatch(r"[+-]?\d+", value):
                raise MeasureError(f"The 'rel' parameter of {fam.name} must be one int; "
                                   f"got {','.join(rels)!r}")
            level = int(value)
    known = sorted([*fam.named.keys(), *(["rel"] if fam.named.rel else [])])
    for p in parts:
        key, sep, _ = p.partition("=")
        if sep and key.strip() not in known:
            raise MeasureError(f"unknown parameter {key.strip()!r} of {fam.named.head}; "
                               f"known: {', '.join(known)}")
    if m["k"] is not None:
        if fam.named.cutoff is None:
            raise MeasureError(f"{fam.named.head} takes no cutoff; got {name!r}")
        parts.append(f"{fam.named.cutoff}={m['k']}")
    (measure,) = expand(fam.name, ",".join(parts))
    if level is None:
        return [measure]
    return [measure.replace(rel=level, output=_rel_output(measure, level))]


def _with_rel(name: str, level: str) -> str:
    """``P@10`` with level 2 -> ``P(rel=2)@10``."""
    head, at, tail = name.partition("@")
    return f"{head}(rel={int(level)}){at}{tail}"


def _dialect(name: str) -> str:
    """A ranx name or a trec_eval output name in relkit's grammar; others unchanged.

    Raises
    ------
    MeasureError
        For a ranx name whose numbers no relkit measure reproduces (with the reason).
    """
    if name in REGISTRY or name in NICKNAMES:
        return name
    if re.fullmatch(r"RR(\(rel=\d+\))?@\d+", name):
        raise MeasureError(f"ir_measures' {name!r} is RR cut at rank k, which trec_eval has "
                           "no measure for; use RR")
    own = _IRM_PARAMS.fullmatch(name)
    if own and not re.fullmatch(r"rel=[+-]?\d+", own["params"]):
        close = suggest(own["head"]) if own["head"] not in _readable_table() else ""
        if close:
            raise REGISTRY.unknown(name, hint=close)
        hints = [h for key, h in _IRM_HINTS.items() if key in own["params"]]
        raise MeasureError(f"ir_measures' {name!r}: of its parameters relkit takes rel= only"
                           + "".join(f"; {h}" for h in hints))
    r = _RANX_NAME.fullmatch(name)
    if r and (r["sep"] != "." or r["m"] == "rbp"):
        key = r["m"] + ("@{}" if r["k"] else "")
        if key in RANX and r["sep"] != ".":
            if r["l"] is not None and key not in _RANX_LEVELS:
                raise MeasureError(
                    f"ranx's {name!r}: a relevance level on a graded measure drops the grades "
                    "below it in ranx, which no relkit measure does; give it without -l")
            ours = RANX[key].format(r["k"])
            return ours if r["l"] is None else _with_rel(ours, r["l"])
        if r["m"] in RANX_DIFFERENT:
            raise MeasureError(f"ranx's {name!r} has no identical measure in relkit: "
                               f"{RANX_DIFFERENT[r['m']]}")
    return _output_name(name) or name


def _output_name(name: str) -> str | None:
    """trec_eval's output name as its request: ``ndcg_cut_10`` -> ``ndcg_cut.10``,
    ``iprec_at_recall_0.10`` -> ``iprec_at_recall.0.10`` (the longest family wins)."""
    if "_" not in name or "(" in name or name.partition(".")[0] in REGISTRY:
        return None     # not an output name (a request such as ndcg_cut.10, or own level)
    def fits(f: Family) -> bool:
        # A parameter text starts with a number, or is key=value pairs: dcg_cut_xep is a
        # misspelt family to suggest for, not dcg_cut with a bad cutoff.
        rest = name[len(f.name) + 1:]
        return (f.param_kind != "none" and name.startswith(f.name + "_")
                and bool(re.match(r"[-+]?\.?\d", rest) or (f.param_kind in ("pairs", "named")
                                                            and "=" in rest)))

    best = max((f.name for f in REGISTRY.values() if fits(f)), key=len, default=None)
    return f"{best}.{name[len(best) + 1:]}" if best else None


def suggest(name: str) -> str:
    """``"; did you mean 'ndcg'?"`` for an unknown name, or ``""``.

    Offers families, nicknames and readable spellings, matched on the name's stem
    first (``ndgc.10`` and ``nDGC@10`` are near ``ndcg``), then on the whole name.

    Parameters
    ----------
    name : str
        The unknown name, in either spelling.

    Returns
    -------
    str
        The hint to append to the error, or ``""`` when nothing is close.

    Examples
    --------
    >>> from relkit.metrics.names import suggest
    >>> suggest("ndgc")
    "; did you mean 'ndcg'?"
    >>> suggest("qqq")
    ''
    """
    pool = [*REGISTRY, *NICKNAMES, *(r.replace("{}", "10") for r in _readable_table()),
            *(r.replace("{}", "10") for r in RANX), *(a.replace("{}", "10") for a in _ALIASES)]
    return (did_you_mean(name.split(".")[0].split("@")[0], pool)
            or did_you_mean(name, pool))
