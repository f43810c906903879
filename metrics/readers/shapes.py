"""What the ecosystem hands us, as a frame under our column names.

The shapes other tools keep qrels and runs in (pandas frames under their column names,
pytrec_eval's dict of dicts, ir_measures' and ir_datasets' named tuples, ranx's objects,
an ir_datasets dataset, parquet files) become one pandas frame with relkit's column names,
which :meth:`Qrels.from_frame <relkit.metrics.data.Qrels.from_frame>` /
:meth:`Run.from_frame <relkit.metrics.data.Run.from_frame>` then validate.
:mod:`relkit.metrics.data` calls this from ``coerce`` and ``read``; the public door
is :mod:`relkit.metrics.convert`.

ranx, ir_measures and ir_datasets are never imported: their objects are recognised by
what they have (``qrels_iter``, ``to_dict`` on a class from the ``ranx`` package).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.errors import FormatError
from relkit.metrics.readers import io as _io

if TYPE_CHECKING:  # pandas costs ~0.35 s to import: only when a frame is built
    import pandas as pd
    import pyarrow as pa

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


def frame_of(obj: Any, kind: str) -> tuple[pd.DataFrame, str]:
    """``obj`` (not a path or a file: those are read) as a frame for ``from_frame``, and
    a name for it in messages.

    Parameters
    ----------
    obj
        A frame, a dict of dicts, a ranx object, an ir_datasets dataset or records.
    kind : {"qrels", "run"}

    Returns
    -------
    tuple of (pandas.DataFrame, str)

    Raises
    ------
    FormatError
        For anything else, or content that lacks the columns ``kind`` needs.
    """
    pd = sys.modules.get("pandas")   # no frame can exist unless pandas is imported
    if pd is not None and isinstance(obj, pd.DataFrame):
        return obj, "<frame>"       # from_frame maps the column names
    nested = nested_of(obj, kind)
    if nested is not None:
        return dict_frame(nested[0], kind, nested[1], nested[2]), nested[1]
    iterator = "qrels_iter" if kind == "qrels" else "scoreddocs_iter"
    has = "has_qrels" if kind == "qrels" else "has_scoreddocs"
    if callable(getattr(obj, iterator, None)) or callable(getattr(obj, has, None)):
        return _from_dataset(obj, kind, iterator, has)
    if isinstance(obj, Iterable) and not isinstance(obj, (str, bytes, bytearray)):
        return records_frame(obj, kind, "<records>"), "<records>"
    raise FormatError("<input>", None, _SHAPES[kind], f"a {type(obj).__module__}."
                      f"{type(obj).__qualname__}")


_SHAPES = {kind: (f"{kind}: a path, a DataFrame, a dict of dicts, records, a ranx "
                  f"{'Qrels' if kind == 'qrels' else 'Run'} or an ir_datasets dataset")
           for kind in ("qrels", "run")}


def is_ranx(obj: Any) -> bool:
    """A ranx ``Qrels`` or ``Run``, known by its class (ranx is never imported here)."""
    return (type(obj).__module__.split(".")[0] == "ranx"
            and type(obj).__name__ in ("Qrels", "Run")
            and callable(getattr(obj, "to_dict", None)))


def nested_of(obj: Any, kind: str) -> tuple[Mapping[Any, Any], str, str | None] | None:
    """``(dict of dicts, source, run id)`` for a dict of dicts or a ranx object; else None.

    These skip the frame: :meth:`Run.from_dict <relkit.metrics.data.Run.from_dict>` builds
    the columns straight from the dict.
    """
    if is_ranx(obj):
        want = "Qrels" if kind == "qrels" else "Run"
        if type(obj).__name__ != want:
            raise FormatError(f"<ranx {type(obj).__name__}>", None, f"a ranx {want}",
                              f"a ranx {type(obj).__name__}")
        run_id = getattr(obj, "name", None) if kind == "run" else None
        return obj.to_dict(), f"<ranx {want}>", str(run_id) if run_id else None
    if isinstance(obj, Mapping):
        return obj, "<dict>", None
    return None


def dict_columns(data: Mapping[Any, Any], kind: str, source: str = "<dict>"
                 ) -> tuple[list[str], list[int], list[str], list[Any]]:
    """``{query_id: {doc_id: value}}`` as lists: the query ids (``str``) with how many
    documents each has, then the doc ids (``str``) and the values as given."""
    value = "relevance" if kind == "qrels" else "score"
    topics: list[str] = []
    counts: list[int] = []
    docs: list[str] = []
    values: list[Any] = []
    for q, inner in data.items():
        if not isinstance(inner, Mapping):
            raise FormatError(source, None, f"{{query_id: {{doc_id: {value}}}}}",
                              f"a {type(inner).__name__} for query {q!r}")
        topics.append(str(q))
        counts.append(len(inner))
        docs.extend(map(str, inner.keys()))
        values.extend(inner.values())
    return topics, counts, docs, values


def _from_dataset(obj: Any, kind: str, iterator: str, has: str) -> tuple[pd.DataFrame, str]:
    ident = obj.dataset_id() if callable(getattr(obj, "dataset_id", None)) else repr(obj)
    name = f"<ir_datasets {ident}>"
    if not callable(getattr(obj, iterator, None)) or not getattr(obj, has, lambda: True)():
        what = "qrels" if kind == "qrels" else "scored documents"
        raise FormatError(name, None, f"a dataset with {what}", f"none (no {iterator})")
    return records_frame(getattr(obj, iterator)(), kind, name), name


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


def renamed(frame: pd.DataFrame, kind: str, source: str = "<frame>",
            run_id: str | None = None) -> pd.DataFrame:
    """The columns of ``frame`` that map to ours (:data:`COLUMN_NAMES`), under our names;
    ``run_id`` names a run whose frame has no run id column."""
    rename = _rename([str(c) for c in frame.columns], kind, source)
    picked = frame[list(rename)].rename(columns=rename)
    if kind == "run" and run_id is not None and "run_id" not in picked:
        picked = picked.assign(run_id=run_id)
    return picked


def dict_frame(data: Mapping[Any, Any], kind: str, source: str = "<dict>",
               run_id: str | None = None) -> pd.DataFrame:
    """``{query_id: {doc_id: value}}`` (pytrec_eval's shape) as a frame (a run named
    ``run_id``)."""
    import pandas as pd

    topics, counts, docs, values = dict_columns(data, kind, source)
    qids = [q for q, c in zip(topics, counts, strict=True) for _ in range(c)]
    value = "relevance" if kind == "qrels" else "score"
    frame = pd.DataFrame({"query_id": pd.Series(qids, dtype=object),
                          "doc_id": pd.Series(docs, dtype=object), value: values})
    return renamed(frame, kind, source, run_id)


def records_frame(records: Iterable[Any], kind: str, source: str = "<records>"
                  ) -> pd.DataFrame:
    """Named tuples (fields named as in :data:`COLUMN_NAMES`) or plain tuples
    ``(query_id, doc_id, value)`` as a frame."""
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
    return renamed(frame, kind, source)


def is_parquet(path: str | os.PathLike[str]) -> bool:
    """A path (not literal text) whose name ends in ``.parquet``."""
    text = os.fspath(path)
    return "\n" not in text and text.lower().endswith((".parquet", ".parq", ".pq"))


def parquet_frame(path: str | os.PathLike[str], kind: str) -> pd.DataFrame:
    """A parquet file with accepted column names, as a frame."""
    import pyarrow.parquet as pq

    name = os.fspath(path)
    try:
        table = pq.read_table(name)
    except FileNotFoundError:
        raise FormatError(name, None, "an existing file", "no such file") from None
    except (OSError, ValueError) as exc:   # pyarrow's ArrowInvalid is a ValueError
        raise FormatError(name, None, "a parquet file", str(exc)) from None
    # A run without a run id column is named after its file, as a run's name should be.
    return renamed(table.to_pandas(), kind, name, os.path.basename(name))


def nested_table(data: Mapping[Any, Any], kind: str, source: str, run_id: str = "run"
                    ) -> pa.Table:
    """The columns of ``{query_id: {doc_id: value}}``, built without pandas (a dict is
    how pytrec_eval, ranx and ir_measures hand runs over: it should cost little)."""
    topics, counts, docs, raw = dict_columns(data, kind, source)
    try:
        values = np.asarray(raw, dtype=np.float64) if raw else np.zeros(0)
    except (TypeError, ValueError):
        for row, v in enumerate(raw):
            try:
                float(v)
            except (TypeError, ValueError):
                expected = "a numeric score" if kind == "run" else "an integer grade"
                raise FormatError(source, row + 1, expected, repr(v)) from None
        raise
    bad = np.flatnonzero(np.isnan(values) if kind == "run" else (
        (np.mod(values, 1) != 0) | (values < _io.GRADE_MIN) | (values > _io.GRADE_MAX)
        | np.isnan(values)))
    if len(bad):
        expected = ("a numeric score" if kind == "run" else
                    f"integer grades between {_io.GRADE_MIN} and {_io.GRADE_MAX}")
        raise FormatError(source, int(bad[0]) + 1, expected, repr(raw[int(bad[0])]))
    from relkit.metrics.readers._arrow import import_pyarrow

    arrow = import_pyarrow()   # its C string builder: ~20x faster here than fixed-width bytes
    n = len(docs)
    # Query ids and the constant columns without a Python string per row: a topic's id
    # is repeated by index, a constant by pyarrow's repeat.
    codes = np.repeat(np.arange(len(topics), dtype=np.int32), counts)
    qids = arrow.DictionaryArray.from_arrays(codes, arrow.array(topics, arrow.string()))

    def const(text: str) -> Any:
        return arrow.repeat(text, n).cast(arrow.string())

    common = {"query_id": qids.cast(arrow.string()),
              "iteration": const("0" if kind == "qrels" else "Q0"),
              "doc_id": arrow.array(docs, arrow.string())}
    if kind == "qrels":
        return arrow.table({**common, "relevance": values.astype(np.int64)})
    return arrow.table({**common, "rank": const("0"), "score": values,
                        "run_id": const(run_id)})


def numeric(col: pd.Series, source: str, expected: str) -> pd.Series:
    """``col`` as numbers; the first value that is not one is a FormatError (row 1-based)."""
    import pandas as pd

    try:
        out: pd.Series = pd.to_numeric(col, errors="raise")
        return out
    except (ValueError, TypeError):
        bad = pd.to_numeric(col, errors="coerce").isna().to_numpy() & col.notna().to_numpy()
        row = int(np.flatnonzero(bad)[0]) if bad.any() else 0
        raise FormatError(source, row + 1, expected, repr(col.iloc[row])) from None
