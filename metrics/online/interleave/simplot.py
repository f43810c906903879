"""``relkit interleave simulate --plot``: agreement with the offline winner against impressions.

One line per method (the A/B test dashed): the agreement averaged over the pairs of runs
that have an offline winner, on a log scale of impressions. matplotlib is imported here
only (the command loads it only with ``--plot``), on an Agg canvas through the object
API, which leaves matplotlib's global state alone.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import numpy as np

from relkit.metrics.online.interleave.simulate import AB, LEVEL, PairResult


def mean_agreement(rows: Sequence[PairResult]) -> dict[str, np.ndarray]:
    """Per method (in the rows' order): the agreement averaged over the pairs with an
    offline winner."""
    out: dict[str, list[np.ndarray]] = {}
    for r in rows:
        agree = r.agreement
        if agree is not None:
            out.setdefault(r.method, []).append(agree)
    return {m: np.mean(v, axis=0) for m, v in out.items()}


def agreement_plot(rows: Sequence[PairResult], path: str | Path, title: str = "") -> None:
    """Write the chart to ``path`` (SVG), whole or not at all."""
    from matplotlib import rc_context
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    means = mean_agreement(rows)
    grid = rows[0].grid if rows else []
    markers = "osD^v"
    pairs = len({(r.run_a, r.run_b) for r in rows if r.agreement is not None})
    for i, (method, agree) in enumerate(means.items()):
        style = "--" if method == AB else "-"
        ax.plot(grid, agree, style, marker=markers[i % len(markers)], label=method)
    ax.axhline(LEVEL, color="grey", linewidth=0.8, linestyle=":")
    ax.set_xscale("log")
    ax.set_xlabel("impressions")
    ax.set_ylabel(f"agreement with the nDCG winner (mean of {pairs} pair(s))")
    ax.set_ylim(0.4, 1.02)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(title)
    if means:
        ax.legend(loc="lower right")
    fig.tight_layout()
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        # no date and fixed ids in the SVG: the same rows give the same bytes
        with rc_context({"svg.hashsalt": "relkit"}):
            fig.savefig(tmp, format="svg", metadata={"Date": None})
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
