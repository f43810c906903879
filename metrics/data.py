"""``Run`` and ``Qrels``: validated wrappers over pandas frames.

Ids are strings and stay strings (``"007"`` is not ``7``). Grades are ints.
Convert once, here, at the boundary; measures never re-sniff their inputs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import IO

import numpy as np
import pandas as pd
import pyarrow as pa

from metrics import io as _io
from metrics.errors import FormatError

_STR = pd.ArrowDtype(pa.string())


def _table_to_frame(table: pa.Table) -> pd.DataFrame:
    def mapper(t: pa.DataType) -> pd.ArrowDtype | None:
        return _STR if t == pa.string() else None

    return table.to_pandas(types_mapper=mapper)


def _as_str(col: pd.Series) -> pd.Series:
    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.astype(str).astype("category")
    return col.astype(str).astype(_STR)


@dataclass(frozen=True, eq=False)
class Run:
    """A system's ranked results: one row per (query, document).

    Columns: ``query_id, iteration, doc_id, rank, score, run_id``. Only
    ``query_id``, ``doc_id`` and ``score`` matter for evaluation; ranking order
    is decided by :mod:`metrics.ranking`, never by the ``rank`` column.

    Build one with :meth:`read` (TREC 6-column file) or from a frame with
    :meth:`from_frame`.
    """

    frame: pd.DataFrame
    source: str = "<run>"
    lines: np.ndarray | None = field(default=None, repr=False)
    _table: pa.Table | None = field(default=None, repr=False, compare=False)

    @classmethod
    def read(cls, source: _io.Source) -> Run:
        """Read a TREC run from a path (``.gz`` too), an open file or text."""
        table, lines, name = _io.read_run_table(source)
        return cls(_table_to_frame(table), name, lines, table)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "<frame>") -> Run:
        """Validate a frame with at least ``query_id, doc_id, score``."""
        missing = {"query_id", "doc_id", "score"} - set(frame.columns)
        if missing:
            raise FormatError(source, None, "columns query_id, doc_id, score",
                              f"no column(s) {sorted(missing)}")
        out = pd.DataFrame({
            "query_id": _as_str(frame["query_id"]),
            "iteration": _as_str(frame["iteration"]) if "iteration" in frame else "Q0",
            "doc_id": _as_str(frame["doc_id"]),
            "rank": _as_str(frame["rank"]) if "rank" in frame else "0",
            "score": pd.to_numeric(frame["score"], errors="raise").astype("float64"),
            "run_id": _as_str(frame["run_id"]) if "run_id" in frame else "run",
        })
        if out["score"].isna().any():
            row = int(np.flatnonzero(out["score"].isna().to_numpy())[0])
            raise FormatError(source, row + 1, "a numeric score", "NaN")
        return cls(out.reset_index(drop=True), source)

    @property
    def name(self) -> str:
        """The run id, taken from the last line as trec_eval does."""
        return str(self.frame["run_id"].iloc[-1]) if len(self.frame) else ""

    def line_of(self, row: int) -> int:
        """Source line number of frame row ``row``."""
        return int(self.lines[row]) if self.lines is not None else row + 1

    def arrow(self) -> pa.Table:
        """The run as an Arrow table (zero-copy when it was read from a file)."""
        if self._table is not None:
            return self._table
        return pa.Table.from_pandas(self.frame, preserve_index=False)

    def write(self, target: str | os.PathLike[str] | IO[str]) -> None:
        """Write the 6-column TREC format."""
        _io.write_frame(self.frame, _io.RUN_FIELDS, target)

    def __len__(self) -> int:
        return len(self.frame)


@dataclass(frozen=True, eq=False)
class Qrels:
    """Relevance judgments: one row per (query, document) with an int grade.

    Columns: ``query_id, iteration, doc_id, relevance``. A negative grade means
    "pooled but not judged" (trec_eval's -1); such rows count neither as
    relevant nor as non-relevant.
    """

    frame: pd.DataFrame
    source: str = "<qrels>"
    lines: np.ndarray | None = field(default=None, repr=False)
    _table: pa.Table | None = field(default=None, repr=False, compare=False)

    @classmethod
    def read(cls, source: _io.Source) -> Qrels:
        """Read TREC qrels (4 fields, or Cranfield's 3-field form)."""
        table, lines, name = _io.read_qrels_table(source)
        return cls(_table_to_frame(table), name, lines, table)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "<frame>") -> Qrels:
        """Validate a frame with at least ``query_id, doc_id, relevance``."""
        missing = {"query_id", "doc_id", "relevance"} - set(frame.columns)
        if missing:
            raise FormatError(source, None, "columns query_id, doc_id, relevance",
                              f"no column(s) {sorted(missing)}")
        rel = pd.to_numeric(frame["relevance"], errors="raise")
        if not np.all(np.mod(rel.to_numpy(dtype="float64"), 1) == 0):
            raise FormatError(source, None, "integer grades", "a fractional grade")
        out = pd.DataFrame({
            "query_id": _as_str(frame["query_id"]),
            "iteration": _as_str(frame["iteration"]) if "iteration" in frame else "0",
            "doc_id": _as_str(frame["doc_id"]),
            "relevance": rel.astype("int64"),
        })
        return cls(out.reset_index(drop=True), source)

    @classmethod
    def from_dict(cls, judgments: dict[str, dict[str, int]]) -> Qrels:
        """Build from ``{query_id: {doc_id: grade}}`` (pytrec_eval's shape)."""
        rows = [(q, d, g) for q, docs in judgments.items() for d, g in docs.items()]
        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
        return cls.from_frame(frame, "<dict>")

    def line_of(self, row: int) -> int:
        return int(self.lines[row]) if self.lines is not None else row + 1

    def arrow(self) -> pa.Table:
        if self._table is not None:
            return self._table
        return pa.Table.from_pandas(self.frame, preserve_index=False)

    def write(self, target: str | os.PathLike[str] | IO[str]) -> None:
        """Write the 4-column TREC qrels format."""
        _io.write_frame(self.frame, _io.QRELS_FIELDS, target)

    def __len__(self) -> int:
        return len(self.frame)


def read_run(source: _io.Source) -> Run:
    """Read a TREC run; see :meth:`Run.read`."""
    return Run.read(source)


def read_qrels(source: _io.Source) -> Qrels:
    """Read TREC qrels; see :meth:`Qrels.read`."""
    return Qrels.read(source)
