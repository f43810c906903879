"""``relkit clicks stats --plot``: CTR by rank, one line per group, as SVG.

matplotlib is imported here only (the command loads it only with ``--plot``), on an
Agg canvas through the object API, which leaves matplotlib's global state alone.
"""

from __future__ import annotations

import os
from pathlib import Path

from relkit.metrics.online.stats import GroupStats


def ctr_plot(groups: list[GroupStats], by: str | None, path: str | Path,
             title: str = "") -> None:
    """Write the CTR-by-rank chart of ``groups`` to ``path`` (SVG), whole or not at all."""
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(6.4, 4.0))
    FigureCanvasAgg(fig)
    ax = fig.add_subplot()
    markers = "osD^v<>"
    for i, g in enumerate(groups):
        ranks = sorted(g.ctr)
        ctr = [g.ctr[r][1] / g.ctr[r][0] if g.ctr[r][0] else float("nan") for r in ranks]
        label = "all" if by is None else f"{by}={g.group if g.group is not None else '-'}"
        ax.plot(ranks, ctr, marker=markers[i % len(markers)], label=label)
    ax.set_xlabel("rank")
    ax.set_ylabel("CTR (share of results shown that were clicked)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    if title:
        ax.set_title(f"CTR by rank: {title}")
    if len(groups) > 1 or by is not None:
        ax.legend()
    fig.tight_layout()
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        fig.savefig(tmp, format="svg")
        os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.remove(tmp)
