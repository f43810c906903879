"""``relkit eval --engine spark``'s options, checked before any file is read.

A wrong ``--engine``/``--spark-master`` or an engine that cannot start (no PySpark, no
Java, a master URL Spark does not know) is a usage error: one line, exit status 2,
from :class:`~relkit.metrics.core.options.OptionError`.
"""

from __future__ import annotations

from relkit.metrics.core.options import OptionError


def _first_line(exc: BaseException) -> str:
    for text in str(exc).strip().splitlines():
        if text.strip():
            return text.strip()
    return type(exc).__name__


def check_engine(engine: str, master: str | None, *, relformat: str,
                 paths: list[str]) -> None:
    """Refuse what the Spark engine does not do, then start (or find) its session.

    Raises
    ------
    OptionError
        Naming ``--engine`` or ``--spark-master`` as typed.
    """
    from relkit.metrics.evaluator import ENGINES

    if engine not in ENGINES:
        raise OptionError("--engine", f"must be one of {', '.join(ENGINES)}; got {engine!r}")
    if engine != "spark":
        raise OptionError("--spark-master", "needs --engine spark")
    if relformat != "qrels":
        raise OptionError("--engine", f"spark evaluates -R qrels judgments only; got -R "
                          f"{relformat} (use --engine local)")
    if "-" in paths:
        raise OptionError("--engine", "spark reads files by name: '-' (stdin) cannot be "
                          "read by Spark")
    from relkit.metrics.spark.engine import quiet_pandas
    from relkit.metrics.spark.session import SparkUnavailableError, get_session

    try:
        with quiet_pandas():
            get_session(master)
    except SparkUnavailableError as exc:
        raise OptionError("--engine", str(exc)) from None
    except Exception as exc:   # the JVM's error for a master URL it cannot use
        raise OptionError("--spark-master" if master else "--engine",
                          f"Spark cannot start: {_first_line(exc)}") from None
