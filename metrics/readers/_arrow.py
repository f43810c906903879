"""pyarrow, imported only when a large input needs it, and zero-copy numpy views.

``import pyarrow`` costs ~0.15 s, more than reading and evaluating a TREC-sized run,
so nothing on the evaluation path imports it at module level: the readers import
it through :func:`import_pyarrow` when an input is large, and everything else asks
:func:`loaded` whether a value can be an Arrow object at all.

``pyarrow.Array.to_numpy`` imports pandas (0.3 s) on first use to check for
pandas types; for the plain numeric, null-free arrays of the evaluation path a
view on the data buffer is equivalent and free.
"""

from __future__ import annotations

import contextlib
import sys
from types import ModuleType
from typing import TYPE_CHECKING, Any

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa

# Set by ``relkit eval`` (trec output): let pyarrow's optional pandas probe fail when
# pyarrow is first imported, so pandas (~0.3 s) is not imported for nothing.
SKIP_PANDAS_PROBE = False


class _NoPandas:
    """Import hook that makes ``import pandas`` fail (used only momentarily)."""

    def find_spec(self, name: str, path: object = None, target: object = None) -> None:
        if name == "pandas" or name.startswith("pandas."):
            raise ImportError("pandas is not needed for this command")


def import_pyarrow() -> ModuleType:
    """``pyarrow``, with ``pyarrow.compute`` loaded (and pandas spared, see above).

    pyarrow probes for pandas on its first numpy conversion and imports it if
    installed. With :data:`SKIP_PANDAS_PROBE` that optional probe fails; pyarrow
    retries the import when pandas is really required (``to_pandas``), so nothing
    else changes.
    """
    first = "pyarrow" not in sys.modules
    import pyarrow as pa
    import pyarrow.compute  # noqa: F401  (pa.compute)

    if first and SKIP_PANDAS_PROBE and "pandas" not in sys.modules:
        hook = _NoPandas()
        sys.meta_path.insert(0, hook)
        try:
            pa.array(np.zeros(1))
        finally:
            sys.meta_path.remove(hook)
    module: ModuleType = pa
    return module


def import_acero() -> ModuleType:
    """``pyarrow.acero`` (the hash join), imported with the same care for pandas."""
    pa = import_pyarrow()
    if "pyarrow.acero" not in sys.modules and SKIP_PANDAS_PROBE and "pandas" not in sys.modules:
        hook = _NoPandas()
        sys.meta_path.insert(0, hook)
        try:
            with contextlib.suppress(ImportError):  # the join's module probes for pandas
                import pyarrow.acero  # noqa: F401
        finally:
            sys.meta_path.remove(hook)
    import pyarrow.acero as acero

    del pa
    module: ModuleType = acero
    return module


def loaded() -> ModuleType | None:
    """The pyarrow module if something imported it already, else None.

    A value can only be an Arrow object if pyarrow is loaded; asking this first
    keeps type checks from importing it.
    """
    return sys.modules.get("pyarrow")


def is_arrow(value: Any) -> bool:
    """Whether ``value`` is an Arrow array, chunked array or table."""
    pa = loaded()
    return pa is not None and isinstance(value, (pa.Array, pa.ChunkedArray, pa.Table))


def release_unused_memory() -> None:
    """Hand memory freed by Arrow back to the system (no-op without pyarrow)."""
    pa = loaded()
    if pa is not None:
        pa.default_memory_pool().release_unused()


def to_np(arr: pa.Array | pa.ChunkedArray | np.ndarray) -> np.ndarray:
    """numpy array of a numeric Arrow array or chunked array (no nulls)."""
    if isinstance(arr, np.ndarray):
        return arr
    import pyarrow as pa

    if isinstance(arr, pa.ChunkedArray):
        parts = [to_np(c) for c in arr.chunks]
        if not parts:
            return np.zeros(0, dtype=arr.type.to_pandas_dtype())
        return parts[0] if len(parts) == 1 else np.concatenate(parts)
    if arr.null_count or not (pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)):
        out: np.ndarray = arr.to_numpy(zero_copy_only=False)
        return out
    dtype = np.dtype(arr.type.to_pandas_dtype())
    buf = arr.buffers()[1]
    if buf is None:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=arr.offset + len(arr))[arr.offset:]


def true_positions(mask: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Positions where a boolean Arrow array is true."""
    import pyarrow.compute as pc

    return to_np(pc.indices_nonzero(mask))


def to_bytes(column: pa.Array | pa.ChunkedArray, limit: int) -> np.ndarray | None:
    """A string column as fixed-width bytes (numpy ``S``), the form ranking works
    on; None when a value is longer than ``limit`` bytes or ends with a NUL byte
    (which that form cannot tell from its padding).

    Read straight from the Arrow buffers: each value's bytes are copied into a
    zero-padded row of the longest value's width.
    """
    import pyarrow as pa

    chunks = column.chunks if isinstance(column, pa.ChunkedArray) else [column]
    parts = []
    for chunk in chunks:
        if pa.types.is_dictionary(chunk.type):
            chunk = chunk.cast(pa.string())
        if len(chunk) == 0:
            continue
        if chunk.null_count or not (pa.types.is_string(chunk.type)
                                    or pa.types.is_large_string(chunk.type)):
            return None
        _, offs_buf, data_buf = chunk.buffers()
        wide = pa.types.is_large_string(chunk.type)
        offsets = np.frombuffer(offs_buf, dtype=np.int64 if wide else np.int32,
                                count=chunk.offset + len(chunk) + 1)[chunk.offset:]
        starts = offsets[:-1].astype(np.int64)
        length = np.diff(offsets).astype(np.int64)
        w = max(int(length.max()), 1)
        if w > limit:
            return None
        data = np.frombuffer(data_buf, dtype=np.uint8) if data_buf is not None else \
            np.zeros(0, np.uint8)
        if int(length.min()) == w:
            # every value equally long (common for docnos): the data buffer is the
            # array already
            fixed = data[int(offsets[0]):int(offsets[-1])].reshape(len(length), w)
            if np.any(fixed[:, -1] == 0):
                return None
            parts.append(fixed.view(f"S{w}").ravel())
            continue
        if len(data) < w:
            data = np.concatenate((data, np.zeros(w, np.uint8)))
        near_end = starts > len(data) - w                 # windows would run past the end
        rows = np.lib.stride_tricks.sliding_window_view(data, w)[
            np.minimum(starts, len(data) - w)]           # a copy, one row per value
        for r in np.flatnonzero(near_end).tolist():
            piece = data[starts[r]:starts[r] + length[r]]
            rows[r] = np.concatenate((piece, np.zeros(w - len(piece), np.uint8)))
        rows *= np.arange(w)[None, :] < length[:, None]    # zero the padding
        last = rows[np.arange(len(rows)), np.maximum(length - 1, 0)]
        if np.any((last == 0) & (length > 0)):
            return None
        parts.append(rows.view(f"S{w}").ravel())
    if not parts:
        return np.zeros(0, dtype="S1")
    width = max(p.dtype.itemsize for p in parts)
    return np.concatenate([p.astype(f"S{width}", copy=False) for p in parts])
