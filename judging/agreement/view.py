"""How an agreement analysis shows itself in a session: a one-line repr, a notebook table.

The dataclass's own repr printed every statistic of every pair and topic with its
intervals (49k characters for two assessors on six items). Here the repr is one line
with the assessors, the data's size and a few headline coefficients, and the notebook
table lists every overall statistic, graded and binarised; assessor names and the
scale's name are escaped (they come from the user's files). The functions take the
analysis by its attributes, so this module imports nothing of
:mod:`relkit.judging.agreement.analysis` (whose class calls them).
"""

from __future__ import annotations

import html
from typing import Any

# The headline coefficients of the repr: (level, statistic, label).
HEADLINE = (("graded", "krippendorff_alpha_ordinal", "alpha_ordinal"),
            ("graded", "gwet_ac1", "AC1"),
            ("binary", "mean_pairwise_cohen_kappa", "binary_kappa"))
# Assessors a repr names before it says how many more there are.
REPR_ASSESSORS = 4


def _value(stat: Any) -> str:
    return "n/a" if stat is None or stat.value is None else f"{stat.value:.4f}"


def analysis_repr(a: Any) -> str:
    """One line: who, on what, and the headline coefficients.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> level = NS(overall={"gwet_ac1": NS(value=0.5)})
    >>> print(analysis_repr(NS(assessors=("ann", "bob"), items=6, topics=3, scale="trec-dl",
    ...                        threshold=2, graded=level, binary=NS(overall={}))))
    <Analysis: 2 assessors (ann, bob), 6 items on 3 topics, trec-dl binarised at 2:
    alpha_ordinal=n/a AC1=0.5000 binary_kappa=n/a>
    """
    names = ", ".join(a.assessors[:REPR_ASSESSORS])
    if len(a.assessors) > REPR_ASSESSORS:
        names += f", +{len(a.assessors) - REPR_ASSESSORS} more"
    stats = " ".join(f"{label}={_value(getattr(a, level).overall.get(name))}"
                     for level, name, label in HEADLINE)
    return (f"<Analysis: {len(a.assessors)} assessors ({names}), {a.items:,} items on "
            f"{a.topics:,} topics, {a.scale} binarised at {a.threshold}: {stats}>")


def analysis_html(a: Any) -> str:
    """Every overall statistic, graded and binarised, in a small table; text escaped.

    Examples
    --------
    >>> from types import SimpleNamespace as NS
    >>> level = NS(overall={"gwet_ac1": NS(value=0.5)})
    >>> print(analysis_html(NS(assessors=("<b>ann</b>", "bob"), items=6, topics=3,
    ...                        scale="trec-dl", threshold=2, graded=level,
    ...                        binary=NS(overall={}))))
    <table><caption>2 assessors (&lt;b&gt;ann&lt;/b&gt;, bob), 6 items on 3 topics, trec-dl
    binarised at 2</caption>...<tr><td>gwet_ac1</td><td style="text-align:right">0.5000</td><td
    style="text-align:right">n/a</td></tr></tbody></table>
    """
    names = list(a.graded.overall) + [n for n in a.binary.overall if n not in a.graded.overall]
    rows = "".join(
        f"<tr><td>{html.escape(n)}</td>"
        f'<td style="text-align:right">{_value(a.graded.overall.get(n))}</td>'
        f'<td style="text-align:right">{_value(a.binary.overall.get(n))}</td></tr>'
        for n in names)
    caption = (f"{len(a.assessors)} assessors ({', '.join(a.assessors)}), {a.items:,} items "
               f"on {a.topics:,} topics, {a.scale} binarised at {a.threshold}")
    return (f"<table><caption>{html.escape(caption)}</caption><thead><tr><th>statistic</th>"
            f"<th>graded</th><th>binary</th></tr></thead><tbody>{rows}</tbody></table>")
