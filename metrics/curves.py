"""Precision-recall curves as data (for tables and plots)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.data import Qrels, Run
from relkit.metrics.measures.context import Ctx
from relkit.metrics.measures.trec_rank import iprec_at_recall
from relkit.metrics.ranking import JudgedTopics, rank

if TYPE_CHECKING:
    import pandas as pd

ELEVEN = tuple(i / 10 for i in range(11))


def pr_curve(qrels: Qrels, run: Run, *, level: int = 1, compat: int = 10) -> pd.DataFrame:
    """Recall and precision after each retrieved document.

    Columns ``query_id, rank, relevant, recall, precision``; recall is 0 for a
    topic without relevant documents. Ranking order is trec_eval's.
    """
    import pandas as pd

    ctx = _ctx(qrels, run, level, compat)
    recall = np.divide(ctx.cum_rel, ctx.R[ctx.tid], out=np.zeros(len(ctx.rel)),
                       where=ctx.R[ctx.tid] > 0)
    return pd.DataFrame({
        "query_id": np.asarray(ctx.ranked.topics, dtype=object)[ctx.tid],
        "rank": ctx.pos + 1,
        "relevant": ctx.is_rel,
        "recall": recall,
        "precision": ctx.cum_rel / ctx.rank,
    })


def interpolated_pr(qrels: Qrels, run: Run, points: tuple[float, ...] = ELEVEN, *,
                    level: int = 1, compat: int = 10) -> pd.DataFrame:
    """Interpolated precision at recall ``points`` (default the 11 standard ones).

    Interpolated precision at recall r is the highest precision at any rank
    whose recall is >= r (trec_eval's ``iprec_at_recall``; Salton & McGill
    1983). Columns: ``query_id`` (plus ``"all"``, the mean), ``recall``,
    ``precision``.
    """
    import pandas as pd

    ctx = _ctx(qrels, run, level, compat)
    rows: list[tuple[str, float, float]] = []
    for x in points:
        v = iprec_at_recall(ctx, x)
        rows.extend(zip(ctx.ranked.topics, [x] * ctx.T, v.tolist(), strict=True))
        rows.append(("all", x, float(np.mean(v))))
    return pd.DataFrame(rows, columns=["query_id", "recall", "precision"])


def _ctx(qrels: Qrels, run: Run, level: int, compat: int) -> Ctx:
    judged = JudgedTopics.prepare(qrels)
    ranked = rank(run, judged, float32_scores=compat < 10)
    return Ctx(ranked, judged, level, 0, compat)
