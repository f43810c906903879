"""``codes_of`` on Arrow strings by runs of equal values gives the dictionary path's codes.

:func:`relkit.metrics.id_columns._codes_by_runs` looks each run of equal neighbours up once
(run-end encoding) when runs are few, as in a run file's topic column; otherwise the
column is dictionary-encoded as before. Both paths, forced, are compared with the plain
computation ``[mapping.get(v, -1) for v in values]`` on chunked and sliced columns with odd
ids (leading zeros, unicode, long, empty, unknown), runs and interleaving.
"""

from __future__ import annotations

import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics import id_columns
from relkit.metrics.id_columns import codes_of

IDS = st.sampled_from(["1", "01", "001", "10", "é", "中文", "x" * 300, "", "q 1", "unknown"])


@st.composite
def columns(draw: st.DrawFn) -> tuple[list[list[str]], int]:
    """Chunks of ids, in runs (repeats drawn per run) or interleaved; a slice start."""
    chunks = []
    for _ in range(draw(st.integers(1, 3))):
        values: list[str] = []
        for _ in range(draw(st.integers(0, 6))):
            values += [draw(IDS)] * draw(st.sampled_from([1, 1, 3, 20]))
        chunks.append(values)
    return chunks, draw(st.integers(0, 3))


@pytest.mark.parametrize("share", [0, 10**9])   # 0: always by runs; 10**9: never
@settings(max_examples=examples(80), deadline=None, derandomize=True)
@given(columns())
def test_both_paths_give_the_plain_lookup(share: int, data: tuple[list[list[str]], int]
                                          ) -> None:
    chunks, start = data
    mapping = {"1": 0, "01": 1, "é": 2, "x" * 300: 3, "": 4, "中文": 5}
    column = pa.chunked_array([pa.array(c, type=pa.string()) for c in chunks],
                              type=pa.string())
    column = column.slice(min(start, len(column)))
    saved = id_columns._RUNS_SHARE
    id_columns._RUNS_SHARE = share
    try:
        got = codes_of(column, mapping).tolist()
    finally:
        id_columns._RUNS_SHARE = saved
    assert got == [mapping.get(v, -1) for v in column.to_pylist()]


def test_a_topic_column_goes_by_runs_and_an_interleaved_one_does_not() -> None:
    mapping = {"1": 0, "2": 1}
    runs = pa.array(["1"] * 50 + ["2"] * 50 + ["3"] * 50)
    assert id_columns._codes_by_runs(runs, mapping).tolist() == [0] * 50 + [1] * 50 + [-1] * 50
    assert id_columns._codes_by_runs(pa.array(["1", "2"] * 50), mapping) is None
