"""The Spark half of ``relkit ab analyze --engine spark``: options in, a UserTable out.

Kept apart from :mod:`relkit.metrics.online.ab.cli` so that the CLI imports PySpark only
when ``--engine spark`` is given. Errors are relkit's: a missing PySpark or Java is an
:class:`~relkit.metrics.core.options.OptionError` on ``--engine`` (exit 2), bad input
the :class:`~relkit.metrics.core.errors.FormatError` the DuckDB path raises (exit 1).
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from relkit.metrics.online.ab.users import MetricDef, UserTable


def local_python(master: str) -> None:
    """In local mode, run Spark's Python workers on this interpreter (the one that has
    relkit, numpy and pyarrow), not on whatever ``python3`` the PATH finds first. On a
    cluster ``PYSPARK_PYTHON`` is the deployment's to set (docs/spark-online.md)."""
    if master.startswith("local"):
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)


def open_session(master: str | None) -> SparkSession:
    """:func:`relkit.metrics.spark.session.get_session`, a missing Spark an option error."""
    from relkit.metrics.spark.session import SparkUnavailableError, get_session, master_from_env

    local_python(master or master_from_env())
    # relkit moves data as Arrow (toArrow, mapInArrow), never through pandas, so
    # PySpark's warning about pandas 3 does not apply: it would be a second stderr line.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                            category=FutureWarning)
    try:
        session = get_session(master)
        # Spark logs a query's failure before raising it: the CLI says it once, itself.
        session.sparkContext.setLogLevel("OFF")
        return session
    except SparkUnavailableError as exc:
        raise OptionError("--engine", str(exc)) from None
    except Exception as exc:  # noqa: BLE001 - a bad master URL fails inside the JVM
        line = (str(exc).strip().splitlines() or ["no reason given"])[0][:300]
        raise OptionError("--spark-master", f"Spark did not start: {line}") from None


@contextmanager
def spark_errors(what: str) -> Iterator[None]:
    """Turn an error Spark raises while running a job into one line naming ``what``."""
    from py4j.protocol import Py4JJavaError
    from pyspark.errors import PySparkException

    try:
        yield
    except (PySparkException, Py4JJavaError) as exc:
        text = str(exc).strip().splitlines()
        line = next((t for t in text if "Exception" in t or "Error" in t), text[0] if text
                    else "no reason given")
        raise RelkitError(f"{what}: Spark failed: {line.strip()[:300]}") from None


def spark_table(log: Path, assign: Path, defs: Sequence[MetricDef], *,
                log_map: list[str] | None, assign_map: list[str] | None,
                pre: Path | None, pre_columns: dict[str, str], good_dwell: float,
                master: str | None) -> UserTable:
    """Read the inputs in Spark and aggregate them to the per-user table."""
    from relkit.metrics.core.options import option_value
    from relkit.metrics.online.ab.errors import ABError
    from relkit.metrics.online.fields import ASSIGN_FIELDS, FIELDS, WIDE_LISTS, parse_map
    from relkit.metrics.spark.ab import check_cuped_columns, spark_user_table
    from relkit.metrics.spark.logs import check, read_assignments, read_log

    with option_value("--map"):
        lmap = parse_map(log_map, [*FIELDS, *WIDE_LISTS])
    with option_value("--assign-map"):
        amap = parse_map(assign_map, [f.name for f in ASSIGN_FIELDS])
    spark = open_session(master)
    with spark_errors(str(log)):
        aview = read_assignments(spark, assign, amap)
        logs = []
        for path in (log, pre):
            if path is None:
                continue
            src = read_log(spark, path, mapping=lmap)
            check(src)
            if not src.has("user_id"):
                raise ABError(f"{path}: the log has no user_id column (map one with "
                              "--map user_id=COLUMN): A/B tests need the randomisation unit")
            logs.append(src)
        check_cuped_columns(aview, pre_columns)
        return spark_user_table(spark, logs[0], aview, defs,
                                pre=logs[1] if pre is not None else None,
                                pre_columns=pre_columns, good_dwell=good_dwell)
