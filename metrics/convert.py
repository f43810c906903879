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
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import FormatError

if TYPE_CHECKING:  # pandas costs ~0.35 s to import: only when a frame is built
    import pandas as pd

# The column (or record field) names read as each of ours, in order of preference: the
# first present wins. PyTerrier frames hold both ``qid`` and ``query`` (the query's text)
# and both ``docno`` and ``docid`` (Terrier's internal number), hence the order.
_ID_NAMES = {
    "query_id": ("query_id", "qid", "q_id", "query", "topic", "topic_id"),
    "doc_id": ("doc_id", "docno", "doc_no", "docid", "did"),
    "iteration": ("iteration", "iter", "q0", "Q0"),
}
COLUMN_NAMES: dict[str, dict[str, tuple[str, ...]]] = {
    # ranx's Qrels.to_dataframe() calls the grade "score".
    "qrels": {**_ID_NAMES, "relevance": ("relevance", "rel", "label", "grade", "judgment",
                                         "score")},
    "run": {**_ID_NAMES, "score": ("score", "sim", "similarity"), "rank": ("rank",),
            "run_id": ("run_id", "runid", "system", "tag", "run")},
}
_REQUIRED = {"qrels": ("query_id", "doc_id", "relevance"), "run": ("query_id", "doc_id", "score")}


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
    return _coerce(obj, "qrels")  # type: ignore[no-any-return]


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
    return _coerce(obj, "run")  # type: ignore[no-any-return]


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
            or _is_ranx(runs)):
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


def _coerce(obj: Any, kind: str) -> Qrels | Run:
    cls: type[Qrels] | type[Run] = Qrels if kind == "qrels" else Run
    if isinstance(obj, cls):
        return obj
    if isinstance(obj, (Qrels, Run)):
        raise FormatError(obj.source, None, "a run" if kind == "run" else "qrels",
                          f"a {type(obj).__name__}")
    if isinstance(obj, (str, os.PathLike)):
        if is_parquet(obj):
            return read_parquet(obj, kind)
        return cls.read(obj)
    if hasattr(obj, "read") and callable(obj.read):
        return cls.read(obj)
    pd = sys.modules.get("pandas")   # no frame can exist unless pandas is imported
    if pd is not None and isinstance(obj, pd.DataFrame):
        return from_frame(obj, kind)
    if _is_ranx(obj):
        return _from_ranx(obj, kind)
    if isinstance(obj, Mapping):
        return from_dict(obj, kind)
    iterator = "qrels_iter" if kind == "qrels" else "scoreddocs_iter"
    has = "has_qrels" if kind == "qrels" else "has_scoreddocs"
    if callable(getattr(obj, iterator, None)) or callable(getattr(obj, has, None)):
        return _from_dataset(obj, kind, iterator, has)
    if isinstance(obj, Iterable) and not isinstance(obj, (bytes, bytearray)):
        return from_records(obj, kind)
    raise FormatError("<input>", None, _SHAPES[kind], f"a {type(obj).__module__}."
                      f"{type(obj).__qualname__}")


_SHAPES = {kind: (f"{kind}: a path, a DataFrame, a dict of dicts, records, a ranx "
                  f"{'Qrels' if kind == 'qrels' else 'Run'} or an ir_datasets dataset")
           for kind in ("qrels", "run")}


def _is_ranx(obj: Any) -> bool:
    return (type(obj).__module__.split(".")[0] == "ranx"
            and type(obj).__name__ in ("Qrels", "Run") and callable(getattr(obj, "to_dict",
                                                                            None)))


def _from_ranx(obj: Any, kind: str) -> Qrels | Run:
    want = "Qrels" if kind == "qrels" else "Run"
    if type(obj).__name__ != want:
        raise FormatError(f"<ranx {type(obj).__name__}>", None, f"a ranx {want}",
                          f"a ranx {type(obj).__name__}")
    run_id = getattr(obj, "name", None) if kind == "run" else None
    return from_dict(obj.to_dict(), kind, f"<ranx {want}>", str(run_id) if run_id else None)


def _from_dataset(obj: Any, kind: str, iterator: str, has: str) -> Qrels | Run:
    ident = obj.dataset_id() if callable(getattr(obj, "dataset_id", None)) else repr(obj)
    name = f"<ir_datasets {ident}>"
    if not callable(getattr(obj, iterator, None)) or not getattr(obj, has, lambda: True)():
        what = "qrels" if kind == "qrels" else "scored documents"
        raise FormatError(name, None, f"a dataset with {what}", f"none (no {iterator})")
    return from_records(getattr(obj, iterator)(), kind, name)


