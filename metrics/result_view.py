"""One run's evaluation, :class:`Result`, and how it shows itself: a one-line repr, a
notebook table, a chart, and pandas' tidy per-topic frame and per-measure aggregates.

A :class:`Result` holds numpy arrays for every measure and topic; a dataclass's own
repr printed them all (5k characters for the sample's ``official`` measures, 17k for
``all_trec``). Here it is one line, a small HTML table for notebooks (every id and name
escaped: run ids and measure parameters come from the user's files) and a bar chart
of one measure over topics. The functions take the result's fields, not the result
(the Spark engine and ``relkit compare`` show what they hold the same way), and this
module imports nothing of the evaluator, which makes the result
(:class:`relkit.metrics.evaluator.Evaluator`; ``Result`` is importable from there
too). html, pandas and matplotlib are imported where they are used, never at import:
``relkit eval`` imports this module and prints none of them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.core.record import Record

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.measures.base import Measure

# Measures a repr names before it says how many more there are.
REPR_MEASURES = 4
# Rows of the notebook table before it says how many more there are.
HTML_ROWS = 30


def _fmt(measure: Any, value: Any) -> str:
    """A summary value as trec_eval prints it: floats to 4 decimals, counts whole.

    A count is what trec_eval's output prints as ``%ld``
    (:func:`relkit.metrics.measures.base.is_count`); a measure given by its name
    only (no family to ask) shows as a float.
    """
    from relkit.metrics.measures.base import is_count

    if hasattr(measure, "family") and is_count(measure):
        return str(int(value))
    if isinstance(value, float):
        return f"{value:.4f}"
    return str(value)


def _numeric(measures: Sequence[Any], summary: Sequence[Any]) -> list[tuple[str, str]]:
    """(name, shown value) of the measures with a number to show (not runid, strings)."""
    return [(str(m), _fmt(m, s)) for m, s in zip(measures, summary, strict=True)
            if s is not None and not isinstance(s, str)]


def result_repr(run_id: str, topics: Sequence[str], measures: Sequence[Any],
                summary: Sequence[Any]) -> str:
    """One line: the run, its topic count and the first measures' summary values.

    Examples
    --------
    >>> result_repr("bm25", ["1", "2"], ["AP", "P@5", "nDCG@10", "R-prec", "bpref"],
    ...             [0.5, 0.3, 0.61234, 0.4, 0.2])
    "<Result 'bm25': 2 topics, AP=0.5000 P@5=0.3000 nDCG@10=0.6123 R-prec=0.4000 (+1 more)>"
    """
    shown = _numeric(measures, summary)
    head = " ".join(f"{name}={text}" for name, text in shown[:REPR_MEASURES])
    more = f" (+{len(shown) - REPR_MEASURES} more)" if len(shown) > REPR_MEASURES else ""
    return f"<Result {run_id!r}: {len(topics)} topics, {head}{more}>"


def result_html(run_id: str, topics: Sequence[str], measures: Sequence[Any],
                summary: Sequence[Any]) -> str:
    """A two-column table (measure, value) headed by the run; every text escaped.

    Examples
    --------
    >>> print(result_html("<b>", ["1"], ["AP"], [0.5]))
    <table><caption>run &lt;b&gt;: 1 topics</caption><thead>...</thead><tbody><tr><td>AP</td><td
    style="text-align:right">0.5000</td></tr></tbody></table>
    """
    shown = _numeric(measures, summary)
    import html

    rows = "".join(f'<tr><td>{html.escape(name)}</td>'
                   f'<td style="text-align:right">{html.escape(text)}</td></tr>'
                   for name, text in shown[:HTML_ROWS])
    if len(shown) > HTML_ROWS:
        rows += f'<tr><td colspan="2">... {len(shown) - HTML_ROWS} more</td></tr>'
    return (f"<table><caption>run {html.escape(run_id)}: {len(topics)} topics</caption>"
            "<thead><tr><th>measure</th><th>value</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")


def pyplot() -> Any:
    """matplotlib's pyplot, or a :class:`~relkit.metrics.core.errors.RelkitError` saying
    how to install it (a runtime dependency of relkit; a trimmed environment may lack it).
    """
    try:
        import matplotlib.pyplot as plt
    except ImportError:
        from relkit.metrics.core.errors import RelkitError

        raise RelkitError("plot() needs matplotlib: pip install matplotlib "
                          "(a dependency of relkit; reinstall relkit to get it)") from None
    return plt


def axes(ax: Any, width: float, height: float) -> Any:
    """``ax``, or the axes of a new pyplot figure (shown inline by a notebook)."""
    if ax is not None:
        return ax
    _, new = pyplot().subplots(figsize=(width, height), layout="constrained")
    return new


def plot_result(run_id: str, topics: Sequence[str], measures: Sequence[Any],
                values: Sequence[Any], measure: str | None = None, ax: Any = None) -> Any:
    """Bars of one measure's per-topic values, topics in the result's order.

    ``measure``: a name in any spelling (``ndcg_cut.10`` for ``nDCG@10``); default the
    first measure with per-topic numbers. Returns the matplotlib ``Axes`` drawn on
    (``ax``, or a new figure's). An unknown or summary-only measure is a
    :class:`~relkit.metrics.core.errors.MeasureError` naming the ones there are.
    """
    import numpy as np

    from relkit.metrics.core.errors import MeasureError
    from relkit.metrics.resolve import resolve

    shown = {str(m): v for m, v in zip(measures, values, strict=True)
             if isinstance(v, np.ndarray)}
    if not shown:
        raise MeasureError(f"run {run_id!r}: no measure has per-topic values to plot")
    name = next(iter(shown)) if measure is None else measure
    if name not in shown:
        found = resolve([name], 10)     # another spelling of a measure shown?
        name = str(found[0]) if len(found) == 1 else name
    if name not in shown:
        raise MeasureError(f"run {run_id!r} has no per-topic values of {measure!r}; "
                           f"it has {', '.join(shown)}")
    ax = axes(ax, max(4.0, 0.3 * len(topics) + 1.5), 3.0)
    positions = list(range(len(topics)))
    ax.bar(positions, shown[name], color="#4a6fa5")
    if len(topics) <= 40:          # more labels than that are unreadable
        ax.set_xticks(positions, [str(t) for t in topics], rotation=90)
    ax.set_xlabel("topic")
    ax.set_ylabel(name)
    ax.set_title(f"{run_id}: {name} per topic")
    return ax


def per_topic_frame(run_id: str, topics: Sequence[str], measures: Sequence[Any],
                    values: Sequence[Any]) -> pd.DataFrame:
    """The tidy per-topic table (``run_id, query_id, measure, value``) of a result:
    measures by their readable name (``P@5``); string-valued and summary-only
    measures (and those trec_eval gives no per-topic value) left out."""
    import pandas as pd

    from relkit.metrics.measures.base import REGISTRY

    frames = [pd.DataFrame({"query_id": topics, "measure": str(m), "value": v})
              for m, v in zip(measures, values, strict=True)
              if not (v is None or isinstance(v, list) or not REGISTRY[m.family].per_query)]
    out = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(
        columns=["query_id", "measure", "value"])
    out.insert(0, "run_id", run_id)
    return out


def aggregates(measures: Sequence[Any], values: Sequence[Any], summary: Sequence[Any],
               how: str) -> dict[str, float]:
    """One value per measure of a result, by readable name: ``trec``, trec_eval's
    summaries (text-valued ones left out); ``mean``, ``median`` or ``gmean`` (with
    trec_eval's floor of 1e-5 for a zero) of its per-topic values."""
    import math

    out: dict[str, float] = {}
    for m, v, s in zip(measures, values, summary, strict=True):
        if how == "trec":
            if s is not None and not isinstance(s, str):
                out[str(m)] = s
        elif isinstance(v, np.ndarray):
            if how == "mean":
                out[str(m)] = float(np.mean(v))
            elif how == "median":
                out[str(m)] = float(np.median(v))
            else:  # gmean
                out[str(m)] = math.exp(float(np.mean(np.log(np.maximum(v, 1e-5)))))
    return out


class Result(Record):
    """Everything one run's evaluation produced, in trec_eval's order."""

    run_id: str
    topics: list[str]
    missing: np.ndarray
    measures: list[Measure]
    values: list[Any]              # per measure: ndarray or list[str] (None: summary-only)
    summary: list[Any]             # per measure: float, str, or None

    # A dataclass's repr printed every array (5k characters for trec_eval's
    # `official` measures): one line, a notebook table and a chart instead.
    def __repr__(self) -> str:
        return result_repr(self.run_id, self.topics, self.measures, self.summary)

    def _repr_html_(self) -> str:
        return result_html(self.run_id, self.topics, self.measures, self.summary)

    def to_dict(self) -> dict[str, float]:
        """Summary value per measure (readable name), the measures with a number."""
        return {str(m): float(s) for m, s in zip(self.measures, self.summary, strict=True)
                if s is not None and not isinstance(s, str)}

    def plot(self, measure: str | None = None, ax: Any = None) -> Any:
        """Bars of ``measure``'s per-topic values (default: the first measure with
        per-topic numbers); drawn on ``ax`` or a new figure. Returns the matplotlib Axes."""
        return plot_result(self.run_id, self.topics, self.measures, self.values, measure, ax)
