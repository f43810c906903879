"""Per-topic views of a comparison, as data (the charts in :mod:`.plots` draw these).

* :func:`precision_histogram` - per-topic difference of two systems (or of one
  system and the mean of all), sorted: where a system wins and loses.
* :func:`most_different` - the topics on which the systems disagree most.
* :func:`heatmap` - systems x topics values, topics sorted by their mean.
* :func:`pr_curves` - 11-point interpolated precision-recall curve per system.
* :func:`ordering_correlation` - Kendall's tau between the system orderings
  two measures give (:mod:`relkit.metrics.compare.correlation`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.compare.scores import Scores
    from relkit.metrics.data import Qrels, Run


def _tie_safe(x: np.ndarray) -> np.ndarray:
    """Sort keys rounded to 12 decimals: 0.6 - 0.8 and 0.1 - 0.3 are the same tie."""
    return np.round(x, 12)


def precision_histogram(scores: Scores, measure: str, a: str, b: str | None = None
                        ) -> pd.DataFrame:
    r"""Per-topic differences, largest first: the data of a precision histogram.

    .. math:: \Delta_q = M_q(a) - M_q(b) \quad\text{or}\quad
              \Delta_q = M_q(a) - \tfrac1S \sum_s M_q(s) \text{ when } b \text{ is None}

    Columns ``query_id, difference``; a difference of floating-point noise is 0 (the
    rule of :mod:`relkit.metrics.compare.ties`); ties in the difference keep topic order
    (a stable sort), so the result is deterministic.

    Reference: G. Salton & M. J. McGill, Introduction to Modern Information
    Retrieval, 1983 (the "precision histogram" of R-precision differences);
    D. K. Harman, TREC overview papers (per-topic difference plots).
    """
    import pandas as pd

    from relkit.metrics.compare.ties import difference

    values = scores.of(measure)
    first = values[scores.system_index(a)]
    other = values.mean(axis=0) if b is None else values[scores.system_index(b)]
    diff = difference(first, other)
    order = np.argsort(-_tie_safe(diff), kind="stable")
    return pd.DataFrame({"query_id": np.asarray(scores.topics, dtype=object)[order],
                         "difference": diff[order]})


def most_different(scores: Scores, measure: str, n: int = 10) -> pd.DataFrame:
    """The ``n`` topics with the largest spread (max - min over systems).

    Columns ``query_id, spread, best, worst`` and one column per system with its
    value; ties in spread keep topic order. ``best`` and ``worst`` name every system
    tied there (comma-separated), by the rule the tables bold by
    (:mod:`relkit.metrics.compare.ties`).
    """
    import pandas as pd

    from relkit.metrics.compare.ties import tied_with_best

    values = scores.of(measure)
    spread = values.max(axis=0) - values.min(axis=0)
    order = np.argsort(-_tie_safe(spread), kind="stable")[:n]

    def named(col: np.ndarray, lowest: bool) -> str:
        mask = tied_with_best(col, lowest=lowest)
        return ", ".join(s for s, m in zip(scores.systems, mask, strict=True) if m)

    frame = pd.DataFrame({
        "query_id": np.asarray(scores.topics, dtype=object)[order],
        "spread": spread[order],
        "best": [named(values[:, t], False) for t in order],
        "worst": [named(values[:, t], True) for t in order],
    })
    for s, name in enumerate(scores.systems):
        frame[name] = values[s, order]
    return frame


def heatmap(scores: Scores, measure: str) -> tuple[np.ndarray, list[str]]:
    """Systems x topics values of ``measure``, topics sorted by their mean over
    systems (hardest left); returns the matrix and the topic ids in that order."""
    values = scores.of(measure)
    order = np.argsort(_tie_safe(values.mean(axis=0)), kind="stable")
    return values[:, order], [scores.topics[i] for i in order]


def pr_curves(qrels: Qrels, runs: Mapping[str, Run], topics: tuple[str, ...] | None = None,
              *, level: int = 1) -> pd.DataFrame:
    """Mean 11-point interpolated precision per system (columns ``system, recall,
    precision``) over ``topics`` (default: those each run answered); a run with
    no lines for one of ``topics`` counts 0 there, as in the score matrix."""
    import pandas as pd

    from relkit.metrics.compare.curves import interpolated_pr

    frames = []
    for name, run in runs.items():
        curve = interpolated_pr(qrels, run, level=level)
        per_topic = curve[curve["query_id"] != "all"].pivot(
            index="query_id", columns="recall", values="precision")
        if topics is not None:
            per_topic = per_topic.reindex(list(topics), fill_value=0.0)
        mean = per_topic.mean(axis=0)
        frames.append(pd.DataFrame({"system": name, "recall": mean.index.to_numpy(float),
                                    "precision": mean.to_numpy(float)}))
    return pd.concat(frames, ignore_index=True)


def ordering_correlation(scores: Scores) -> pd.DataFrame:
    """Kendall's tau between the system orderings of every two measures
    (measures x measures; 1 on the diagonal; NaN where undefined)."""
    import pandas as pd

    from relkit.metrics.compare.correlation import kendall_tau

    means = scores.values.mean(axis=2)
    k = len(scores.measures)
    out = np.ones((k, k))
    for i in range(k):
        for j in range(i + 1, k):
            a = dict(zip(scores.systems, means[i].tolist(), strict=True))
            b = dict(zip(scores.systems, means[j].tolist(), strict=True))
            tau = kendall_tau(a, b).value
            out[i, j] = out[j, i] = np.nan if tau is None else tau
    return pd.DataFrame(out, index=list(scores.measures), columns=list(scores.measures))
