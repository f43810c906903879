"""``relkit ab analyze --html``: one self-contained HTML page of the analysis.

Three charts (inline SVG from matplotlib, text as paths: no fonts, no scripts, nothing
fetched) and the table: a forest plot of each metric's relative change with its
interval, the cumulative effect of the first metric over time (delta-method interval
at each of a few cut-offs), and the click-through rate by rank per arm.
"""

from __future__ import annotations

import datetime as dt
import html
import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.online.ab.analysis import Analysis

if TYPE_CHECKING:
    import duckdb

    from relkit.metrics.online.ab.effect import Effect

CSS = """
body{font-family:system-ui,sans-serif;margin:24px auto;max-width:1200px;color:#222}
h1{font-size:1.4em} h2{font-size:1.1em;margin-top:1.6em}
table{border-collapse:collapse;font-variant-numeric:tabular-nums;font-size:.85em}
.scroll{overflow-x:auto}
th,td{padding:3px 6px;border-bottom:1px solid #ddd;text-align:right;white-space:nowrap}
th:first-child,td:first-child,td.text{text-align:left}
td.text{white-space:normal}
.flag{color:#a40000;font-weight:600} .note{color:#555;font-size:.9em;max-width:70em}
figure{margin:0} svg{max-width:100%;height:auto}
"""


def _esc(x: object) -> str:
    return html.escape(str(x))


def _pct(x: float) -> str:
    return "–" if not math.isfinite(x) else f"{100 * x:+.2f}%"


def _num(x: float | None, digits: int = 4) -> str:
    return "" if x is None or not math.isfinite(x) else f"{x:.{digits}f}"


def _p(x: float) -> str:
    return "" if not math.isfinite(x) else ("<0.0001" if x < 1e-4 else f"{x:.4f}")


def forest(analysis: Analysis) -> Any:
    """Each row's relative change (point) and interval (line), a zero line."""
    from relkit.metrics.compare.plots import new_figure

    rows = analysis.rows
    fig = new_figure(7.5, 0.45 * len(rows) + 1.0)
    ax = fig.add_subplot()
    for i, r in enumerate(rows):
        e = r.effect
        lo = e.rel_low if math.isfinite(e.rel_low) else e.rel
        hi = e.rel_high if math.isfinite(e.rel_high) else e.rel
        colour = "#1f77b4" if r.p_adjusted >= 0.05 else "#d62728"
        ax.plot([100 * lo, 100 * hi], [i, i], color=colour, lw=2)
        ax.plot([100 * e.rel], [i], "o", color=colour)
    ax.axvline(0, color="#555", lw=1, ls="--")
    ax.set_yticks(range(len(rows)),
                  [f"{r.metric} ({r.treatment_arm})" for r in rows])
    ax.invert_yaxis()
    ax.set_xlabel("relative change, % (interval; red: adjusted p < 0.05)")
    return fig


def cumulative(points: list[tuple[float, Effect]], metric: str) -> Any:
    """The first metric's delta and interval on the data up to each cut-off."""
    from relkit.metrics.compare.plots import new_figure

    fig = new_figure(7.5, 3.0)
    ax = fig.add_subplot()
    days = [(t - points[0][0]) / 86400 for t, _ in points]
    ax.fill_between(days, [100 * e.rel_low for _, e in points],
                    [100 * e.rel_high for _, e in points], color="#1f77b4", alpha=0.2,
                    label="95% interval")
    ax.plot(days, [100 * e.rel for _, e in points], "o-", color="#1f77b4",
            label="relative change")
    ax.axhline(0, color="#555", lw=1, ls="--")
    ax.set_xlabel("days since the first cut-off")
    ax.set_ylabel(f"{metric}, % change")
    ax.legend(loc="best", frameon=False)
    return fig


def ctr_chart(rows: list[tuple[str, int, float]]) -> Any:
    """CTR by rank, one line per arm."""
    from relkit.metrics.compare.plots import new_figure, style

    fig = new_figure(7.5, 3.0)
    ax = fig.add_subplot()
    arms = sorted({v for v, _, _ in rows})
    for i, arm in enumerate(arms):
        pts = [(r, c) for v, r, c in rows if v == arm]
        ax.plot([r for r, _ in pts], [c for _, c in pts], label=arm, **style(i))
    ax.set_xlabel("rank")
    ax.set_ylabel("CTR")
    ax.set_xticks(sorted({r for _, r, _ in rows}))
    ax.legend(frameon=False)
    return fig


