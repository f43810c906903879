"""The Spark half of ``relkit ab analyze --engine spark``: options in, a UserTable out.

Kept apart from :mod:`relkit.metrics.online.ab.cli` so that the CLI imports PySpark only
when ``--engine spark`` is given. Errors are relkit's: a missing PySpark or Java is an
:class:`~relkit.metrics.core.options.OptionError` on ``--engine`` (exit 2), bad input
the :class:`~relkit.metrics.core.errors.FormatError` the DuckDB path raises (exit 1).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.errors import RelkitError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

    from relkit.metrics.online.ab.users import Metric, UserTable


def open_session(master: str | None, *, python_tasks: bool) -> SparkSession:
    """The session ``ab analyze`` and ``clicks fit`` run on
    (:func:`relkit.metrics.spark.options.start_session`: one line for every way Spark
    cannot start). ``python_tasks``: the jobs run relkit in the executors' Python
    (``clicks fit``'s EM), not Spark SQL only (``ab analyze``)."""
    from relkit.metrics.spark.options import start_session

    # relkit moves data as Arrow (toArrow, mapInArrow), never through pandas, so
    # PySpark's warning about pandas 3 does not apply: it would be a second stderr line.
    warnings.filterwarnings("ignore", message="PySpark does not yet fully support pandas",
                            category=FutureWarning)
    session = start_session(master, python_tasks=python_tasks)
    # Spark logs a query's failure before raising it: the CLI says it once, itself.
    session.sparkContext.setLogLevel("OFF")
    return session


@contextmanager
def spark_errors(what: str) -> Iterator[None]:
    """Turn an error Spark raises while running a job into one line naming ``what``."""
    from py4j.protocol import Py4JError
    from pyspark.errors import PySparkException

    from relkit.metrics.spark.failures import describe

    try:
        yield
    except (PySparkException, Py4JError) as exc:
        raise RelkitError(f"{what}: Spark failed: {describe(exc)}") from None


def spark_table(log: Path, assign: Path, defs: Sequence[Metric], *,
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
    spark = open_session(master, python_tasks=False)
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
