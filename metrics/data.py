"""``Run`` and ``Qrels``: validated wrappers over columns read once.

Ids are strings and stay strings (``"007"`` is not ``7``). Grades are ints.
Convert once, here, at the boundary; measures never re-sniff their inputs.

A small input is held as :data:`~relkit.metrics.readers.io.Columns` (numpy arrays, ids
as fixed-width bytes) and never imports pyarrow; a large one as an Arrow table. Both give
the same :attr:`~_TrecTable.table` (Arrow, built on first use) and
:meth:`~_TrecTable.column` values, and :mod:`relkit.metrics.ranking` ranks either.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from functools import cached_property
from typing import IO, TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.errors import DuplicateDocumentError, FormatError
from relkit.metrics.readers import io as _io
from relkit.metrics.readers import shapes as _shapes
from relkit.metrics.readers._arrow import release_unused_memory

if TYPE_CHECKING:  # pandas costs ~0.35 s to import: only load it when a frame is asked for
    import pandas as pd
    import pyarrow as pa


class _TrecTable:
    """What runs and qrels share: their columns, source and line numbers.

    Parameters
    ----------
    table
        An Arrow table, or :data:`~relkit.metrics.readers.io.Columns` (a dict of equally
        long numpy arrays, ids as fixed-width bytes) from the small-input reader.
    source
        Where the rows came from, for error messages.
    lines
        1-based source line of each row; None when row ``i`` is line ``i + 1``.
    """

    def __init__(self, table: pa.Table | _io.Columns, source: str = "<input>",
                 lines: np.ndarray | None = None) -> None:
        self._data = table
        self.source = source
        self.lines = lines

    def __repr__(self) -> str:
        return f"{type(self).__name__}(source={self.source!r}, rows={len(self)})"

    @cached_property
    def table(self) -> pa.Table:
        """The rows as an Arrow table (built on first use for a small input)."""
        if isinstance(self._data, dict):
            return _io.to_arrow(self._data)
        return self._data

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The rows as a pandas frame (built on first use)."""
        from relkit.metrics.readers.frames import table_to_frame as _table_to_frame

        return _table_to_frame(self.table)

    @property
    def columns(self) -> list[str]:
        """Column names."""
        return list(self._data) if isinstance(self._data, dict) else self._data.column_names

    def column(self, name: str) -> Any:
        """One column as read: a numpy array (small input; ids as fixed-width
        UTF-8 bytes), or an Arrow chunked array. :mod:`relkit.metrics.ranking`
        takes either."""
        if isinstance(self._data, dict):
            return self._data[name]
        return self._data[name]

    def line_of(self, row: int) -> int:
        """Source line number of row ``row``."""
        return int(self.lines[row]) if self.lines is not None else row + 1

    def arrow(self) -> pa.Table:
        return self.table

    def _rows(self, idx: np.ndarray | slice) -> pa.Table | _io.Columns:
        """The rows ``idx`` (positions or a slice) in this table's own form."""
        if isinstance(self._data, dict):
            if isinstance(idx, slice):
                return {k: v[idx] for k, v in self._data.items()}
            pick = idx.tolist()
            return {k: (v[idx] if isinstance(v, np.ndarray) else [v[i] for i in pick])
                    for k, v in self._data.items()}
        if isinstance(idx, slice):
            start, stop, _ = idx.indices(self._data.num_rows)
            return self._data.slice(start, stop - start)
        import pyarrow as pa

        return self._data.take(pa.array(idx))

    def _pairs(self, value: str) -> tuple[list[str], list[str], list[Any]]:
        """Query ids, doc ids (as ``str``) and the ``value`` column, as Python lists."""
        def strings(name: str) -> list[str]:
            col = self.column(name)
            if isinstance(col, np.ndarray) and col.dtype.kind == "S":
                return _io.decode(col)
            return [str(x) for x in (col if isinstance(col, (list, np.ndarray))
                                     else col.to_pylist())]

        col = self.column(value)
        values = (col.tolist() if isinstance(col, np.ndarray) else list(col)
                  if isinstance(col, list) else col.to_pylist())
        return strings("query_id"), strings("doc_id"), values

    def _nested(self, value: str) -> dict[str, dict[str, Any]]:
        out: dict[str, dict[str, Any]] = {}
        qids, docs, values = self._pairs(value)
        for row, (q, d, v) in enumerate(zip(qids, docs, values, strict=True)):
            inner = out.setdefault(q, {})
            if d in inner:
                raise DuplicateDocumentError(self.source, self.line_of(row), q, d)
            inner[d] = v
        return out

    def to_frame(self) -> pd.DataFrame:
        """A fresh frame of the columns, ids as plain Python ``str`` (``object`` dtype).

        Plain strings, not Arrow ones, so other tools take the frame as it is
        (ranx's ``from_df`` wants ``object`` id columns).
        """
        import pandas as pd

        frame = pd.DataFrame({name: self.frame[name] for name in self.columns})
        for name in self.columns:
            if name not in ("score", "relevance"):
                frame[name] = frame[name].astype(str).astype(object)
        return frame

    def to_parquet(self, path: str | os.PathLike[str]) -> None:
        """Write the columns to a parquet file (ids as strings, exact values)."""
        import pyarrow.parquet as pq

        pq.write_table(self.table, os.fspath(path))

    def __len__(self) -> int:
        if isinstance(self._data, dict):
            return len(next(iter(self._data.values()))) if self._data else 0
        rows: int = self._data.num_rows
        return rows


