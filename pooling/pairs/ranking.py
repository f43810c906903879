"""The ranking every pair strategy reports by default: Bradley–Terry with ties, always
with the prior (:data:`relkit.metrics.prefs.bt.DEFAULT_RIDGE`) so that early, sparse
answers give finite scores; documents with equal scores keep their grade order, then id."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from relkit.metrics.prefs.answers import Answer
from relkit.metrics.prefs.bt import DEFAULT_RIDGE, BTFit, fit_bt

_LAST: list[tuple[tuple[object, ...], BTFit]] = []


def bt_fit(docs: Sequence[str], answers: Sequence[Answer]) -> BTFit:
    """The fit, remembered for the last (docs, answers) asked: a screen or a simulation
    asks for the next pair and the ranking on the same answers."""
    key = (tuple(docs), tuple(answers))
    if _LAST and _LAST[0][0] == key:
        return _LAST[0][1]
    fit = fit_bt(answers, list(docs), ridge=DEFAULT_RIDGE, tol=1e-6)
    _LAST[:] = [(key, fit)]
    return fit


def bt_ranking(docs: Sequence[str], answers: Sequence[Answer],
               grades: Mapping[str, float] | None = None,
               fit: BTFit | None = None) -> list[str]:
    docs = list(docs)
    if not docs:
        return []
    fit = fit or bt_fit(docs, answers)
    theta = fit.scores()
    g = grades or {}
    return sorted(docs, key=lambda d: (-round(theta[d], 9), -g.get(d, 0.0), d))
