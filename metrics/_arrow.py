"""Zero-copy numpy views of Arrow arrays, without pyarrow's pandas probe.

``pyarrow.Array.to_numpy`` imports pandas (0.3 s) on first use to check for
pandas types; for the plain numeric, null-free arrays of the evaluation path a
view on the data buffer is equivalent and free.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa


def to_np(arr: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """numpy array of a numeric Arrow array or chunked array (no nulls)."""
    if isinstance(arr, pa.ChunkedArray):
        parts = [to_np(c) for c in arr.chunks]
        if not parts:
            return np.zeros(0, dtype=arr.type.to_pandas_dtype())
        return parts[0] if len(parts) == 1 else np.concatenate(parts)
    if arr.null_count or not (pa.types.is_integer(arr.type) or pa.types.is_floating(arr.type)):
        return arr.to_numpy(zero_copy_only=False)
    dtype = np.dtype(arr.type.to_pandas_dtype())
    buf = arr.buffers()[1]
    if buf is None:
        return np.zeros(0, dtype=dtype)
    return np.frombuffer(buf, dtype=dtype, count=arr.offset + len(arr))[arr.offset:]


def true_positions(mask: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """Positions where a boolean Arrow array is true."""
    return to_np(pa.compute.indices_nonzero(mask))
