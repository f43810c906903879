"""A self-contained HTML report of a comparison.

One file, no script and no network: styles inline, each chart an SVG embedded
as a ``data:`` URI in an ``<img>`` (so the ids matplotlib writes into one SVG
cannot clash with another's, as they would inlined in one document).
"""

from __future__ import annotations

import base64
import html
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.compare.html_tables import frame_table, systems_table
from relkit.metrics.compare.significance import get_test

if TYPE_CHECKING:

    from relkit.metrics.compare.core import Comparison
    from relkit.metrics.data import Qrels, Run

CSS = """
body { font-family: system-ui, sans-serif; margin: 2em auto; max-width: 1220px;
       color: #222; padding: 0 1em; }
h1 { font-size: 1.6em; } h2 { font-size: 1.25em; margin-top: 2em; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.9em; }
th, td { padding: 0.25em 0.7em; border-bottom: 1px solid #ccc; text-align: right; }
td { white-space: nowrap; }
td.num { font-variant-numeric: tabular-nums; }
span.mark { display: inline-block; text-align: left; padding-left: 0.15em;
            font-size: 0.75em; vertical-align: 0.4em; line-height: 1; }
th:first-child, td:first-child { text-align: left; }
thead th { border-bottom: 2px solid #444; }
td.sig { font-weight: bold; } td.flag { color: #777; }
figure.chart { margin: 1.5em 0; }
figure.chart img { max-width: 100%; height: auto; display: block; }
figcaption, p.legend { color: #555; font-size: 0.9em; }
dl.settings { display: grid; grid-template-columns: max-content auto; gap: 0.2em 1em; }
dl.settings dt { font-weight: bold; }
div.wide { overflow-x: auto; }
table.pairs :is(td, th):nth-child(-n+3),
table.topics :is(td, th):nth-child(3), table.topics :is(td, th):nth-child(4) {
  text-align: left; }
"""


@dataclass(frozen=True)
class Chart:
    """One chart of the report: an id, a caption and the SVG text."""

    key: str
    caption: str
    svg: str

    def html(self) -> str:
        data = base64.b64encode(self.svg.encode("utf-8")).decode("ascii")
        cap = html.escape(self.caption)
        return (f'<figure class="chart" id="chart-{self.key}">'
                f'<img alt="{cap}" src="data:image/svg+xml;base64,{data}">'
                f"<figcaption>{cap}</figcaption></figure>")


def _esc(x: object) -> str:
    return html.escape(str(x))


MAX_HISTOGRAMS = 6


def histogram_pairs(cmp: Comparison, measure: str) -> tuple[list[tuple[str, str]], str]:
    """The pairs whose precision histograms are shown, and why those.

    The pairs that differ significantly on ``measure``, the largest effect
    (:math:`|d_z|`) first, at most :data:`MAX_HISTOGRAMS`; when none does, the
    pair with the largest effect. Each pair is oriented better first (a positive
    mean difference). Without tested pairs: the two systems with the best means.
    """
    tested = sorted((p for p in cmp.pairs if p.measure == measure),
                    key=lambda p: -abs(p.effect) if np.isfinite(p.effect) else 0.0)
    sig = [p for p in tested if p.significant]
    chosen = sig[:MAX_HISTOGRAMS] or tested[:1]
    pairs = [(p.a, p.b) if p.diff >= 0 else (p.b, p.a) for p in chosen]
    corr = "" if cmp.correction == "none" else f", {cmp.correction}-corrected"
    how = f"{get_test(cmp.test).description}{corr}, alpha {cmp.alpha:g}"
    if sig:
        shown = (f"the {len(chosen)} with the largest effect of " if len(sig) > len(chosen)
                 else "")
        n = len(sig)
        return pairs, (f"{shown}the {n} pair{'s' * (n > 1)} that differ{'s' * (n == 1)} "
                       f"significantly on {measure} ({how})")
    if tested:
        return pairs, (f"no pair differs significantly on {measure} ({how}); shown: the "
                       "pair with the largest effect")
    m = cmp.scores.measure_index(measure)
    order = [cmp.systems[i] for i in np.argsort(-cmp.means[m], kind="stable")]
    return [(order[0], order[1])], "the two systems with the best means (no pair tested)"


def chart_count(cmp: Comparison, qrels: Qrels | None = None,
                runs: Mapping[str, Run] | None = None) -> int:
    """How many charts :func:`charts` draws (for a progress bar)."""
    return bool(qrels is not None and runs) + 2 * (len(cmp.systems) >= 2) + 1


def report_steps(cmp: Comparison, qrels: Qrels | None = None,
                 runs: Mapping[str, Run] | None = None) -> int:
    """How many steps :func:`html_report` tells its ``progress`` of: the tables, each
    chart, the topics table."""
    return chart_count(cmp, qrels, runs) + 2


Progress = Callable[[int, int, str], None]


