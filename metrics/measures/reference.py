"""The measure reference (docs/measures.md), generated from the registry."""

from __future__ import annotations

import inspect


def measures_markdown() -> str:
    """Markdown for every registered family: names, parameters, formula, reference.

    This is ``docs/measures.md``: ``python -m relkit.metrics.measures.reference`` prints it.

    Returns
    -------
    str
        A table of every family (trec_eval name, readable name, parameters and
        default, summary, origin, description), the nicknames, then one section
        per family with its formula and reference, in registry order.

    Examples
    --------
    >>> from relkit.metrics.measures.reference import measures_markdown
    >>> text = measures_markdown()
    >>> text.splitlines()[0]
    '# Measure reference'
    >>> print(next(line for line in text.splitlines() if line.startswith("| `ndcg_cut` ")))
    | `ndcg_cut` | `nDCG@k` | cutoffs (5,10,15,20,30,100,200,500,1000) | mean | trec_eval | ...
    """
    from relkit.metrics.measures import load_all
    from relkit.metrics.measures.base import REGISTRY
    from relkit.metrics.measures.trec_table import NICKNAMES

    load_all()
    out = ["# Measure reference", "",
           "Generated from the registry by "
           "`python -m relkit.metrics.measures.reference > docs/measures.md`;",
           "`tests/test_docs.py` fails when this file is stale.", "",
           "| trec_eval name | readable | parameters (default) | summary | origin | what |",
           "| --- | --- | --- | --- | --- | --- |"]
    for fam in REGISTRY.values():
        readable = (fam.readable or "").replace("{}", "k")
        default = f"{fam.param_kind} ({fam.default})" if fam.default else fam.param_kind
        origin = ("trec_eval 10" if fam.v10_only else "trec_eval") if fam.trec else "relkit"
        if fam.named is not None:    # ir_measures' named parameters, with their defaults
            default = "named (" + ", ".join(
                f"{p.name}={'largest grade' if p.default is None else repr(p.default)}"
                for p in fam.named.params) + ")"
            readable = f"{fam.named.head}(...)" + ("@k" if fam.named.cutoff else "")
        out.append(f"| `{fam.name}` | {readable and f'`{readable}`'} | {default} | "
                   f"{fam.summary} | {origin} | {fam.description} |")
    out += ["", "Nicknames: " + "; ".join(f"`{k}` = {' '.join(v)}" for k, v in
                                          NICKNAMES.items()), ""]
    for fam in REGISTRY.values():
        doc = fam.doc or inspect.getdoc(fam.compute) or fam.description
        out += [f"## {fam.name}", "", inspect.cleandoc(doc), ""]
    from relkit.metrics.measures.diversity import diversity_markdown

    out += diversity_markdown()   # measures of subtopic qrels: their own registry
    return "\n".join(out)


if __name__ == "__main__":
    print(measures_markdown(), end="")
