"""The registry of sampled-pool estimators, which design each fits, and ``eval -R prels``.

The estimators' formulas are in :mod:`relkit.metrics.inferred`; the prels
format and its design in :mod:`relkit.metrics.prels`. An estimator is used
only on a design it fits: infAP assumes a uniform sample and is refused on a
stratified one, where it is biased.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from relkit.metrics.core.errors import MeasureError
from relkit.metrics.data import Run
from relkit.metrics.inferred import Ranking, inf_ap, inf_ndcg, ranked, stat_ap, xinf_ap
from relkit.metrics.prels import Design, Prels


@dataclass(frozen=True)
class Estimator:
    """An estimator of :data:`ESTIMATORS`.

    Attributes
    ----------
    name : str
        As ``relkit eval -R prels -m`` takes it.
    fits : frozenset[str]
        The designs (``uniform``, ``stratified``) it is unbiased on.
    compute : Callable
        ``(run or ranking, prels, level) -> {topic: value}``.
    description : str
        One line.

    Examples
    --------
    >>> from relkit.metrics.estimators import ESTIMATORS
    >>> sorted(ESTIMATORS["infAP"].fits)
    ['uniform']
    """

    name: str
    fits: frozenset[str]
    compute: Callable[[Ranking, Prels, int], dict[str, float]]
    description: str


ESTIMATORS: Mapping[str, Estimator] = {e.name: e for e in (
    Estimator("xinfAP", frozenset({"uniform", "stratified"}), xinf_ap,
              "inferred AP over strata (Yilmaz, Kanoulas & Aslam 2008)"),
    Estimator("infNDCG", frozenset({"uniform", "stratified"}), inf_ndcg,
              "inferred nDCG over strata (Yilmaz, Kanoulas & Aslam 2008)"),
    Estimator("statAP", frozenset({"uniform", "stratified"}), stat_ap,
              "Horvitz-Thompson AP (Aslam, Pavlu & Yilmaz 2006)"),
    Estimator("infAP", frozenset({"uniform"}), inf_ap,
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
    >>> from relkit.metrics.estimators import default_estimators
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
    >>> from relkit.metrics.prels import Prels
    >>> from relkit.metrics.estimators import check_fits
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


def evaluate_prels(prels_path: os.PathLike[str] | str, runs: Sequence[os.PathLike[str] | str],
                   measures: Sequence[str], *, per_query: bool = False, summary: bool = True,
                   complete: bool = False, level: int = 1) -> str:
    r"""``relkit eval -R prels``: trec_eval-style lines for each run (4 decimals).

    Parameters
    ----------
    prels_path : path
        A prels file (:mod:`relkit.metrics.prels`).
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

    Returns
    -------
    str
        The lines; with several runs each block starts with its ``runid`` line.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> from relkit.metrics.estimators import evaluate_prels
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "prels").write_text("q1 0 a 1 1\nq1 0 b 2 -1\nq1 0 c 2 0\n")
    >>> _ = (d / "run").write_text("q1 Q0 a 1 2 r\nq1 Q0 c 2 1 r\n")
    >>> print(evaluate_prels(d / "prels", [d / "run"], ["statAP"]), end="")
    statAP                 all 1.0000
    """
    from relkit.metrics.trec_eval.format import fmt_float, labelled, line

    prels = Prels.read(prels_path)
    names = list(measures) or default_estimators(prels.design())
    ests = [check_fits(n, prels) for n in names]
    out = []
    for path in runs:
        run = Run.read(path)
        order = ranked(run)
        topics = [t for t in prels.topics if complete or t in order]
        values = {est.name: est.compute(order, prels, level) for est in ests}
        text = []
        if per_query:   # topic by topic, as trec_eval -q and sample_eval.pl -q print
            text += [line(n, t, fmt_float(v[t])) for t in topics for n, v in values.items()]
        if summary:
            text += [line(n, "all", fmt_float(sum(v[t] for t in topics) / len(topics)
                                              if topics else 0.0)) for n, v in values.items()]
        out.append("".join(labelled(text, run.name) if len(runs) > 1 else text))
    return "".join(out)
