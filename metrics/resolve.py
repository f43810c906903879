"""Measure requests to measures: which ones, de-duplicated, in trec_eval's print order.

A request is a name in any dialect (``P.5,10``, ``nDCG@10``, a nickname such as
``official``) or a :class:`~relkit.metrics.measures.base.Measure`; :func:`resolve` applies
trec_eval's rule that the first parameterised request of a family wins. The
:class:`~relkit.metrics.evaluator.Evaluator` resolves its measures here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from relkit.metrics.errors import MeasureError
from relkit.metrics.measures.base import REGISTRY, Family, Measure


def resolve(requests: Iterable[str | Measure], compat: int = 10) -> list[Measure]:
    """Turn measure requests into a de-duplicated list in trec_eval print order.

    trec_eval syntax (``P.5,10``): for each family the first request that
    carries parameters wins, as in trec_eval. Readable names add exactly the
    measures they denote.
    """
    from relkit.metrics.measures.trec_table import NICKNAMES
    from relkit.metrics.names import parse_measure

    _registry()
    chosen: dict[str, list[Measure]] = {}
    with_params: set[str] = set()
    extra: list[Measure] = []
    for req in measure_requests(requests):
        if isinstance(req, Measure):
            extra.append(req)
            continue
        name = req.strip()
        if "(rel=" in name:
            # A measure with its own level (P(rel=2)@5, P.5(rel=2)) adds exactly itself:
            # trec_eval's "first parameterised request wins" is about its plain names.
            extra.extend(parse_measure(name))
            continue
        family, dot, _text = name.partition(".")
        if name in NICKNAMES or (family in REGISTRY and "@" not in name) or (
                dot and family in _registry()):
            trec_family = dot and REGISTRY[family].trec
            if trec_family and family in with_params:
                continue                  # trec_eval: the first parameterised request wins
            if trec_family:
                chosen[family] = []
                with_params.add(family)
            for m in parse_measure(name):
                fam = m.family
                if compat < 10 and REGISTRY[fam].v10_only:
                    if name in NICKNAMES:
                        continue
                    raise MeasureError(f"measure {fam!r} does not exist in trec_eval 9 "
                                       "(--compat 9); use --compat 10")
                if (not dot and fam in with_params) or any(
                        x.output == m.output for x in chosen.get(fam, [])):
                    continue
                chosen.setdefault(fam, []).append(m)
        else:
            extra.extend(parse_measure(name))
    for m in extra:
        lst = chosen.setdefault(m.family, [])
        if all(x.output != m.output for x in lst):
            lst.append(m)
    out: list[Measure] = []
    for fam in sorted(chosen, key=lambda f: REGISTRY[f].order):
        ms = chosen[fam]
        if REGISTRY[fam].param_kind in ("cutoffs", "points"):
            ms = sorted(ms, key=lambda m: m.value)
        out.extend(ms)
    return out


def measure_requests(measures: Any) -> list[str | Measure]:
    """Measure requests as a list: one name or object alone is a list of one, and
    another library's measure object (ir_measures' ``nDCG@10``) becomes its name, ``str(m)``.
    """
    if isinstance(measures, (str, Measure)) or not isinstance(measures, Iterable):
        measures = [measures]
    return [m if isinstance(m, (str, Measure)) else str(m) for m in measures]


def _registry() -> Mapping[str, Family]:
    from relkit.metrics.measures import load_all

    load_all()
    return REGISTRY
