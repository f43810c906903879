"""Id columns (topics, docnos) in the two forms ranking works on.

A string column as read is fixed-width bytes (a numpy ``S`` array: small inputs,
no pyarrow), a list of ``str``, or an Arrow (chunked) array. The ranking rules
(:mod:`relkit.metrics.ranking`) and the qrels lookup (:mod:`relkit.metrics.judged`)
are written once; the handful of operations on strings they need (encode, take,
code topics, list distinct values) have one implementation per form, here.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from relkit.metrics.readers import io as _io
from relkit.metrics.readers._arrow import to_np

# A string column as read: fixed-width bytes or an Arrow (chunked) array (see above).
Strings = Any


def topic_order(ids: list[str]) -> list[str]:
    """Sort topic ids as trec_eval does (``strcmp``: ``q1 < q10 < q2``).

    Python compares ``str`` by code point, which is the byte order of UTF-8.
    """
    return sorted(set(ids))


def distinct(values: np.ndarray) -> bool:
    """Whether no value repeats (a sort, not ``np.unique``, which imports numpy.ma)."""
    s = np.sort(values)
    return not bool(np.any(s[1:] == s[:-1]))


def id_strings(column: Strings) -> Strings:
    """A column in the form ranking works on: fixed-width bytes. An Arrow column
    is converted (a chunk of a large run at a time), a list of str encoded; only
    ids bytes cannot hold (longer than :data:`~relkit.metrics.readers.io.MAX_ID_BYTES`, or
    with a NUL byte) stay Arrow strings."""
    if isinstance(column, np.ndarray):
        return column
    if isinstance(column, list):
        as_b = _io.as_bytes(column)
        if as_b is not None:
            return as_b
        from relkit.metrics.readers._arrow import import_pyarrow

        arrow = import_pyarrow()
        return arrow.chunked_array([arrow.array(column, type=arrow.string())])
    import pyarrow as pa

    from relkit.metrics.readers._arrow import to_bytes

    as_b = to_bytes(column, _io.MAX_ID_BYTES)
    if as_b is not None:
        return as_b
    return column.cast(pa.string()) if pa.types.is_dictionary(column.type) else column


def _value(column: Strings, row: int) -> str:
    """One value of a column, as str."""
    v = column[row]
    return v.decode() if isinstance(v, bytes) else str(v)


def _runs(column: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Start and length of each run of equal consecutive values."""
    if not len(column):
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    heads = np.concatenate(([0], np.flatnonzero(column[1:] != column[:-1]) + 1))
    return heads, np.diff(np.append(heads, len(column)))


def codes_of(column: Strings, mapping: dict[str, int]) -> np.ndarray:
    """Map each value of a string column to ``mapping[value]`` (or -1)."""
    if isinstance(column, list):
        column = id_strings(column)
    if isinstance(column, np.ndarray):
        if not len(column):
            return np.empty(0, np.int32)
        # topics come in runs of lines: look up one value per run
        heads, lengths = _runs(column)
        get = mapping.get
        vals = np.array([get(v, -1) for v in _io.decode(column[heads])], dtype=np.int32)
        return np.repeat(vals, lengths)
    import pyarrow as pa

    parts = []
    for chunk in column.chunks:
        if not pa.types.is_dictionary(chunk.type):
            by_runs = _codes_by_runs(chunk, mapping)
            if by_runs is not None:
                parts.append(by_runs)
                continue
            chunk = chunk.dictionary_encode()
        lookup = np.array([mapping.get(v, -1) for v in chunk.dictionary.to_pylist()] + [-1],
                          dtype=np.int32)
        idx = to_np(chunk.indices)
        parts.append(lookup[idx] if len(lookup) > 1 else np.full(len(idx), -1, np.int32))
    if not parts:
        return np.empty(0, np.int32)
    return np.concatenate(parts)


_dictionary_codes = codes_of   # the former name

# Runs of equal values at most this share of a chunk's rows: one lookup per run.
_RUNS_SHARE = 8


def _codes_by_runs(chunk: Any, mapping: dict[str, int]) -> np.ndarray | None:
    """:func:`codes_of` for one Arrow string chunk whose values come in long runs (a
    run's topics, as systems write them): one lookup per run, repeated over it.

    Run-end encoding compares neighbours, which costs about half of hashing every
    value for a dictionary; None when the runs are too many (topics interleaved) to
    look up one by one, or the chunk is empty.
    """
    import pyarrow.compute as pc

    n = len(chunk)
    if not n:
        return None
    ree = pc.run_end_encode(chunk, run_end_type="int64")
    if len(ree.values) * _RUNS_SHARE > n:
        return None
    ends = to_np(ree.run_ends)
    get = mapping.get
    vals = np.array([get(v, -1) for v in ree.values.to_pylist()], dtype=np.int32)
    return np.repeat(vals, np.diff(ends, prepend=0))


def column_values(column: Strings) -> list[str]:
    """Distinct values of a (dictionary) string column, first-seen order not kept."""
    if isinstance(column, (np.ndarray, list)):
        column = id_strings(column)
    if isinstance(column, np.ndarray):
        return list(set(_io.decode(column[_runs(column)[0]])))
    import pyarrow as pa
    import pyarrow.compute as pc

    seen: set[str] = set()
    for chunk in column.chunks:
        dictionary = chunk.dictionary if pa.types.is_dictionary(chunk.type) else pc.unique(chunk)
        seen.update(dictionary.to_pylist())
    return list(seen)


def _take(column: Strings, rows: np.ndarray) -> Strings:
    """The values at positions ``rows``."""
    if isinstance(column, np.ndarray):
        return column[rows]
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.take(column, pa.array(rows))
