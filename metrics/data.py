"""``Run`` and ``Qrels``: validated wrappers over pandas frames.

Ids are strings and stay strings (``"007"`` is not ``7``). Grades are ints.
Convert once, here, at the boundary; measures never re-sniff their inputs.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from functools import cached_property
from typing import IO, TYPE_CHECKING

import numpy as np
import pyarrow as pa

from relkit.metrics import io as _io
from relkit.metrics.errors import FormatError

if TYPE_CHECKING:  # pandas costs ~0.35 s to import: only load it when a frame is asked for
    import pandas as pd


def _table_to_frame(table: pa.Table) -> pd.DataFrame:
    import pandas as pd

    str_dtype = pd.ArrowDtype(pa.string())

    def mapper(t: pa.DataType) -> pd.ArrowDtype | None:
        return str_dtype if t == pa.string() else None

    return table.to_pandas(types_mapper=mapper)


def _as_str(col: pd.Series) -> pd.Series:
    import pandas as pd

    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.astype(str).astype("category")
    return col.astype(str).astype(pd.ArrowDtype(pa.string()))


@dataclass(frozen=True, eq=False)
class _TrecTable:
    """What runs and qrels share: an Arrow table, its source and line numbers."""

    table: pa.Table
    source: str = "<input>"
    lines: np.ndarray | None = field(default=None, repr=False)

    @cached_property
    def frame(self) -> pd.DataFrame:
        """The rows as a pandas frame (built on first use)."""
        return _table_to_frame(self.table)

    def line_of(self, row: int) -> int:
        """Source line number of row ``row``."""
        return int(self.lines[row]) if self.lines is not None else row + 1

    def arrow(self) -> pa.Table:
        return self.table

    def __len__(self) -> int:
        return self.table.num_rows


@dataclass(frozen=True, eq=False)
class Run(_TrecTable):
    """A system's ranked results: one row per (query, document).

    Columns: ``query_id, iteration, doc_id, rank, score, run_id``. Only
    ``query_id``, ``doc_id`` and ``score`` matter for evaluation; ranking order
    is decided by :mod:`relkit.metrics.ranking`, never by the ``rank`` column.

    Build one with :meth:`read` (TREC 6-column file) or from a frame with
    :meth:`from_frame`.
    """

    run_id: str | None = None

    @classmethod
    def read(cls, source: _io.Source, *, eval_only: bool = False) -> Run:
        """Read a TREC run from a path (``.gz`` too), an open file or text.

        ``eval_only`` keeps only ``query_id, doc_id, score`` (and the run id):
        a third of the memory, for evaluating large runs.
        """
        columns = _io.EVAL_FIELDS if eval_only else _io.RUN_FIELDS
        table, lines, name, run_id = _io.read_run_table(source, columns)
        pa.default_memory_pool().release_unused()   # the parser's scratch blocks
        return cls(table, name, lines, run_id)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "<frame>") -> Run:
        """Validate a frame with at least ``query_id, doc_id, score``."""
        import pandas as pd

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
        return cls(pa.Table.from_pandas(out.reset_index(drop=True), preserve_index=False),
                   source)

    @property
    def name(self) -> str:
        """The run id, taken from the last line as trec_eval does."""
        if self.run_id is not None:
            return self.run_id
        col = self.table["run_id"]
        return str(col[len(col) - 1]) if len(col) else ""

    def write(self, target: str | os.PathLike[str] | IO[str]) -> None:
        """Write the 6-column TREC format."""
        _io.write_frame(self.frame, _io.RUN_FIELDS, target)


@dataclass(frozen=True, eq=False)
class Qrels(_TrecTable):
    """Relevance judgments: one row per (query, document) with an int grade.

    Columns: ``query_id, iteration, doc_id, relevance``. A negative grade means
    "pooled but not judged" (trec_eval's -1); such rows count neither as
    relevant nor as non-relevant.
    """


    @classmethod
    def read(cls, source: _io.Source) -> Qrels:
        """Read TREC qrels (4 fields, or Cranfield's 3-field form)."""
        table, lines, name = _io.read_qrels_table(source)
        return cls(table, name, lines)

    @classmethod
    def from_frame(cls, frame: pd.DataFrame, source: str = "<frame>") -> Qrels:
        """Validate a frame with at least ``query_id, doc_id, relevance``."""
        import pandas as pd

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
        return cls(pa.Table.from_pandas(out.reset_index(drop=True), preserve_index=False),
                   source)

    @classmethod
    def from_dict(cls, judgments: dict[str, dict[str, int]]) -> Qrels:
        """Build from ``{query_id: {doc_id: grade}}`` (pytrec_eval's shape)."""
        rows = [(q, d, g) for q, docs in judgments.items() for d, g in docs.items()]
        import pandas as pd

        frame = pd.DataFrame(rows, columns=["query_id", "doc_id", "relevance"])
        return cls.from_frame(frame, "<dict>")

    def write(self, target: str | os.PathLike[str] | IO[str]) -> None:
        """Write the 4-column TREC qrels format."""
        _io.write_frame(self.frame, _io.QRELS_FIELDS, target)


def read_run(source: _io.Source) -> Run:
    """Read a TREC run; see :meth:`Run.read`."""
    return Run.read(source)


def read_qrels(source: _io.Source) -> Qrels:
    """Read TREC qrels; see :meth:`Qrels.read`."""
    return Qrels.read(source)
