"""The ``duckdb`` engine: DuckDB reads the click logs and the numbers are numpy's.

It is the local engine under the name of its reader: relkit's single-machine paths have
always read click logs (Parquet, CSV, TSV, JSONL, out of core) with DuckDB, the DuckDB
backend of the one click-log contract (:mod:`relkit.metrics.online.fields`: columns,
``--map``, checks; the Spark backend is :mod:`relkit.metrics.spark.logs`), and handed
numpy the codes. Named apart so that code can ask for that reader by name.
"""

from __future__ import annotations

from relkit.metrics.core.engines import ENGINES
from relkit.metrics.engines.local import LocalEngine


class DuckDBEngine(LocalEngine):
    """DuckDB for the click logs, numpy for the sums (``engine="duckdb"``)."""

    name = "duckdb"


ENGINES.register(DuckDBEngine())
