"""Evaluate one run in one call: :func:`evaluate`, the front door's shortest path.

:class:`relkit.metrics.evaluator.Evaluator` prepares qrels once for many runs;
this is the one-run case for a notebook or a script, with the same options and the
same numbers (it builds an Evaluator and calls :meth:`~Evaluator.compute`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from relkit.metrics.evaluator import Compat, Evaluator

if TYPE_CHECKING:
    from relkit.metrics.evaluator import Result
    from relkit.metrics.measures.base import Measure


def evaluate(qrels: Any, run: Any, measures: Sequence[str | Measure] | str = ("official",),
             *, level: int = 1, judged_only: bool = False, max_docs: int | None = None,
             complete: bool = False, num_docs: int = 0, compat: Compat = 10) -> Result:
    """Evaluate one run against qrels, with trec_eval's numbers.

    Parameters
    ----------
    qrels : Qrels, path, frame or dict
        Anything :meth:`relkit.metrics.data.Qrels.coerce` takes: a :class:`Qrels`, a
        TREC qrels path (``.gz``, ``.parquet`` too), ``{query_id: {doc_id: grade}}``...
    run : Run, path, frame or dict
        Anything :meth:`relkit.metrics.data.Run.coerce` takes (``{query_id: {doc_id:
        score}}`` too).
    measures : str or sequence of str, default ("official",)
        Names in any dialect (``nDCG@10``, ``ndcg_cut.10``, ``AP``, ``P.5,10``) or
        trec_eval's nicknames (``official``, ``all_trec``).
    level, judged_only, max_docs, complete, num_docs, compat
        trec_eval's ``-l``, ``-J``, ``-M``, ``-c``, ``-N`` and the compatibility
        level (10, or 9 for trec_eval 9.0.8 / pytrec_eval), as for
        :class:`~relkit.metrics.evaluator.Evaluator`.

    Returns
    -------
    Result
        Per-topic values and trec_eval's summary of every measure; ``.to_dict()``
        gives the summaries, ``.plot()`` charts one measure per topic and, in a
        notebook, the result shows as a small table.

    Raises
    ------
    MeasureError
        For an unknown measure (close names suggested) or an option out of range.
    EvaluationError
        When no topic has both run lines and judgments.

    See Also
    --------
    relkit.metrics.evaluator.Evaluator : qrels prepared once, many runs.
    relkit.metrics.compare.compare : several runs, with significance tests.

    Examples
    --------
    Two topics; the run finds q1's relevant document at rank 2, q2's at rank 1:

    >>> from relkit import evaluate
    >>> qrels = {"q1": {"d1": 1, "d2": 0}, "q2": {"d3": 2}}
    >>> run = {"q1": {"d2": 0.9, "d1": 0.8}, "q2": {"d3": 0.7, "d4": 0.1}}
    >>> res = evaluate(qrels, run, ["AP", "P@1"])
    >>> res
    <Result 'run': 2 topics, AP=0.7500 P@1=0.5000>
    >>> res.to_dict()
    {'AP': 0.75, 'P@1': 0.5}
    >>> res.topics, res.values[0].tolist()      # AP per topic: 1/2 and 1
    (['q1', 'q2'], [0.5, 1.0])
    """
    ev = Evaluator(qrels, [measures] if isinstance(measures, str) else measures, level=level,
                   judged_only=judged_only, max_docs=max_docs, complete=complete,
                   num_docs=num_docs, compat=compat)
    return ev.compute(run)
