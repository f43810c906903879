"""One door in: whatever holds qrels or a run becomes a :class:`Qrels` or :class:`Run`.

Every public entry point that takes judgments or a run (``Evaluator``, ``compare``,
the pooling functions) calls :func:`coerce_qrels` / :func:`coerce_run` first, so the
layers below see only the validated wrappers and never sniff input types again.

Accepted, for both:

* a ``Qrels`` / ``Run`` (returned as is);
* a path (``str`` or ``os.PathLike``): TREC text, ``.gz`` too, or ``.parquet``;
  literal TREC text (a ``str`` with a newline); an open file;
* a pandas ``DataFrame`` whose columns carry any of the names in
  :data:`COLUMN_NAMES` (ir_measures' and ir_datasets' ``query_id, doc_id, relevance /
  score``, PyTerrier's ``qid, docno, label``, trectools' ``query, docid, rel``, ranx's
  ``q_id, doc_id, score``);
* a dict of dicts ``{query_id: {doc_id: grade or score}}`` (pytrec_eval's shape);
* an iterable of records: named tuples with such fields (ir_measures' ``Qrel`` and
  ``ScoredDoc``, ir_datasets' ``TrecQrel`` and ``GenericScoredDoc``) or plain tuples
  ``(query_id, doc_id, grade)`` / ``(query_id, doc_id, score)``;
* a ranx ``Qrels`` / ``Run``;
* an ir_datasets dataset (anything with ``qrels_iter()``; ``scoreddocs_iter()`` for a run).

ranx, ir_measures and ir_datasets are never imported here: their objects are recognised
by what they have (``qrels_iter``, ``to_dict`` on a class from the ``ranx`` package), so
relkit does not depend on them and importing it stays cheap.
"""

from __future__ import annotations

import numbers
import os
from collections.abc import Iterable, Mapping
from typing import Any

from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import FormatError
from relkit.metrics.readers.shapes import COLUMN_NAMES, is_ranx

__all__ = ["COLUMN_NAMES", "coerce_qrels", "coerce_run", "coerce_runs", "named_runs"]


def coerce_qrels(obj: Any) -> Qrels:
    """Judgments from any of the accepted shapes (see the module docstring).

    Parameters
    ----------
    obj
        Qrels, a path, a frame, ``{query_id: {doc_id: grade}}``, records, a ranx
        ``Qrels`` or an ir_datasets dataset.

    Returns
    -------
    Qrels

    Raises
    ------
    FormatError
        For a shape that is not one of these, or content that is not judgments.

    Examples
    --------
    >>> from relkit.metrics.convert import coerce_qrels
    >>> coerce_qrels({"q1": {"007": 2}}).to_dict()
    {'q1': {'007': 2}}
    >>> coerce_qrels([("q1", "d1", 1)]).to_dict()
    {'q1': {'d1': 1}}
    """
    return Qrels.coerce(obj)


def coerce_run(obj: Any) -> Run:
    """A run from any of the accepted shapes (see the module docstring).

    Parameters
    ----------
    obj
        Run, a path, a frame, ``{query_id: {doc_id: score}}``, records, a ranx ``Run``
        or an ir_datasets dataset with scored documents.

    Returns
    -------
    Run

    Raises
    ------
    FormatError
        For a shape that is not one of these, or content that is not a run.

    Examples
    --------
    >>> from relkit.metrics.convert import coerce_run
    >>> coerce_run({"q1": {"d1": 0.5, "d2": 1.25}}).to_dict()
    {'q1': {'d1': 0.5, 'd2': 1.25}}
    """
    return Run.coerce(obj)


def coerce_runs(runs: Any) -> dict[str, Run] | list[Run]:
    """Several runs: a mapping name -> run keeps its names, anything else is a list.

    Parameters
    ----------
    runs
        ``{name: run}`` or a sequence of runs, each in any shape :func:`coerce_run`
        takes.

    Returns
    -------
    dict of str to Run, or list of Run
        The same container shape, each run coerced.

    Examples
    --------
    >>> from relkit.metrics.convert import coerce_runs
    >>> coerce_runs({"bm25": {"q1": {"d1": 1.0}}})
    {'bm25': Run(source='<dict>', rows=1)}
    """
    if isinstance(runs, Mapping) and not _is_dict_of_dicts_run(runs):
        return {str(name): coerce_run(r) for name, r in runs.items()}
    if (isinstance(runs, (str, os.PathLike, Mapping, Run)) or not isinstance(runs, Iterable)
            or is_ranx(runs)):
        return [coerce_run(runs)]     # one run
    return [coerce_run(r) for r in runs]


def named_runs(runs: Any) -> dict[str, Run]:
    """Runs by name: a mapping keeps its names; a sequence is named by the runs' ids.

    Parameters
    ----------
    runs
        ``{name: run}`` or a sequence of runs, each in any shape :func:`coerce_run` takes.

    Returns
    -------
    dict of str to Run

    Raises
    ------
    FormatError
        When two runs of a sequence have the same run id (pass a mapping instead).

    Examples
    --------
    >>> from relkit.metrics.convert import named_runs
    >>> list(named_runs([{"q1": {"d1": 1.0}}]))
    ['run']
    """
    got = coerce_runs(runs)
    if isinstance(got, dict):
        return got
    named = {r.name: r for r in got}
    if len(named) != len(got):
        raise FormatError("<runs>", None, "runs with distinct run ids",
                          "two with the same one; pass a mapping name -> run")
    return named


def _is_dict_of_dicts_run(runs: Mapping[Any, Any]) -> bool:
    """``{qid: {doc: score}}`` is one run, not a mapping of names to runs."""
    first = next(iter(runs.values()), None)
    return isinstance(first, Mapping) and all(
        isinstance(v, numbers.Real) for v in list(first.values())[:1])