def table_html(analysis: Analysis) -> str:
    """The results table (relative change with its interval, p and adjusted p)."""
    head = ["metric", "arm", "n control", "n treatment", "control", "treatment", "delta",
            "relative", "interval", "p", "adjusted p", "CUPED", "test"]
    out = ["<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"]
    for r in analysis.rows:
        e = r.effect
        cells = [r.metric, r.treatment_arm, str(e.n_control), str(e.n_treatment),
                 _num(e.control), _num(e.treatment), _num(e.delta), _pct(e.rel),
                 f"[{_pct(e.rel_low)}, {_pct(e.rel_high)}]", _p(r.p), _p(r.p_adjusted),
                 "" if e.variance_reduction is None else _pct(e.variance_reduction),
                 r.test + (f' <span class="flag">{_esc(r.flag)}</span>' if r.flag else "")]
        out.append("<tr>" + "".join(
            f'<td class="text">{c}</td>' if i in (0, 1, 12) else f"<td>{_esc(c)}</td>"
            for i, c in enumerate(cells)) + "</tr>")
    return '<div class="scroll">' + "\n".join(out) + "</table></div>"


def render(analysis: Analysis, *, title: str, over_time: list[tuple[float, Effect]],
           ctr: list[tuple[str, int, float]]) -> str:
    """The whole page as a string."""
    from relkit.metrics.compare.plots import svg

    parts = [f"<!doctype html><html lang=en><head><meta charset=utf-8>"
             f"<title>{_esc(title)}</title><style>{CSS}</style></head><body>",
             f"<h1>{_esc(title)}</h1>"]
    if analysis.srm is not None:
        s = analysis.srm
        counts = ", ".join(f"{_esc(a)}: {o:,}" for a, o in zip(s.arms, s.observed, strict=True))
        parts.append(f"<p>Sample-ratio check: {counts}; chi-squared p = {s.p:.3g}.</p>")
    if any(r.flag for r in analysis.rows):
        parts.append('<p class="flag">Per-impression tests on user-randomised data: their '
                     "standard errors are too small and their p-values too optimistic.</p>")
    parts += ["<h2>Results</h2>", table_html(analysis),
              "<h2>Relative change per metric</h2>", f"<figure>{svg(forest(analysis))}"
              "</figure>"]
    if len(over_time) >= 2:
        metric = analysis.rows[0].metric
        parts += [f"<h2>Cumulative effect over time: {_esc(metric)}</h2>",
                  f"<figure>{svg(cumulative(over_time, metric))}</figure>",
                  '<p class="note">Each point uses the data up to its cut-off; read it as '
                  "a trend, not as repeated tests (relkit ab monitor tests looks "
                  "properly).</p>"]
    if ctr:
        parts += ["<h2>Click-through rate by rank</h2>",
                  f"<figure>{svg(ctr_chart(ctr))}</figure>"]
    stamp = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    parts.append(f'<p class="note">relkit ab analyze, {stamp}. Ratio metrics are analysed '
                 "at the user with the delta method (Deng, Knoblich &amp; Lu, KDD 2018); "
                 "see docs/ab.md.</p></body></html>")
    return "\n".join(parts)


def write_report(path: Path, con: duckdb.DuckDBPyConnection, log: str, assign: str,
                 analysis: Analysis, *, title: str, good_dwell: float = 30.0,
                 points: int = 8) -> None:
    """Compute the over-time and by-rank data and write the page (to a temporary file
    first, then moved: a failure leaves nothing behind)."""
    import os
    import tempfile

    from relkit.metrics.online.ab.monitor import cutoffs, effects_over_time
    from relkit.metrics.online.ab.users import ctr_by_rank, get_metric

    over: list[tuple[float, Effect]] = []
    first = analysis.rows[0] if analysis.rows else None
    types = {c for c in con.table(log).columns}
    if first is not None and "ts" in types and not get_metric(first.metric).needs:
        over = effects_over_time(con, log, assign, first.metric, cutoffs(con, log, points),
                                 control=first.control_arm, good_dwell=good_dwell)
    text = render(analysis, title=title, over_time=over, ctr=ctr_by_rank(con, log, assign))
    fd, tmp = tempfile.mkstemp(dir=str(path.parent or Path(".")), suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise
