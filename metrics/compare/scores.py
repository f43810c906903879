"""The per-topic score matrix every comparison starts from.

A paired test needs every system scored on the same topics. The topic set is
the union of the topics any run answered that have judgments (or, with
``complete``, every judged topic, as trec_eval ``-c``); a system without lines
for one of them scores 0 there, as trec_eval ``-c`` scores it. How many
topics were filled so is kept in :attr:`Scores.filled` for the report.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.commands.run_names import system_names  # noqa: F401  (named here before)
from relkit.metrics.compare.errors import CompareError
from relkit.metrics.core.registry import did_you_mean

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.data import Qrels, Run

# The measures a comparison shows when none are asked for.
DEFAULT_MEASURES = ("AP", "nDCG@10", "P@10")


@dataclass(frozen=True)
class Scores:
    """Per-topic values: ``values[measure, system, topic]``.

    Build one with :func:`score_matrix` from runs, or directly from values
    computed elsewhere.

    Attributes
    ----------
    systems, measures, topics : tuple of str
        The names along each axis of ``values``; systems are unique.
    values : numpy.ndarray
        Shape (measures, systems, topics).
    filled : dict[str, int]
        System -> number of topics it had no lines for (scored 0 there).

    Raises
    ------
    CompareError
        If ``values`` does not have that shape, or a system name repeats.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.compare import Scores
    >>> scores = Scores(("bm25", "lm"), ("AP", "P@1"), ("q1", "q2"),
    ...                 np.array([[[0.5, 0.6], [0.1, 0.3]], [[1.0, 0.0], [0.0, 1.0]]]))
    >>> scores.of("AP")
    array([[0.5, 0.6],
           [0.1, 0.3]])
    >>> scores.frame().head(3)
      system query_id measure  value
    0   bm25       q1      AP    0.5
    1   bm25       q2      AP    0.6
    2     lm       q1      AP    0.1
    >>> scores.system_index("bm52")
    Traceback (most recent call last):
    ...
    relkit.metrics.compare.errors.CompareError: no system named 'bm52'; did you mean 'bm25'? ...
    """

    systems: tuple[str, ...]
    measures: tuple[str, ...]
    topics: tuple[str, ...]
    values: np.ndarray
    filled: dict[str, int] = field(default_factory=dict)

    def __post_init__(self) -> None:
        shape = (len(self.measures), len(self.systems), len(self.topics))
        if self.values.shape != shape:
            raise CompareError(f"score matrix has shape {self.values.shape}; expected "
                               f"(measures, systems, topics) = {shape}")
        if len(set(self.systems)) != len(self.systems):
            raise CompareError(f"system names must be unique; got {list(self.systems)}")

    def measure_index(self, measure: str) -> int:
        """Position of ``measure`` on the first axis; :class:`CompareError` if absent."""
        try:
            return self.measures.index(measure)
        except ValueError:
            raise CompareError(f"measure {measure!r} is not in this comparison; "
                               f"it has {', '.join(self.measures)}") from None

    def system_index(self, system: str) -> int:
        """Position of ``system`` on the second axis; :class:`CompareError` (with close
        names) if absent."""
        try:
            return self.systems.index(system)
        except ValueError:
            raise CompareError(f"no system named {system!r}"
                               f"{did_you_mean(system, self.systems)} "
                               f"(the systems: {', '.join(self.systems)})") from None

    def of(self, measure: str) -> np.ndarray:
        """Systems x topics values of one measure."""
        return self.values[self.measure_index(measure), :, :]

    def frame(self) -> pd.DataFrame:
        """Tidy rows ``system, query_id, measure, value``."""
        import pandas as pd

        m, s, t = self.values.shape
        return pd.DataFrame({
            "system": np.repeat(np.tile(np.array(self.systems, dtype=object), m), t),
            "query_id": np.tile(np.array(self.topics, dtype=object), m * s),
            "measure": np.repeat(np.array(self.measures, dtype=object), s * t),
            "value": self.values.ravel(),
        })


def score_matrix(qrels: Qrels, runs: Mapping[str, Run] | Sequence[Run],
                 measures: Sequence[str] = DEFAULT_MEASURES, *, level: int = 1,
                 complete: bool = False, judged_only: bool = False,
                 max_docs: int | None = None, compat: int = 10,
                 progress: Callable[[int, int], None] | None = None) -> Scores:
    r"""Evaluate every run and line up the per-topic values.

    The topics are those any run answered that have judgments (every judged
    topic with ``complete``), in qrels order; a run without lines for one scores
    0 there, as trec_eval ``-c`` scores it.

    Parameters
    ----------
    qrels : Qrels
        The judgments.
    runs : Mapping[str, Run] or Sequence[Run]
        System name -> run, or a list of runs named by their run ids.
    measures : Sequence[str], default ("AP", "nDCG@10", "P@10")
        Only measures averaged over topics can be compared; others
        (``num_ret``, ``runid``...) are left out.
    level, complete, judged_only, max_docs, compat
        As for :class:`~relkit.metrics.evaluator.Evaluator`.
    progress : callable, optional
        ``progress(done, total)`` after each run.

    Returns
    -------
    Scores

    Raises
    ------
    CompareError
        If there is no run, two runs share a name, or no measure is averaged
        over topics.
    MeasureError
        For an unknown measure or a bad parameter.

    Examples
    --------
    Run ``b`` has no line for q2, so it scores 0 there:

    >>> from relkit.metrics.compare import score_matrix
    >>> from relkit.metrics.data import Qrels, Run
    >>> qrels = Qrels.from_dict({"q1": {"d1": 1}, "q2": {"d2": 1}})
    >>> a = Run.read("q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 a\nq2 Q0 d2 1 1 a\n")
    >>> b = Run.read("q1 Q0 d2 1 2 b\nq1 Q0 d1 2 1 b\n")
    >>> scores = score_matrix(qrels, [a, b], ["AP", "num_ret"])
    >>> scores.systems, scores.measures, scores.topics, scores.filled
    (('a', 'b'), ('AP',), ('q1', 'q2'), {'a': 0, 'b': 1})
    >>> scores.of("AP")
    array([[1. , 1. ],
           [0.5, 0. ]])
    """
    from relkit.metrics.convert import coerce_qrels, coerce_runs
    from relkit.metrics.evaluator import Evaluator, measure_requests
    from relkit.metrics.measures.base import REGISTRY

    qrels, runs = coerce_qrels(qrels), coerce_runs(runs)   # any shape, once, here
    measures = [str(m) for m in measure_requests(measures)]
    named = dict(runs) if isinstance(runs, Mapping) else {r.name: r for r in runs}
    if len(named) != len(runs):
        raise CompareError("two runs have the same name; pass a mapping name -> run")
    if not named:
        raise CompareError("give at least one run")
    ev = Evaluator(qrels, list(measures), level=level, complete=complete,
                   judged_only=judged_only, max_docs=max_docs,
                   compat=compat)  # type: ignore[arg-type]
    chosen = [m for m in ev.measures if REGISTRY[m.family].summary == "mean"
              and REGISTRY[m.family].per_query and REGISTRY[m.family].kind == "float"]
    if not chosen:
        raise CompareError(f"none of {', '.join(measures)} is averaged over topics; "
                           "compare needs measures such as AP, nDCG@10, P@10")
    per_run: dict[str, dict[str, dict[str, float]]] = {}
    for done, (name, run) in enumerate(named.items(), start=1):
        res = ev.compute(run)
        by_measure = {str(m): v for m, v in zip(res.measures, res.values, strict=True)}
        per_run[name] = {str(m): dict(zip(res.topics, by_measure[str(m)].tolist(),
                                          strict=True)) for m in chosen}
        if progress is not None:
            progress(done, len(named))
    index = ev.judged.index
    topics = sorted({t for r in per_run.values() for t in next(iter(r.values()))},
                    key=lambda t: index.get(t, len(index)))
    values = np.zeros((len(chosen), len(named), len(topics)))
    filled = {}
    for s, name in enumerate(named):
        for m, meas in enumerate(chosen):
            got = per_run[name][str(meas)]
            values[m, s] = [got.get(t, 0.0) for t in topics]
        filled[name] = len(topics) - len(next(iter(per_run[name].values())))
    return Scores(tuple(named), tuple(str(m) for m in chosen), tuple(topics), values,
                  filled)
