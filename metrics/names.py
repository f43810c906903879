"""Measure names both ways: trec_eval spellings and readable ones.

``P.5`` / ``P@5``, ``ndcg_cut.10`` / ``nDCG@10``, ``map`` / ``AP``,
``recip_rank`` / ``RR``, ``recall.100`` / ``R@100``... ``str(measure)`` gives
the readable spelling and parses back to an equal measure.
"""

from __future__ import annotations

import re

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


def get_family(name: str) -> Family:
    """The family called ``name`` (trec_eval's spelling); unknown names suggest others."""
    fam = REGISTRY.get(name)
    if fam is None:
        raise REGISTRY.unknown(name, hint=suggest(name))
    return fam


def expand(family: str, text: str | None) -> list[Measure]:
    """Measures requested by trec_eval syntax ``family[.text]``."""
    fam = get_family(family)
    return [Measure(fam.name, v, text if fam.param_kind in ("raw", "pairs") else None, out)
            for v, out in fam.values(text)]


def parse_measure(name: str) -> list[Measure]:
    """Parse one name (readable or trec_eval) into the measures it denotes."""
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
    """``"; did you mean 'ndcg'?"`` for an unknown name, or ``""``.

    Offers families, nicknames and readable spellings, matched on the name's stem
    first (``ndgc.10`` and ``nDGC@10`` are near ``ndcg``), then on the whole name.
    """
    pool = [*REGISTRY, *NICKNAMES, *(r.replace("{}", "10") for r in _readable_table())]
    return (did_you_mean(name.split(".")[0].split("@")[0], pool)
            or did_you_mean(name, pool))