class Run(_TrecTable):
    """A system's ranked results: one row per (query, document).

    Columns: ``query_id, iteration, doc_id, rank, score, run_id``. Only
    ``query_id``, ``doc_id`` and ``score`` matter for evaluation; ranking order
    is decided by :mod:`relkit.metrics.ranking`, never by the ``rank`` column.

    Build one with :meth:`read` (TREC 6-column file) or from a frame with
    :meth:`from_frame`.

    Examples
    --------
    >>> from relkit import Run
    >>> run = Run.read("q1 Q0 d2 1 2.0 bm25\\nq1 Q0 d1 2 1.0 bm25\\nq2 Q0 007 1 5.0 bm25\\n")
    >>> run, run.name
    (Run(source='<text>', rows=3), 'bm25')
    >>> run.to_dict()                        # ids stay strings: "007" is not 7
    {'q1': {'d2': 2.0, 'd1': 1.0}, 'q2': {'007': 5.0}}
    """

    def __init__(self, table: pa.Table | _io.Columns, source: str = "<input>",
                 lines: np.ndarray | None = None, run_id: str | None = None) -> None:
        super().__init__(table, source, lines)
        self.run_id = run_id

    @classmethod
    def read(cls, source: _io.Source, *, eval_only: bool = False) -> Run:
        """Read a TREC run from a path (``.gz`` too), an open file or text.

        ``eval_only`` keeps only ``query_id, doc_id, score`` (and the run id):
        a third of the memory, for evaluating large runs.
        """
        if isinstance(source, (str, os.PathLike)) and _shapes.is_parquet(source):
            return cls.from_frame(_shapes.parquet_frame(source, "run"), os.fspath(source))
        columns = _io.EVAL_FIELDS if eval_only else _io.RUN_FIELDS
        table, lines, name, run_id = _io.read_run_columns(source, columns)
        release_unused_memory()   # the parser's scratch blocks
        return cls(table, name, lines, run_id)

    def rows(self, idx: np.ndarray | slice) -> Run:
        """A run of the rows ``idx`` (positions or a slice), lines and run id kept."""
        if self.lines is not None:
            lines = self.lines[idx]
        elif isinstance(idx, slice):
            lines = np.arange(*idx.indices(len(self))) + 1
        else:
            lines = np.asarray(idx, dtype=np.int64) + 1
        return Run(self._rows(idx), self.source, lines, self.name)

    @classmethod
    def coerce(cls, obj: Any) -> Run:
        """A run from any shape relkit accepts: a ``Run``, a path (TREC text, ``.gz``,
        ``.parquet``), a frame, ``{query_id: {doc_id: score}}``, ``ScoredDoc`` records,
        a ranx ``Run``, an ir_datasets dataset; see :mod:`relkit.metrics.readers.shapes`."""
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, _TrecTable):
            raise FormatError(obj.source, None, "a run", f"a {type(obj).__name__}")
        if isinstance(obj, (str, os.PathLike)) or callable(getattr(obj, "read", None)):
            return cls.read(obj)
        nested = _shapes.nested_of(obj, "run")
        if nested is not None:
            return cls._from_nested(*nested)
        return cls.from_frame(*_shapes.frame_of(obj, "run"))

    @classmethod
    def from_dict(cls, scores: Mapping[str, Mapping[str, float]], run_id: str = "run") -> Run:
        """Build from ``{query_id: {doc_id: score}}`` (pytrec_eval's and ranx's shape)."""
        return cls._from_nested(scores, "<dict>", run_id)

    @classmethod
    def _from_nested(cls, scores: Mapping[Any, Any], source: str, run_id: str | None) -> Run:
        return cls(_shapes.nested_table(scores, "run", source, run_id or "run"), source)

    def to_dict(self) -> dict[str, dict[str, float]]:
        """``{query_id: {doc_id: score}}``, scores exactly as held (float64).

        Raises
        ------
        DuplicateDocumentError
            A document appears twice for a topic (the shape cannot hold both).
        """
        return self._nested("score")

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "<frame>") -> Run:
        """Validate a frame with at least ``query_id, doc_id, score``, or the other
        tools' names for them (``qid``, ``docno``...:
        :data:`relkit.metrics.readers.shapes.COLUMN_NAMES`)."""
        import pandas as pd

        from relkit.metrics.readers.frames import as_str as _as_str

        frame = _shapes.renamed(frame, "run", source)
        out = pd.DataFrame({
            "query_id": _as_str(frame["query_id"]),
            "iteration": _as_str(frame["iteration"]) if "iteration" in frame else "Q0",
            "doc_id": _as_str(frame["doc_id"]),
            "rank": _as_str(frame["rank"]) if "rank" in frame else "0",
            "score": _shapes.numeric(frame["score"], source, "a numeric score").astype("float64"),
            "run_id": _as_str(frame["run_id"]) if "run_id" in frame else "run",
        })
        if out["score"].isna().any():
            row = int(np.flatnonzero(out["score"].isna().to_numpy())[0])
            raise FormatError(source, row + 1, "a numeric score", "NaN")
        import pyarrow as pa

        return cls(pa.Table.from_pandas(out.reset_index(drop=True), preserve_index=False),
                   source)

    @property
    def name(self) -> str:
        """The run id, taken from the last line as trec_eval does."""
        if self.run_id is not None:
            return self.run_id
        col = self.column("run_id")
        if not len(col):
            return ""
        last = col[len(col) - 1]
        return last.decode() if isinstance(last, bytes) else str(last)

    def write(self, target: str | os.PathLike[str] | IO[str]) -> None:
        """Write the 6-column TREC format (``.gz`` compressed), or parquet for a path
        ending in ``.parquet``."""
        if _parquet_target(target):
            self.to_parquet(target)  # type: ignore[arg-type]
            return
        _io.write_frame(self.frame, _io.RUN_FIELDS, target)


