"""How a comparison shows itself in a session: a one-line repr, a notebook table, a chart.

The dataclass's own repr printed the whole score matrix and every pair (5k characters
for the sample's four runs, growing with topics x systems x measures). Here
:func:`comparison_repr` is one line, :func:`comparison_html` the systems x measures
table of the HTML report (best in bold, significance marks, every system and measure
name escaped) and :func:`plot_means` grouped bars of the means with their intervals
when the comparison has them.

The comparison's methods call these, so this module imports nothing that imports
:mod:`relkit.metrics.compare.core`: it works on the comparison's public attributes and
methods (``means``, ``wins``, ``letter``, ``shown_best``). Its cells (values, marks,
labels, what the marks mean) are the report's, from :mod:`relkit.metrics.compare.cells`;
only the markup and the legend's shorter head are its own.
"""

from __future__ import annotations

import html
from typing import Any

import numpy as np

from relkit.metrics.compare.cells import label, mark, marks_sentence, value
from relkit.metrics.result_view import axes

# The comparison, by its public surface (see the module's docstring for why not its type).
ComparisonLike = Any

# Systems a repr names before it says how many more there are.
REPR_SYSTEMS = 5


def comparison_repr(cmp: ComparisonLike) -> str:
    """One line: systems, measures, topics, the test and how many pairs differ.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.compare import Scores
    >>> from relkit.metrics.compare.core import compare_scores
    >>> scores = Scores(("bm25", "lm"), ("AP",), ("q1", "q2", "q3", "q4"),
    ...                 np.array([[[0.5, 0.6, 0.2, 0.9], [0.1, 0.3, 0.1, 0.5]]]))
    >>> compare_scores(scores, baseline="bm25")
    <Comparison of 2 systems (bm25, lm) on AP over 4 topics: t test, holm, alpha 0.05;
    1 of 1 pairs significant; baseline bm25>
    """
    names = ", ".join(cmp.systems[:REPR_SYSTEMS])
    if len(cmp.systems) > REPR_SYSTEMS:
        names += f", +{len(cmp.systems) - REPR_SYSTEMS} more"
    significant = sum(p.significant for p in cmp.pairs)
    tail = f"; baseline {cmp.baseline}" if cmp.baseline is not None else ""
    return (f"<Comparison of {len(cmp.systems)} systems ({names}) on "
            f"{', '.join(cmp.measures)} over {len(cmp.scores.topics)} topics: {cmp.test} "
            f"test, {cmp.correction}, alpha {cmp.alpha:g}; {significant} of {len(cmp.pairs)} "
            f"pairs significant{tail}>")


def comparison_html(cmp: ComparisonLike) -> str:
    """The systems x measures table: means (and intervals), the best in bold, marks.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.compare import Scores
    >>> from relkit.metrics.compare.core import compare_scores
    >>> scores = Scores(("<i>bm25</i>", "lm"), ("AP",), ("q1", "q2", "q3", "q4"),
    ...                 np.array([[[0.5, 0.6, 0.2, 0.9], [0.1, 0.3, 0.1, 0.5]]]))
    >>> print(compare_scores(scores)._repr_html_())
    <table><thead><tr><th>system</th><th>AP</th></tr></thead><tbody><tr><td>(a)
    &lt;i&gt;bm25&lt;/i&gt;</td><td style="text-align:right"><b>0.5500</b> b</td></tr><tr><td>(b)
    lm</td><td style="text-align:right">0.2500 </td></tr></tbody></table><p>Mean over 4
    topics; best in bold; t test, holm correction, alpha 0.05. Letters: significantly better
    than the systems with those letters.</p>
    """
    esc = html.escape
    head = "".join(f"<th>{esc(m)}</th>" for m in cmp.measures)
    rows = []
    for s, system in enumerate(cmp.systems):
        cells = [f"<td>{esc(label(cmp, system))}</td>"]
        for m, measure in enumerate(cmp.measures):
            text = esc(value(cmp, m, s))
            if system in cmp.shown_best(measure):
                text = f"<b>{text}</b>"
            cells.append(f'<td style="text-align:right">{text} '
                         f"{esc(mark(cmp, measure, system))}</td>")
        rows.append("<tr>" + "".join(cells) + "</tr>")
    legend = (f"Mean over {len(cmp.scores.topics)} topics; best in bold; {cmp.test} test, "
              f"{cmp.correction} correction, alpha {cmp.alpha:g}. {marks_sentence(cmp)}")
    return (f"<table><thead><tr><th>system</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table><p>{esc(legend)}</p>")


def plot_means(cmp: ComparisonLike, measures: list[str] | None = None, ax: Any = None) -> Any:
    """Grouped bars: one group per measure, one bar per system; the intervals as error
    bars when the comparison has them. Returns the matplotlib Axes drawn on."""
    chosen = list(cmp.measures) if measures is None else measures
    rows = [cmp.scores.measure_index(m) for m in chosen]      # unknown: CompareError
    ax = axes(ax, max(4.0, 1.2 * len(chosen) * max(1, len(cmp.systems)) / 3 + 2), 3.2)
    width = 0.8 / max(1, len(cmp.systems))
    x = np.arange(len(chosen))
    for s, system in enumerate(cmp.systems):
        means = cmp.means[rows, s]
        err = None
        if cmp.ci_low is not None and cmp.ci_high is not None:
            err = np.vstack([means - cmp.ci_low[rows, s], cmp.ci_high[rows, s] - means])
        ax.bar(x + (s - (len(cmp.systems) - 1) / 2) * width, means, width, yerr=err,
               label=system, capsize=2 if err is not None else 0)
    ax.set_xticks(x, chosen)
    ax.set_ylabel("mean over topics")
    ax.set_title(f"{len(cmp.systems)} systems over {len(cmp.scores.topics)} topics")
    ax.legend(fontsize="small")
    return ax