def _rename(columns: Sequence[str], kind: str, source: str) -> dict[str, str]:
    """Our name for each column that maps to one: ``{their name: our name}``."""
    present = set(columns)
    chosen: dict[str, str] = {}
    for ours, theirs in COLUMN_NAMES[kind].items():
        for name in theirs:
            if name in present and name not in chosen:
                chosen[name] = ours
                break
    have = set(chosen.values())
    missing = [c for c in _REQUIRED[kind] if c not in have]
    if missing:
        need = "; ".join(f"{c} (or {', '.join(COLUMN_NAMES[kind][c][1:])})" for c in missing)
        raise FormatError(source, None, f"columns for {need}",
                          f"columns {', '.join(map(str, columns))}")
    return chosen


def from_frame(frame: pd.DataFrame, kind: str, source: str = "<frame>",
               run_id: str | None = None) -> Qrels | Run:
    """A frame with any accepted column names, as :class:`Qrels` (``kind="qrels"``) or
    :class:`Run` (``kind="run"``); see :data:`COLUMN_NAMES`. ``run_id`` names a run
    whose frame has no run id column."""
    rename = _rename([str(c) for c in frame.columns], kind, source)
    picked = frame[list(rename)].rename(columns=rename)
    if kind == "run" and run_id is not None and "run_id" not in picked:
        picked = picked.assign(run_id=run_id)
    if kind == "qrels":
        return Qrels.from_frame(picked, source)
    return Run.from_frame(picked, source)


def from_dict(data: Mapping[Any, Any], kind: str, source: str = "<dict>",
              run_id: str | None = None) -> Qrels | Run:
    """``{query_id: {doc_id: value}}`` (pytrec_eval's shape) as qrels or a run
    (named ``run_id``)."""
    import pandas as pd

    value = "relevance" if kind == "qrels" else "score"
    qids: list[Any] = []
    docs: list[Any] = []
    values: list[Any] = []
    for q, inner in data.items():
        if not isinstance(inner, Mapping):
            raise FormatError(source, None, f"{{query_id: {{doc_id: {value}}}}}",
                              f"a {type(inner).__name__} for query {q!r}")
        qids.extend([q] * len(inner))
        docs.extend(inner.keys())
        values.extend(inner.values())
    frame = pd.DataFrame({"query_id": pd.Series(qids, dtype=object),
                          "doc_id": pd.Series(docs, dtype=object), value: values})
    return from_frame(frame, kind, source, run_id)


def from_records(records: Iterable[Any], kind: str, source: str = "<records>") -> Qrels | Run:
    """Named tuples (fields named as in :data:`COLUMN_NAMES`) or plain tuples
    ``(query_id, doc_id, value)`` as qrels or a run."""
    import pandas as pd

    rows = list(records)
    first = rows[0] if rows else None
    fields = getattr(first, "_fields", None)
    if rows and fields is None:
        # Plain tuples: ir_measures' and pytrec_eval's order, (query_id, doc_id, value).
        if not isinstance(first, (tuple, list)) or len(first) != 3:
            raise FormatError(source, 1, "a named tuple, or (query_id, doc_id, value)",
                              repr(first)[:80])
        fields = ("query_id", "doc_id", "relevance" if kind == "qrels" else "score")
    try:
        frame = pd.DataFrame.from_records(rows, columns=list(fields or _REQUIRED[kind]))
    except (ValueError, TypeError) as exc:   # records of unequal shapes
        raise FormatError(source, None, "records of one shape", str(exc)) from None
    return from_frame(frame, kind, source)


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """A path (not literal text) whose name ends in ``.parquet``."""
    text = os.fspath(path)
    return "\n" not in text and text.lower().endswith((".parquet", ".parq", ".pq"))


def read_parquet(path: str | os.PathLike[str], kind: str) -> Qrels | Run:
    """A parquet file with accepted column names, as qrels or a run."""
    import pyarrow.parquet as pq

    name = os.fspath(path)
    try:
        table = pq.read_table(name)
    except FileNotFoundError:
        raise FormatError(name, None, "an existing file", "no such file") from None
    except (OSError, ValueError) as exc:   # pyarrow's ArrowInvalid is a ValueError
        raise FormatError(name, None, "a parquet file", str(exc)) from None
    # A run without a run id column is named after its file, as a run's name should be.
    return from_frame(table.to_pandas(), kind, name, os.path.basename(name))
