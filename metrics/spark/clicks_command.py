"""The Spark half of ``relkit clicks fit --engine spark``: options in, model and
evaluation out (printed and saved by :mod:`relkit.metrics.online.clickmodels.commands`,
the same code as the local path). PySpark is imported only here."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from relkit.metrics.online.clickmodels.base import ClickModel, Evaluation


def fit_command(log: Path, model: str, *, mapping: dict[str, str], max_rank: int,
                iterations: int, seed: int, master: str | None
                ) -> tuple[ClickModel, Evaluation, int, int]:
    """Read, code and cache the log in Spark, fit ``model``, evaluate it on the log.

    Returns the model, its evaluation, the sessions and the pairs.
    """
    from relkit.metrics.spark.ab_command import open_session, spark_errors
    from relkit.metrics.spark.clicks import SPARK_MODELS, code_log, evaluate_spark, fit_spark
    from relkit.metrics.spark.logs import check, read_log

    if model not in SPARK_MODELS:
        raise OptionError("--model", f"{model} is not fitted with --engine spark yet "
                          f"(it fits {', '.join(SPARK_MODELS)}); use --engine local")
    spark = open_session(master, python_tasks=True)
    with spark_errors(str(log)):
        source = read_log(spark, log, mapping=mapping)
        check(source)
        data = code_log(spark, source, max_rank)
        try:
            if data.n_sessions == 0:
                raise OptionError("LOG", f"{log}: no impressions to fit")
            m = fit_spark(data, model, iterations=iterations, seed=seed)
            ev = evaluate_spark(m, data)
        finally:
            data.release()
    return m, ev, data.n_sessions, data.n_pairs
