"""The engines ``ab analyze`` and ``clicks fit`` aggregate with: ``local`` (DuckDB and
numpy, this package) or ``spark`` (:mod:`relkit.metrics.spark`).

The Spark engine depends on this package (it runs the per-user SQL of
:mod:`.ab.users` and the models' M-steps), so this package reaches it through the
engine registry (:data:`relkit.metrics.core.engines.ENGINES`), which imports it on
first use: the import graph keeps one direction (the contracts), and PySpark is
imported only when ``--engine spark`` is given. Standard library only.
"""

from __future__ import annotations

from typing import Any, Literal, get_args

from relkit.metrics.core.options import OptionError

Engine = Literal["local", "spark"]
ENGINES: tuple[str, ...] = get_args(Engine)
ENGINE_HELP = ("Where the sums are computed: local (DuckDB and numpy) or spark (Spark "
               "SQL; the same numbers, see docs/spark-online.md)")
MASTER_HELP = ("Spark master URL (local[4], yarn, k8s://..., spark://...; default: the "
               "active session, $RELKIT_SPARK_MASTER, else local[2])")

def check_engine(engine: str, spark_master: str | None) -> None:
    """``--engine`` is known and ``--spark-master`` goes with ``--engine spark``."""
    if engine not in ENGINES:
        raise OptionError("--engine", f"{engine!r} is not one of {', '.join(ENGINES)}")
    if spark_master is not None and engine != "spark":
        raise OptionError("--spark-master", "goes with --engine spark")


def spark_engine() -> Any:
    """The Spark engine (:class:`relkit.metrics.spark.spark_engine.SparkEngine`: the
    :class:`~relkit.metrics.core.engines.Engine` protocol and the commands' Spark
    halves, ``fit_clicks`` and ``user_table``)."""
    from relkit.metrics.core.engines import engine

    return engine("spark")
