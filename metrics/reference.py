"""The measure reference (docs/measures.md), generated from the registry."""

from __future__ import annotations

import inspect


def measures_markdown() -> str:
    """Markdown for every registered family: names, parameters, formula, reference."""
    from relkit.metrics.measures import load_all
    from relkit.metrics.measures.base import REGISTRY
    from relkit.metrics.measures.trec_table import NICKNAMES

    load_all()
    out = ["# Measure reference", "",
           "Generated from the registry by "
           "`python -m relkit.metrics.reference > docs/measures.md`;",
           "`tests/test_docs.py` fails when this file is stale.", "",
           "| trec_eval name | readable | parameters (default) | summary | origin | what |",
           "| --- | --- | --- | --- | --- | --- |"]
    for fam in REGISTRY.values():
        readable = (fam.readable or "").replace("{}", "k")
        default = f"{fam.param_kind} ({fam.default})" if fam.default else fam.param_kind
        origin = ("trec_eval 10" if fam.v10_only else "trec_eval") if fam.trec else "relkit"
        out.append(f"| `{fam.name}` | {readable and f'`{readable}`'} | {default} | "
                   f"{fam.summary} | {origin} | {fam.description} |")
    out += ["", "Nicknames: " + "; ".join(f"`{k}` = {' '.join(v)}" for k, v in
                                          NICKNAMES.items()), ""]
    for fam in REGISTRY.values():
        doc = fam.doc or inspect.getdoc(fam.compute) or fam.description
        out += [f"## {fam.name}", "", inspect.cleandoc(doc), ""]
    return "\n".join(out)


if __name__ == "__main__":
    print(measures_markdown(), end="")
