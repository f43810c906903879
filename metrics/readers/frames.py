"""Between the readers' Arrow tables and pandas: the one place a run or qrels meets a frame.

:class:`~relkit.metrics.data.Run` and :class:`~relkit.metrics.data.Qrels` build their
``frame`` and read ``from_frame`` input through these two functions. They are apart from
:mod:`relkit.metrics.data` so that the wrappers' module stays the size of one idea;
pandas costs ~0.35 s to import, so this module imports it (and pyarrow) inside the
functions, and :mod:`relkit.metrics.data` imports this module only when a frame is asked for.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import pandas as pd
    import pyarrow as pa


def table_to_frame(table: pa.Table) -> pd.DataFrame:
    """A run's or qrels' Arrow table as a pandas frame, its strings as Arrow strings."""
    import pandas as pd
    import pyarrow as pa

    str_dtype = pd.ArrowDtype(pa.string())

    def mapper(t: pa.DataType) -> pd.ArrowDtype | None:
        return str_dtype if t == pa.string() else None

    frame: pd.DataFrame = table.to_pandas(types_mapper=mapper)
    return frame


def as_str(col: pd.Series) -> pd.Series:
    """A frame's id column as strings: Arrow strings, or a categorical one kept categorical."""
    import pandas as pd
    import pyarrow as pa

    if isinstance(col.dtype, pd.CategoricalDtype):
        return col.astype(str).astype("category")
    return col.astype(str).astype(pd.ArrowDtype(pa.string()))
