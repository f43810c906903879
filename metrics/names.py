"""Measure names both ways: trec_eval spellings and readable ones.

``P.5`` / ``P@5``, ``ndcg_cut.10`` / ``nDCG@10``, ``map`` / ``AP``,
``recip_rank`` / ``RR``, ``recall.100`` / ``R@100``... ``str(measure)`` gives
the readable spelling and parses back to an equal measure.
"""

from __future__ import annotations

import re
from dataclasses import replace

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.core.registry import did_you_mean
from relkit.metrics.measures.base import REGISTRY, Family, Measure
from relkit.metrics.measures.trec_table import NICKNAMES

# Extra readable spellings accepted on input (the canonical one is
# Family.readable and is what str() prints).
_ALIASES = {
    "MAP": "AP", "MRR": "RR", "Rprec": "R-prec", "R-precision": "R-prec",
    "Recall@{}": "R@{}", "Hits@{}": "Success@{}", "NDCG@{}": "nDCG@{}", "NDCG": "nDCG",
    "ndcg@{}": "nDCG@{}",
}


def _readable_table() -> dict[str, str]:
    return {f.readable: f.name for f in REGISTRY.values() if f.readable}


_REL = re.compile(r"(?P<head>[^()@\s]+)\(rel=(?P<rel>[+-]?\d+)\)(?P<tail>[@.]\S+)?")


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
    name = name.strip()
    own = _REL.fullmatch(name)
    if own:
        # ir_measures' per-measure relevance level: P(rel=2)@5, AP(rel=2), P.5(rel=2).
        level = int(own.group("rel"))
        base = own.group("head") + (own.group("tail") or "")
        if base in NICKNAMES:
            raise MeasureError(f"'{name}': a relevance level applies to one measure, not "
                                 f"to the nickname {base!r} (use -l {level} for all)")
        return [replace(m, rel=level, output=_rel_output(m, level))
                for m in parse_measure(base)]
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
    family, _, text = name.partition(".")
    get_family(family)  # raises with suggestions when unknown
    return expand(family, text if "." in name else None)


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
    pool = [*REGISTRY, *NICKNAMES, *(r.replace("{}", "10") for r in _readable_table())]
    return (did_you_mean(name.split(".")[0].split("@")[0], pool)
            or did_you_mean(name, pool))
