"""Charts of a comparison with matplotlib, as SVG text.

Figures are built with the object API on an Agg canvas: no pyplot, so no
global state and no GUI backend, whatever the caller's matplotlib setup.
matplotlib is imported inside each function (``import metrics`` stays cheap).
Systems are told apart by line style and marker as well as colour, and the
heat map uses cividis (monotonic in lightness), so charts survive printing in
grey.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.compare.scores import Scores

LINESTYLES = ("-", "--", "-.", ":")
MARKERS = ("o", "s", "^", "D", "v", "x", "*", "P", "h", "<")
# a topic axis with more topics than this shows no topic labels (unreadable)
MAX_TOPIC_LABELS = 40


def new_figure(width: float, height: float) -> Any:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width, height), layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def svg(fig: Any) -> str:
    """The figure as a standalone SVG document (text as paths: no fonts needed)."""
    import matplotlib

    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path", "svg.hashsalt": "relkit"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    return buf.getvalue()


def style(i: int) -> dict[str, Any]:
    """Line style, marker and colour of the i-th system (distinct in grey too)."""
    return {"linestyle": LINESTYLES[i % len(LINESTYLES)], "marker": MARKERS[i % len(MARKERS)],
            "color": f"C{i % 10}"}


def _topic_ticks(ax: Any, topics: list[str], axis: str = "x") -> None:
    setter = ax.set_xticks if axis == "x" else ax.set_yticks
    if len(topics) <= MAX_TOPIC_LABELS:
        setter(range(len(topics)), topics, rotation=90 if axis == "x" else 0, fontsize=7)
    else:
        setter([])


def histogram_pair(hist: pd.DataFrame, measure: str, a: str, b: str) -> Any:
    """Bars of ``M(a) - M(b)`` per topic, sorted (a :func:`analysis.precision_histogram`)."""
    fig = new_figure(8, 3.6)
    ax = fig.add_subplot()
    diff = hist["difference"].to_numpy(float)
    x = np.arange(len(diff))
    up, down = _sides(diff)
    ax.bar(x[up], diff[up], width=1.0, color="C0", label=f"{a} better ({int(up.sum())})")
    ax.bar(x[down], diff[down], width=1.0, color="C3", hatch="//", edgecolor="white",
           linewidth=0, label=f"{b} better ({int(down.sum())})")
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlim(-0.5, len(diff) - 0.5)
    _topic_ticks(ax, [str(t) for t in hist["query_id"]])
    ax.set_xlabel(f"Topics, sorted by difference ({int((~up & ~down).sum())} tied)")
    ax.set_ylabel(f"{measure}({a}) − {measure}({b})")
    ax.set_title(f"Precision histogram: {a} vs {b} ({measure})")
    ax.legend(loc="upper right", fontsize=8)
    return fig


def _sides(diff: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Wins and losses of :func:`analysis.precision_histogram`'s differences, where a
    difference of floating-point noise is already 0, a tie (as in the tables:
    :mod:`relkit.metrics.compare.ties`)."""
    return diff > 0, diff < 0


def _bars(ax: Any, diff: np.ndarray) -> tuple[int, int]:
    """Sorted differences as bars: blue above zero, red hatched below (grey-safe)."""
    x = np.arange(len(diff))
    up, down = _sides(diff)
    ax.bar(x[up], diff[up], width=1.0, color="C0")
    ax.bar(x[down], diff[down], width=1.0, color="C3", hatch="//", edgecolor="white",
           linewidth=0)
    ax.axhline(0, color="black", linewidth=0.8)
    ax.set_xlim(-0.5, len(diff) - 0.5)
    return int(up.sum()), int(down.sum())