def charts(cmp: Comparison, qrels: Qrels | None = None, runs: Mapping[str, Run] | None = None,
           *, measure: str | None = None, level: int = 1,
           progress: Progress | None = None, start: int = 0,
           total: int | None = None) -> list[Chart]:
    """Every chart of the report, as SVG (precision-recall curves need the runs).

    ``progress(done, total, label)`` is called before each chart is drawn, ``label``
    naming it, and after the last (matplotlib's import and the charts are most of a
    report's time); ``done`` counts from ``start`` out of ``total`` (default: the charts).
    """
    from relkit.metrics.compare import analysis, plots

    measure = measure or ("AP" if "AP" in cmp.measures else cmp.measures[0])
    total = chart_count(cmp, qrels, runs) if total is None else total
    titles = iter(([] if qrels is None or not runs else ["precision-recall curves"])
                 + (["precision histograms", "differences from the mean"]
                    if len(cmp.systems) >= 2 else []) + ["heat map"])
    out: list[Chart] = []

    def drawn() -> None:
        if progress is not None:
            progress(start + len(out), total,
                     f"drawing the report's charts: {next(titles, 'all drawn')}")

    drawn()
    if qrels is not None and runs:
        curves = analysis.pr_curves(qrels, runs, cmp.scores.topics, level=level)
        out.append(Chart("pr", "Mean 11-point interpolated precision-recall curves",
                         plots.svg(plots.pr_chart(curves))))
        drawn()
    if len(cmp.systems) >= 2:
        pairs, why = histogram_pairs(cmp, measure)
        hists = [(analysis.precision_histogram(cmp.scores, measure, a, b), a, b)
                 for a, b in pairs]
        fig = (plots.histogram_pair(hists[0][0], measure, *pairs[0]) if len(hists) == 1
               else plots.histogram_pairs(hists, measure))
        names = "; ".join(f"{a} − {b}" for a, b in pairs)
        out.append(Chart("histogram", f"Precision histogram{'s' * (len(pairs) > 1)} of "
                         f"{why}: per-topic {measure} of the first system minus the second, "
                         f"sorted. Shown: {names}.", plots.svg(fig)))
        drawn()
        out.append(Chart("vs-mean", f"Per-topic {measure} of each system minus the mean of "
                         "all systems, sorted",
                         plots.svg(plots.histogram_vs_mean(cmp.scores, measure))))
        drawn()
    out.append(Chart("heatmap", f"Per-topic {measure}: systems x topics",
                     plots.svg(plots.heatmap_chart(cmp.scores, measure))))
    drawn()
    return out


def html_report(cmp: Comparison, qrels: Qrels | None = None,
                runs: Mapping[str, Run] | None = None, *, measure: str | None = None,
                top: int = 10, level: int = 1, title: str = "System comparison",
                sources: Mapping[str, str] | None = None,
                progress: Progress | None = None) -> str:
    """The whole report as one HTML document.

    ``measure`` is the one the per-topic charts and tables use (default AP when
    compared, else the first measure); ``top`` topics are listed as the ones
    where the systems differ most; ``sources`` (label -> file) are listed in the
    settings. ``progress(done, total, label)`` is told of each step before it starts:
    the tables, each chart (:func:`charts`), the topics table (:func:`report_steps`).
    """
    from relkit.metrics.compare import analysis

    total = report_steps(cmp, qrels, runs)
    if progress is not None:
        progress(0, total, "the report's tables")
    measure = measure or ("AP" if "AP" in cmp.measures else cmp.measures[0])
    cmp.scores.measure_index(measure)                   # raises if not compared
    settings = {"Topics": str(len(cmp.scores.topics)), "Systems": str(len(cmp.systems)),
                "Test": cmp.test, "Correction": cmp.correction, "alpha": f"{cmp.alpha:g}",
                "Baseline": cmp.baseline or "none (all pairs)"}
    filled = {s: n for s, n in cmp.scores.filled.items() if n}
    if filled:
        settings["Topics scored 0 (no lines)"] = ", ".join(f"{s}: {n}" for s, n in
                                                          filled.items())
    settings.update(sources or {})
    parts = [f"<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>{_esc(title)}</title><style>{CSS}</style></head><body>",
             f"<h1>{_esc(title)}</h1>", "<dl class='settings'>",
             *(f"<dt>{_esc(k)}</dt><dd>{_esc(v)}</dd>" for k, v in settings.items()),
             "</dl>", "<h2>Systems</h2>", systems_table(cmp)]
    if cmp.pairs:
        pairs = cmp.pairs_frame().rename(columns={"diff": "mean diff (a − b)",
                                                  "effect": "effect d_z"})
        parts += ["<h2>Tested pairs</h2>",
                  frame_table(pairs, "pairs", p_values=("p", "p_adjusted"))]
    if len(cmp.measures) >= 2 and len(cmp.systems) >= 2:
        tau = analysis.ordering_correlation(cmp.scores).reset_index(names="measure")
        parts += ["<h2>Do the measures agree on the ordering?</h2>",
                  "<p class='legend'>Kendall's τ between the system orderings by mean.</p>",
                  frame_table(tau, "tau", 3)]
    parts.append("<h2>Charts</h2>")
    parts += [c.html() for c in charts(cmp, qrels, runs, measure=measure, level=level,
                                       progress=progress, start=1, total=total)]
    if progress is not None:
        progress(total - 1, total, "the report's topics table")
    parts += [f"<h2>Topics where the systems differ most ({_esc(measure)})</h2>",
              frame_table(analysis.most_different(cmp.scores, measure, top), "topics"),
              "</body></html>"]
    text = "\n".join(parts) + "\n"
    if progress is not None:
        progress(total, total, "the report's topics table")
    return text
