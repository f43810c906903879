"""The ``spark`` engine: Apache Spark evaluates runs, reads click logs and adds EM sums.

What it runs is relkit's own code (the per-topic evaluation of
:class:`~relkit.metrics.evaluator.Evaluator`, the click models' E-step and M-step), on a
cluster; see docs/spark.md and docs/spark-online.md. Registered in
:data:`relkit.metrics.core.engines.ENGINES` and reached only through it: this module
imports nothing heavy, PySpark loads when a method runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.engines import ENGINES

if TYPE_CHECKING:
    from relkit.metrics.online.ab.users import MetricDef, UserTable
    from relkit.metrics.online.clickmodels.base import ClickModel, Evaluation


class SparkEngine:
    """Apache Spark (``--engine spark``; master: ``--spark-master``)."""

    name = "spark"

    # -- the Engine protocol -----------------------------------------------------------
    def read_qrels(self, source: Any, master: str | None) -> Any:
        from relkit.metrics.spark.inputs import read_qrels

        return read_qrels(source, master)     # hdfs://, s3a://: fetched by Spark

    def evaluate(self, evaluator: Any, runs: Sequence[Any], zscores: Any = None
                 ) -> list[tuple[str, Any]]:
        from relkit.metrics.spark.engine import spark_compute_labelled

        return spark_compute_labelled(evaluator, list(runs), zscores)

    def em_sums(self, model: Any, sessions: Any, theta: Any, into: dict[str, Any]
                ) -> dict[str, Any]:
        from relkit.metrics.spark.clicks_chain import em_sums

        return em_sums(model, sessions, theta, into)

    def read_click_log(self, path: Any, *, mapping: dict[str, str] | None = None,
                       master: str | None = None) -> Any:
        from relkit.metrics.spark.ab_command import open_session
        from relkit.metrics.spark.logs import check, read_log

        log = read_log(open_session(master, python_tasks=False), path, mapping=mapping)
        check(log)
        return log

    # -- the commands' Spark halves ------------------------------------------------------
    def check_eval(self, engine: str, master: str | None, *, relformat: str,
                   paths: list[str]) -> None:
        """``relkit eval``'s ``--engine``/``--spark-master`` checked, the session started."""
        from relkit.metrics.spark.options import check_engine

        check_engine(engine, master, relformat=relformat, paths=paths)

    def fit_clicks(self, log: Path, model: str, *, mapping: dict[str, str], max_rank: int,
                   iterations: int, seed: int, master: str | None
                   ) -> tuple[ClickModel, Evaluation, int, int]:
        """``relkit clicks fit --engine spark``: the model, its evaluation on the log, the
        sessions and the pairs."""
        from relkit.metrics.spark.clicks_command import fit_command

        return fit_command(log, model, mapping=mapping, max_rank=max_rank,
                           iterations=iterations, seed=seed, master=master)

    def user_table(self, log: Path, assign: Path, defs: Sequence[MetricDef], **options: Any
                   ) -> UserTable:
        """``relkit ab analyze --engine spark``: the per-user table of ``defs``."""
        from relkit.metrics.spark.ab_command import spark_table

        return spark_table(log, assign, defs, **options)


ENGINES.register(SparkEngine())
