"""The ``pool-simulate --plot`` chart: relevant found against judgments per topic.

Good strategies find nearly the same documents, so their curves lie on top of
each other: each gets its own dash pattern and marker as well as a colour, and
is labelled at its end (labels spread apart where the ends crowd, each joined to
its line by a thin leader) or, when more than :data:`MAX_DIRECT` lines end together
(a pool exhausted: every strategy found everything), named in a legend outside
the plot, whose samples show each dash pattern and marker. A lower panel shows
each curve minus the first strategy's, where the differences the upper panel
hides become visible.
matplotlib is imported here only (the command loads it only with ``--plot``);
the object API on an Agg canvas leaves matplotlib's global state alone.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from matplotlib.figure import Figure

# dash patterns that stay apart in print and in grey; named ones first
DASHES: tuple[Any, ...] = ("-", "--", ":", "-.", (0, (6, 2, 1, 2, 1, 2)), (0, (10, 3)),
                           (0, (1, 3)), (0, (4, 1, 1, 1)))
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*", "<", ">")
MARKS_PER_LINE = 8
LABEL_GAP = 0.065        # axes fraction between two end labels
MAX_DIRECT = 5           # more lines than this get a legend, not labels at their ends
MAX_SHIFT = 0.12         # an end label moved further than this from its line: a legend


def style(i: int) -> dict[str, Any]:
    """Dash pattern, marker and colour of the i-th strategy."""
    return {"linestyle": DASHES[i % len(DASHES)], "marker": MARKERS[i % len(MARKERS)],
            "color": f"C{i % 10}"}


def spread(ys: list[float], gap: float = LABEL_GAP) -> list[float]:
    """Label heights (axes fractions) near ``ys``, at least ``gap`` apart, within [0, 1],
    in the same order as ``ys``."""
    order = sorted(range(len(ys)), key=lambda i: ys[i])
    out = [0.0] * len(ys)
    last = -1.0
    for i in order:
        last = max(ys[i], last + gap)
        out[i] = last
    ceiling = 1.0              # pushed past the top: push back down, only as far as needed
    for i in reversed(order):
        out[i] = max(0.0, min(out[i], ceiling))
        ceiling = out[i] - gap
    return out


def figure(curves: Mapping[str, Sequence[int]], budgets: Sequence[int] = (),
           title: str = "") -> Figure:
    """The chart as a matplotlib figure (one ``Line2D`` per strategy in the first axes).

    ``curves``: strategy -> relevant found after 0, 1, 2... judgments per topic (a
    :class:`~relkit.pooling.simulate.Simulation`'s ``curves``); ``budgets`` are marked.
    """
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    labels = list(curves)
    two = len(labels) >= 2
    fig = Figure(figsize=(8.5, 6 if two else 4.5), layout="constrained")
    FigureCanvasAgg(fig)
    if two:
        ax, diff_ax = fig.subplots(2, 1, sharex=True, height_ratios=(3, 1.4))
    else:
        ax, diff_ax = fig.subplots(1, 1), None
    top = max((len(c) - 1 for c in curves.values()), default=0)
    step = max(1, top // MARKS_PER_LINE)
    first = curves[labels[0]] if labels else []
    for i, (label, curve) in enumerate(curves.items()):
        # markers staggered so that lines on top of each other show all of theirs
        every = (i * step // max(len(labels), 1), step)
        ax.plot(range(len(curve)), curve, label=label, linewidth=1.6, markersize=5,
                markevery=every, **style(i))
        if diff_ax is not None:
            diff_ax.plot(range(len(curve)), [c - f for c, f in zip(curve, first, strict=False)],
                         linewidth=1.4, markersize=4, markevery=every, **style(i))
    for b in sorted(set(budgets)):
        for a in (ax, diff_ax) if diff_ax is not None else (ax,):
            a.axvline(b, color="#999", linewidth=0.8, linestyle=(0, (2, 3)), zorder=0)
    ax.set_xlim(-0.01 * top, max(top, 1) * 1.01)   # room for the markers at either end
    ax.set_ylabel("relevant documents found\n(all topics)")
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    if not _label_ends(ax, curves):
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize=8, frameon=False,
                  handlelength=3.5, title="strategy (found at the end)", title_fontsize=8,
                  labels=[f"{k} ({c[-1]:,})" for k, c in curves.items()])
    if diff_ax is not None:
        diff_ax.axhline(0, color="black", linewidth=0.8)
        diff_ax.set_ylabel(f"found minus {labels[0]}")
        diff_ax.grid(True, alpha=0.3)
        diff_ax.set_xlabel("judgments per topic (dotted: the budgets of the table)")
    else:
        ax.set_xlabel("judgments per topic (dotted: the budgets of the table)")
    return fig


def _label_ends(ax: Any, curves: Mapping[str, Sequence[int]]) -> bool:
    """Each strategy's name and final count in the right margin, by its line's end;
    False (nothing drawn) when the lines are too many or end too close together."""
    ends = [(label, len(curve) - 1, curve[-1]) for label, curve in curves.items()]
    low, high = ax.get_ylim()
    span = (high - low) or 1.0
    at = [(y - low) / span for _, _, y in ends]
    heights = spread(at)
    if len(ends) > MAX_DIRECT or any(abs(h - y) > MAX_SHIFT
                                     for h, y in zip(heights, at, strict=True)):
        return False
    for i, ((label, x, y), h) in enumerate(zip(ends, heights, strict=True)):
        ax.annotate(f"{label} ({y:,})", xy=(x, y), xycoords="data",
                    xytext=(1.03, h), textcoords="axes fraction", va="center", fontsize=9,
                    color=f"C{i % 10}", annotation_clip=False,
                    arrowprops={"arrowstyle": "-", "color": f"C{i % 10}", "linewidth": 0.6,
                                "shrinkA": 0, "shrinkB": 2})
    return True


def save(curves: Mapping[str, Sequence[int]], budgets: Sequence[int], path: str, *,
         title: str = "") -> None:
    """Write the chart to ``path`` (SVG, PNG or PDF by suffix), the same bytes each run."""
    import matplotlib

    fig = figure(curves, budgets, title)
    # a fixed hash salt and no date keep the SVG the same from one run to the next
    with matplotlib.rc_context({"svg.hashsalt": "relkit"}):
        fig.savefig(path, dpi=110,
                    metadata={"Date": None} if path.endswith(".svg") else None)
