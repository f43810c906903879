"""Measure names both ways: trec_eval spellings and readable ones.

``P.5`` / ``P@5``, ``ndcg_cut.10`` / ``nDCG@10``, ``map`` / ``AP``,
``recip_rank`` / ``RR``, ``recall.100`` / ``R@100``... ``str(measure)`` gives
the readable spelling and parses back to an equal measure.
"""

from __future__ import annotations

import difflib
import re

import numpy as np

from relkit.metrics.measures.base import REGISTRY, Measure, expand, get_family

# Extra readable spellings accepted on input (the canonical one is
# Family.readable and is what str() prints).
_ALIASES = {
    "MAP": "AP", "MRR": "RR", "Rprec": "R-prec", "R-precision": "R-prec",
    "Recall@{}": "R@{}", "Hits@{}": "Success@{}", "NDCG@{}": "nDCG@{}", "NDCG": "nDCG",
    "ndcg@{}": "nDCG@{}",
}


def _readable_table() -> dict[str, str]:
    from relkit.metrics.measures import load_all

    load_all()
    return {f.readable: f.name for f in REGISTRY.values() if f.readable}


def readable_name(m: Measure) -> str:
    """The readable spelling of ``m`` (trec_eval's when there is none).

    This is ``str(m)``, and :func:`parse_measure` reads it back as ``m``.

    Parameters
    ----------
    m : Measure
        A measure of a registered family.

    Returns
    -------
    str
        ``P@5``, ``nDCG@10``, ``AP``...; families without a readable name (and
        ``raw``/``pairs`` parameters given as text) keep trec_eval's spelling.

    Examples
    --------
    >>> from relkit.metrics.names import parse_measure, readable_name
    >>> [readable_name(m) for m in parse_measure("P.5,10")]
    ['P@5', 'P@10']
    >>> [readable_name(m) for m in parse_measure("utility.1,-1,0,0")]
    ['utility.1,-1,0,0']
    """
    fam = REGISTRY[m.family]
    if fam.readable and m.text is None:
        if "{}" in fam.readable:
            v = m.value
            if isinstance(v, float):   # shortest text that reads back as the same float
                v = np.format_float_positional(v, trim="-")
            return fam.readable.format(v)
        return fam.readable
    return m.trec_name


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
    relkit.metrics.errors.MeasureError: unknown measure 'ndgc@10'; did you mean ndcg, Rndcg, dcg?
    >>> parse_measure("P@0")
    Traceback (most recent call last):
    ...
    relkit.metrics.errors.MeasureError: The 'cutoff' parameter of P must be an int >= 1; got '0'
    """
    from relkit.metrics.measures.trec_table import NICKNAMES

    name = name.strip()
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
    """The hint for an unknown measure name: "; did you mean ...?", or "".

    Parameters
    ----------
    name : str
        The unknown name, in either spelling.

    Returns
    -------
    str
        Up to three close family names, nicknames or readable names.

    Examples
    --------
    >>> from relkit.metrics.names import suggest
    >>> suggest("ndgc")
    '; did you mean ndcg, Rndcg, dcg?'
    >>> suggest("qqq")
    ''
    """
    from relkit.metrics.measures.trec_table import NICKNAMES

    pool = list(REGISTRY) + list(NICKNAMES) + [
        r.replace("{}", "10") for r in _readable_table()]
    close = difflib.get_close_matches(name.split(".")[0].split("@")[0], pool, n=3, cutoff=0.5)
    if not close:
        close = difflib.get_close_matches(name, pool, n=3, cutoff=0.5)
    return f"; did you mean {', '.join(close)}?" if close else ""

