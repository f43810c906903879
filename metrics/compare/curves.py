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

# The 11 standard recall points 0.0, 0.1, ..., 1.0.
ELEVEN = tuple(i / 10 for i in range(11))


def pr_curve(qrels: Qrels, run: Run, *, level: int = 1, compat: int = 10) -> pd.DataFrame:
    r"""Recall and precision after each retrieved document.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    run : Run
        The ranking; its order is trec_eval's (score descending, then docno
        descending), whatever its rank column says.
    level : int, default 1
        Lowest grade that counts as relevant (trec_eval ``-l``).
    compat : {10, 9}, default 10
        The trec_eval version to match (9: scores rounded to single precision).

    Returns
    -------
    pandas.DataFrame
        One row per retrieved document of each topic with judgments, in rank
        order: ``query_id, rank, relevant, recall, precision``. ``rank`` is
        1-based; recall is 0 for a topic without relevant documents. A run that
        shares no topic with ``qrels`` gives an empty frame.

    See Also
    --------
    interpolated_pr : the interpolated curve at fixed recall points.

    Examples
    --------
    Topic q1 has two relevant documents, found at ranks 1 and 3:

    >>> from relkit.metrics.compare.curves import pr_curve
    >>> from relkit.metrics.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 2}})
    >>> run = Run.read("q1 Q0 d1 1 3.0 bm25\nq1 Q0 d2 2 2.0 bm25\nq1 Q0 d3 3 1.0 bm25\n")
    >>> pr_curve(qrels, run).round(3)
      query_id  rank  relevant  recall  precision
    0       q1     1      True     0.5      1.000
    1       q1     2     False     0.5      0.500
    2       q1     3      True     1.0      0.667
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
    r"""Interpolated precision at recall ``points`` (default the 11 standard ones).

    Interpolated precision at recall r is the highest precision at any rank
    whose recall is >= r (trec_eval's ``iprec_at_recall``; Salton & McGill
    1983); 0 when the run never reaches recall r.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    run : Run
        The ranking (trec_eval's order).
    points : tuple of float, default :data:`ELEVEN`
        Recall levels in [0, 1].
    level : int, default 1
        Lowest grade that counts as relevant.
    compat : {10, 9}, default 10
        The trec_eval version to match; 9 also uses its cutoff rule.

    Returns
    -------
    pandas.DataFrame
        ``query_id, recall, precision``: for each point, one row per topic with
        judgments, then a row ``query_id="all"`` with the mean over them (NaN
        when the run shares no topic with ``qrels``).

    See Also
    --------
    pr_curve : precision and recall after each retrieved document.

    Examples
    --------
    q1 finds its two relevant documents at ranks 1 and 3, q2 one of its two at
    rank 1 (so it never reaches recall 1):

    >>> from relkit.metrics.compare.curves import interpolated_pr
    >>> from relkit.metrics.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 2}, "q2": {"d4": 1, "d5": 1}})
    >>> run = Run.read("q1 Q0 d1 1 3.0 bm25\nq1 Q0 d2 2 2.0 bm25\nq1 Q0 d3 3 1.0 bm25\n"
    ...                "q2 Q0 d4 1 2.0 bm25\nq2 Q0 d6 2 1.0 bm25\n")
    >>> interpolated_pr(qrels, run, (0.5, 1.0)).round(3)
      query_id  recall  precision
    0       q1     0.5      1.000
    1       q2     0.5      1.000
    2      all     0.5      1.000
    3       q1     1.0      0.667
    4       q2     1.0      0.000
    5      all     1.0      0.333
    """
    import pandas as pd

    ctx = _ctx(qrels, run, level, compat)
    rows: list[tuple[str, float, float]] = []
    for x in points:
        v = iprec_at_recall(ctx, x)
        rows.extend(zip(ctx.ranked.topics, [x] * ctx.T, v.tolist(), strict=True))
        # no topic in common: NaN, without numpy's empty-mean warning
        rows.append(("all", x, float(np.mean(v)) if len(v) else float("nan")))
    return pd.DataFrame(rows, columns=["query_id", "recall", "precision"])


def _ctx(qrels: Qrels, run: Run, level: int, compat: int) -> Ctx:
    judged = JudgedTopics.prepare(Qrels.coerce(qrels))
    ranked = rank(Run.coerce(run), judged, float32_scores=compat < 10)
    return Ctx(ranked, judged, level, 0, compat)