def histogram_pairs(hists: list[tuple[pd.DataFrame, str, str]], measure: str) -> Any:
    """One precision-histogram panel per pair ``(histogram, a, b)``, sharing the y axis."""
    n = len(hists)
    cols = min(3, n)
    rows = -(-n // cols)
    fig = new_figure(4 * cols, 2.8 * rows)
    axes = fig.subplots(rows, cols, sharey=True, squeeze=False)
    for i, (hist, a, b) in enumerate(hists):
        ax = axes[i // cols][i % cols]
        diff = hist["difference"].to_numpy(float)
        up, down = _bars(ax, diff)
        ax.set_title(f"{a}\nminus {b}", fontsize=8)
        ax.set_xticks([])
        ax.set_xlabel(f"Topics, sorted: {up} above, {down} below, "
                      f"{len(diff) - up - down} tied", fontsize=8)
        if i % cols == 0:
            ax.set_ylabel(f"{measure} difference", fontsize=8)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    fig.suptitle(f"Precision histograms ({measure}): first system minus second, per topic")
    return fig


def histogram_vs_mean(scores: Scores, measure: str) -> Any:
    """One panel per system: its per-topic value minus the mean of all systems."""
    from relkit.metrics.compare.analysis import precision_histogram

    n = len(scores.systems)
    cols = min(3, n)
    rows = -(-n // cols)
    fig = new_figure(4 * cols, 2.6 * rows)
    axes = fig.subplots(rows, cols, sharey=True, squeeze=False)
    for i, system in enumerate(scores.systems):
        ax = axes[i // cols][i % cols]
        diff = precision_histogram(scores, measure, system)["difference"].to_numpy(float)
        x = np.arange(len(diff))
        up, down = _sides(diff)
        ax.bar(x[up], diff[up], width=1.0, color="C0")
        ax.bar(x[down], diff[down], width=1.0, color="C3", hatch="//",
               edgecolor="white", linewidth=0)
        ax.axhline(0, color="black", linewidth=0.8)
        ax.set_title(system, fontsize=9)
        ax.set_xticks([])
        ax.set_xlabel("Topics, sorted", fontsize=8)
        if i % cols == 0:
            ax.set_ylabel(f"{measure} − mean", fontsize=8)
    for j in range(n, rows * cols):
        axes[j // cols][j % cols].set_visible(False)
    fig.suptitle(f"Each system minus the mean of all systems ({measure}) per topic")
    return fig


def pr_chart(curves: pd.DataFrame) -> Any:
    """Interpolated precision-recall curves of several systems on one chart."""
    fig = new_figure(6.5, 4.5)
    ax = fig.add_subplot()
    for i, (system, rows) in enumerate(curves.groupby("system", sort=False)):
        ax.plot(rows["recall"], rows["precision"], label=str(system), linewidth=1.4,
                markersize=5, **style(i))
    ax.set_xlabel("Recall")
    ax.set_ylabel("Interpolated precision")
    ax.set_xlim(0, 1)
    ax.set_ylim(0, 1.02)
    ax.grid(True, linewidth=0.4, alpha=0.6)
    ax.set_title("11-point interpolated precision-recall")
    ax.legend(fontsize=8, loc="upper right")
    return fig


def heatmap_chart(scores: Scores, measure: str) -> Any:
    """Systems x topics heat map of ``measure`` (topics sorted by mean)."""
    from relkit.metrics.compare.analysis import heatmap

    matrix, topics = heatmap(scores, measure)
    fig = new_figure(9, 1.2 + 0.45 * len(scores.systems))
    ax = fig.add_subplot()
    im = ax.imshow(matrix, aspect="auto", cmap="cividis", vmin=0,
                   vmax=max(1.0, float(matrix.max())), interpolation="nearest")
    ax.set_yticks(range(len(scores.systems)), list(scores.systems), fontsize=8)
    _topic_ticks(ax, topics)
    ax.set_xlabel(f"Topics ({len(topics)}), sorted by mean {measure} over systems")
    ax.set_ylabel("System")
    ax.set_title(f"Per-topic {measure}")
    fig.colorbar(im, ax=ax, label=measure, fraction=0.03)
    return fig