class Qrels(_TrecTable):
    """Relevance judgments: one row per (query, document) with an int grade.

    Columns: ``query_id, iteration, doc_id, relevance``. A negative grade means
    "pooled but not judged" (trec_eval's -1); such rows count neither as
    relevant nor as non-relevant.

    Examples
    --------
    >>> from relkit import Qrels
    >>> qrels = Qrels.read("q1 0 d1 2\\nq1 0 d2 0\\nq2 0 007 1\\n")
    >>> qrels
    Qrels(source='<text>', rows=3)
    >>> qrels.to_dict()
    {'q1': {'d1': 2, 'd2': 0}, 'q2': {'007': 1}}
    >>> Qrels.from_dict({"q1": {"d1": 2}}).to_dict()
    {'q1': {'d1': 2}}
    """

    @classmethod
    def read(cls, source: _io.Source) -> Qrels:
        """Read TREC qrels (4 fields, or Cranfield's 3-field form)."""
        if isinstance(source, (str, os.PathLike)) and _shapes.is_parquet(source):
            return cls.from_frame(_shapes.parquet_frame(source, "qrels"), os.fspath(source))
        table, lines, name = _io.read_qrels_columns(source)
        return cls(table, name, lines)

    @classmethod
    def coerce(cls, obj: Any) -> Qrels:
        """Qrels from any shape relkit accepts: a ``Qrels``, a path (TREC text, ``.gz``,
        ``.parquet``), a frame, ``{query_id: {doc_id: grade}}``, ``Qrel`` records, a
        ranx ``Qrels``, an ir_datasets dataset; see :mod:`relkit.metrics.readers.shapes`."""
        if isinstance(obj, cls):
            return obj
        if isinstance(obj, _TrecTable):
            raise FormatError(obj.source, None, "qrels", f"a {type(obj).__name__}")
        if isinstance(obj, (str, os.PathLike)) or callable(getattr(obj, "read", None)):
            return cls.read(obj)
        nested = _shapes.nested_of(obj, "qrels")
        if nested is not None:
            return cls(_shapes.nested_table(nested[0], "qrels", nested[1]), nested[1])
        return cls.from_frame(*_shapes.frame_of(obj, "qrels"))

    def to_dict(self) -> dict[str, dict[str, int]]:
        """``{query_id: {doc_id: grade}}`` (pytrec_eval's shape), negative grades kept.

        Raises
        ------
        DuplicateDocumentError
            A document is judged twice for a topic.
        """
        return self._nested("relevance")

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "<frame>") -> Qrels:
        """Validate a frame with at least ``query_id, doc_id, relevance``, or the other
        tools' names for them (``qid``, ``docno``, ``rel``, ``label``...:
        :data:`relkit.metrics.readers.shapes.COLUMN_NAMES`)."""
        import pandas as pd

        from relkit.metrics.readers.frames import as_str as _as_str

        frame = _shapes.renamed(frame, "qrels", source)
        rel = _shapes.numeric(frame["relevance"], source, "an integer grade")
        values = rel.to_numpy(dtype="float64")
        bad = np.flatnonzero((np.mod(values, 1) != 0)
                             | (values < _io.GRADE_MIN) | (values > _io.GRADE_MAX))
        if len(bad):
            # ranked and counted as 32-bit integers, as the readers check (io.GRADE_MIN/MAX)
            raise FormatError(source, int(bad[0]) + 1, "integer grades between "
                              f"{_io.GRADE_MIN} and {_io.GRADE_MAX}",
                              repr(frame["relevance"].iloc[int(bad[0])]))
        out = pd.DataFrame({
            "query_id": _as_str(frame["query_id"]),
            "iteration": _as_str(frame["iteration"]) if "iteration" in frame else "0",
            "doc_id": _as_str(frame["doc_id"]),
            "relevance": rel.astype("int64"),
        })
        import pyarrow as pa

        return cls(pa.Table.from_pandas(out.reset_index(drop=True), preserve_index=False),
                   source)

    @classmethod
    def from_dict(cls, judgments: Mapping[str, Mapping[str, int]]) -> Qrels:
        """Build from ``{query_id: {doc_id: grade}}`` (pytrec_eval's shape)."""
        return cls(_shapes.nested_table(judgments, "qrels", "<dict>"), "<dict>")

    def write(self, target: str | os.PathLike[str] | IO[str]) -> None:
        """Write the 4-column TREC qrels format (``.gz`` compressed), or parquet for a
        path ending in ``.parquet``."""
        if _parquet_target(target):
            self.to_parquet(target)  # type: ignore[arg-type]
            return
        _io.write_frame(self.frame, _io.QRELS_FIELDS, target)


def _parquet_target(target: object) -> bool:
    return isinstance(target, (str, os.PathLike)) and _shapes.is_parquet(target)


def read_run(source: _io.Source) -> Run:
    """Read a TREC run; see :meth:`Run.read`."""
    return Run.read(source)


def read_qrels(source: _io.Source) -> Qrels:
    """Read TREC qrels; see :meth:`Qrels.read`."""
    return Qrels.read(source)
