"""The registry of sampled-pool estimators, which design each fits, and ``eval -R prels``.

The estimators' formulas are in :mod:`relkit.metrics.inferred.measures`; the prels
format and its design in :mod:`relkit.metrics.inferred.prels`. An estimator is used
only on a design it fits: infAP assumes a uniform sample and is refused on a
stratified one, where it is biased.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.data import Run
from relkit.metrics.inferred.measures import (
    SAMPLE_EVAL_DEPTH,
    Ranking,
    Smoothing,
    inf_ap,
    inf_ndcg,
    ranked,
    reference_depth,
    stat_ap,
    xinf_ap,
)
from relkit.metrics.inferred.prels import Design, Prels

DEPTH = SAMPLE_EVAL_DEPTH
"""``sample_eval.pl``'s ``maxResultSize``: the ranks xinfAP (``sample_eval``
smoothing) and infNDCG read when ``-M`` is not given. infAP, xinfAP with
``trec_eval`` smoothing and statAP read every rank, as trec_eval does."""


class Compute(Protocol):
    """An estimator's function: ``(run or ranking, prels, level) -> {topic: value}``.

    Attributes
    ----------
    __call__ : callable
        ``(run, prels, level=1, *, smoothing="sample_eval", depth=None)``:
        ``smoothing`` is xinfAP's (the others ignore it); ``depth`` the ranks read of
        each topic (``-M``; None: as the estimator's reference reads them, :data:`DEPTH`).

    Examples
    --------
    >>> from relkit.metrics.inferred.estimators import ESTIMATORS
    >>> from relkit.metrics.inferred.prels import Prels
    >>> p = Prels.from_rows([("q", "a", "1", 1), ("q", "b", "1", 0)])
    >>> ESTIMATORS["statAP"].compute({"q": ["b", "a"]}, p, 1, depth=1)
    {'q': 0.0}
    """

    def __call__(self, run: Ranking, prels: Prels, level: int = 1, *,
                 smoothing: Smoothing = "sample_eval", depth: int | None = None
                 ) -> dict[str, float]: ...


@dataclass(frozen=True)
class Estimator:
    """An estimator of :data:`ESTIMATORS`.

    Attributes
    ----------
    name : str
        As ``relkit eval -R prels -m`` takes it.
    fits : frozenset[str]
        The designs (``uniform``, ``stratified``) it is unbiased on.
    compute : Compute
        ``(run or ranking, prels, level, *, smoothing, depth) -> {topic: value}``:
        ``smoothing`` is xinfAP's (the others ignore it), ``depth`` the ranks read
        (None: the reference's, :data:`DEPTH`).
    description : str
        One line.

    Examples
    --------
    >>> from relkit.metrics.inferred.estimators import ESTIMATORS
    >>> sorted(ESTIMATORS["infAP"].fits)
    ['uniform']
    """

    name: str
    fits: frozenset[str]
    compute: Compute
    description: str


def _top(run: Ranking, depth: int | None) -> Mapping[str, Sequence[str]]:
    if depth is None:
        return ranked(run)
    return {t: docs[:depth] for t, docs in ranked(run).items()}


# depth None: each reads as its reference does. sample_eval.pl cuts at 1,000 (xinfAP,
# infNDCG); trec_eval's infAP (infAP, xinfAP's trec_eval smoothing) reads every rank.
def _xinf_ap(run: Ranking, prels: Prels, level: int = 1, *,
             smoothing: Smoothing = "sample_eval", depth: int | None = None
             ) -> dict[str, float]:
    return xinf_ap(run, prels, level, smoothing,
                   reference_depth(smoothing) if depth is None else depth)


def _inf_ndcg(run: Ranking, prels: Prels, level: int = 1, *,
              smoothing: Smoothing = "sample_eval", depth: int | None = None
              ) -> dict[str, float]:
    return inf_ndcg(run, prels, level, depth=DEPTH if depth is None else depth)


def _stat_ap(run: Ranking, prels: Prels, level: int = 1, *,
             smoothing: Smoothing = "sample_eval", depth: int | None = None
             ) -> dict[str, float]:
    return stat_ap(_top(run, depth), prels, level)


def _inf_ap(run: Ranking, prels: Prels, level: int = 1, *,
            smoothing: Smoothing = "sample_eval", depth: int | None = None
            ) -> dict[str, float]:
    return inf_ap(_top(run, depth), prels, level)


ESTIMATORS: Mapping[str, Estimator] = {e.name: e for e in (
    Estimator("xinfAP", frozenset({"uniform", "stratified"}), _xinf_ap,
              "inferred AP over strata (Yilmaz, Kanoulas & Aslam 2008)"),
    Estimator("infNDCG", frozenset({"uniform", "stratified"}), _inf_ndcg,
              "inferred nDCG over strata (Yilmaz, Kanoulas & Aslam 2008)"),
    Estimator("statAP", frozenset({"uniform", "stratified"}), _stat_ap,
              "Horvitz-Thompson AP (Aslam, Pavlu & Yilmaz 2006)"),
    Estimator("infAP", frozenset({"uniform"}), _inf_ap,
              "trec_eval's inferred AP (Yilmaz & Aslam 2006): uniform samples only"),
)}


def default_estimators(design: Design) -> list[str]:
    """The estimators that fit ``design``, in :data:`ESTIMATORS` order.

    Parameters
    ----------
    design : {"uniform", "stratified"}
        A prels' design (:meth:`Prels.design`).

    Returns
    -------
    list[str]
        Estimator names.

    Examples
    --------
    >>> from relkit.metrics.inferred.estimators import default_estimators
    >>> default_estimators("uniform")
    ['xinfAP', 'infNDCG', 'statAP', 'infAP']
    """
    return [n for n, e in ESTIMATORS.items() if design in e.fits]


def check_fits(name: str, prels: Prels) -> Estimator:
    """The estimator ``name``, if it fits the design ``prels`` records.

    Parameters
    ----------
    name : str
        An estimator of :data:`ESTIMATORS`.
    prels : Prels
        The sample it would read.

    Returns
    -------
    Estimator

    Raises
    ------
    MeasureError
        Unknown, or not fit for the design (one line naming the file and the
        estimators that fit).

    Examples
    --------
    >>> from relkit.metrics.inferred.prels import Prels
    >>> from relkit.metrics.inferred.estimators import check_fits
    >>> p = Prels.from_rows([("q", "a", "1", 1), ("q", "b", "2", 0), ("q", "c", "2", -1)])
    >>> check_fits("infAP", p)
    Traceback (most recent call last):
    ...
    relkit.metrics.core.errors.MeasureError: infAP does not fit the stratified sample in <prels> ...
    """
    est = ESTIMATORS.get(name)
    if est is None:
        raise MeasureError(f"unknown estimator {name!r} for prels (known: "
                           f"{', '.join(ESTIMATORS)})")
    design = prels.design()
    if design not in est.fits:
        fit = ", ".join(default_estimators(design))
        raise MeasureError(f"{name} does not fit the {design} sample in {prels.source} "
                           f"(strata sampled at different rates: biased); use {fit}")
    return est


def check_names(measures: Sequence[str]) -> None:
    """Raise :class:`MeasureError` for a name that is no estimator (before any file is read).

    Parameters
    ----------
    measures : Sequence[str]
        Names as ``-m`` gave them.

    Examples
    --------
    >>> from relkit.metrics.inferred.estimators import check_names
    >>> check_names(["xinfAP", "MAP"])
    Traceback (most recent call last):
    ...
    relkit.metrics.core.errors.MeasureError: unknown estimator 'MAP' for prels (known: ...
    """
    for name in measures:
        if name not in ESTIMATORS:
            raise MeasureError(f"unknown estimator {name!r} for prels (known: "
                               f"{', '.join(ESTIMATORS)})")


@dataclass(frozen=True)
class RunEstimates:
    """One run's estimates: what ``eval -R prels`` prints, in any format.

    Attributes
    ----------
    run_id : str
        The run's name (its files' sixth column).
    topics : list[str]
        The topics averaged in the ``all`` line, in the prels' order.
    values : dict[str, dict[str, float]]
        Estimator -> topic -> value, estimators in the order asked.

    Examples
    --------
    >>> from relkit.metrics.inferred.estimators import RunEstimates
    >>> r = RunEstimates("bm25", ["q1", "q2"], {"statAP": {"q1": 0.5, "q2": 0.25}})
    >>> r.mean("statAP"), r.rows(per_query=False, summary=True)
    (0.375, [('all', 'statAP', 'statAP', 0.375)])
    """

    run_id: str
    topics: list[str]
    values: dict[str, dict[str, float]]

    def mean(self, name: str) -> float:
        """The ``all`` value of estimator ``name``: its mean over :attr:`topics` (0 if none)."""
        v = self.values[name]
        return sum(v[t] for t in self.topics) / len(self.topics) if self.topics else 0.0

    def rows(self, per_query: bool, summary: bool) -> list[tuple[str, str, str, float]]:
        """``(query_id, measure, trec_name, value)`` rows: topic by topic (as trec_eval -q
        and ``sample_eval.pl -q`` print them), then the ``all`` rows."""
        out = []
        if per_query:
            out += [(t, n, n, v[t]) for t in self.topics for n, v in self.values.items()]
        if summary:
            out += [("all", n, n, self.mean(n)) for n in self.values]
        return out


def estimate_prels(prels_path: os.PathLike[str] | str,
                   runs: Sequence[os.PathLike[str] | str], measures: Sequence[str], *,
                   complete: bool = False, level: int = 1, smoothing: Smoothing = "sample_eval",
                   depth: int | None = None) -> list[RunEstimates]:
    r"""Read a prels file and the runs; every run's estimates (nothing is written).

    Parameters
    ----------
    prels_path, runs, measures, complete, level, smoothing, depth
        As :func:`evaluate_prels` takes them.

    Returns
    -------
    list[RunEstimates]
        One per run, in order.

    Raises
    ------
    MeasureError
        An unknown estimator, or one that does not fit the design.
    FormatError, EvaluationError
        A file it cannot use (named), or a run with no prels topic (unless ``complete``).

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from relkit.metrics.inferred.estimators import estimate_prels
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "prels").write_text("q1 0 a 1 1\nq1 0 b 2 -1\nq1 0 c 2 0\n")
    >>> _ = (d / "run").write_text("q1 Q0 a 1 2 r\nq1 Q0 c 2 1 r\n")
    >>> estimate_prels(d / "prels", [d / "run"], ["statAP"])[0].values
    {'statAP': {'q1': 1.0}}
    """
    check_names(measures)
    prels = Prels.read(prels_path)
    names = list(measures) or default_estimators(prels.design())
    ests = [check_fits(n, prels) for n in names]
    out = []
    for path in runs:
        run = Run.read(path)
        order = _top(run, depth)
        topics = [t for t in prels.topics if complete or t in order]
        if not topics:   # as plain eval says it; sample_eval.pl would divide by zero
            from relkit.metrics.core.errors import EvaluationError

            raise EvaluationError(f"{path}: no topic has both run lines and judgments in "
                                  f"{prels_path} (-c scores the missing ones 0)")
        values = {est.name: est.compute(order, prels, level, smoothing=smoothing, depth=depth)
                  for est in ests}
        out.append(RunEstimates(run.name, topics, values))
    return out


def evaluate_prels(prels_path: os.PathLike[str] | str, runs: Sequence[os.PathLike[str] | str],
                   measures: Sequence[str], *, per_query: bool = False, summary: bool = True,
                   complete: bool = False, level: int = 1, smoothing: Smoothing = "sample_eval",
                   depth: int | None = None) -> str:
    r"""``relkit eval -R prels``: trec_eval-style lines for each run (4 decimals).

    Parameters
    ----------
    prels_path : path
        A prels file (:mod:`relkit.metrics.inferred.prels`).
    runs : Sequence of paths
        TREC run files.
    measures : Sequence[str]
        Estimator names; empty: every estimator that fits the prels' design.
    per_query : bool
        Per-topic lines too (topic by topic).
    summary : bool
        The ``all`` lines.
    complete : bool
        As in trec_eval and ``sample_eval.pl``, a prels topic the run lacks is
        left out of the mean unless ``complete`` (then it scores 0).
    level : int
        Lowest grade that counts as relevant.
    smoothing : {"sample_eval", "trec_eval"}
        xinfAP's (:func:`relkit.metrics.inferred.measures.xinf_ap`); NIST's by default.
    depth : int or None, default None
        Ranks of each topic read (``-M``). None: as each estimator's reference reads
        them: xinfAP (``sample_eval`` smoothing) and infNDCG the first 1,000
        (``sample_eval.pl``'s), infAP, xinfAP with ``trec_eval`` smoothing and statAP
        every rank. infNDCG's ideal ranking is cut at ``depth`` too.

    Returns
    -------
    str
        The lines; with several runs each block starts with its ``runid`` line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from relkit.metrics.inferred.estimators import evaluate_prels
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "prels").write_text("q1 0 a 1 1\nq1 0 b 2 -1\nq1 0 c 2 0\n")
    >>> _ = (d / "run").write_text("q1 Q0 a 1 2 r\nq1 Q0 c 2 1 r\n")
    >>> print(evaluate_prels(d / "prels", [d / "run"], ["statAP"]), end="")
    statAP                 all 1.0000
    """
    got = estimate_prels(prels_path, runs, measures, complete=complete, level=level,
                         smoothing=smoothing, depth=depth)
    return prels_text(got, per_query=per_query, summary=summary)


def prels_text(results: Sequence[RunEstimates], *, per_query: bool, summary: bool) -> str:
    """trec_eval's layout of :func:`estimate_prels`'s results.

    Parameters
    ----------
    results : Sequence[RunEstimates]
        The runs' estimates; with several, each block starts with its ``runid`` line.
    per_query, summary : bool
        Topic-by-topic lines; the ``all`` lines.

    Returns
    -------
    str
        ``measure<TAB>topic<TAB>value`` lines, values at 4 decimals.

    Examples
    --------
    >>> from relkit.metrics.inferred.estimators import RunEstimates, prels_text
    >>> r = RunEstimates("bm25", ["q1"], {"statAP": {"q1": 0.5}})
    >>> print(prels_text([r], per_query=True, summary=False), end="")
    statAP                 q1 0.5000
    """
    from relkit.metrics.trec_eval.format import fmt_float, labelled, line

    out = []
    for res in results:
        text = [line(n, t, fmt_float(v)) for t, n, _, v in res.rows(per_query, summary)]
        out.append("".join(labelled(text, res.run_id) if len(results) > 1 else text))
    return "".join(out)
