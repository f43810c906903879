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


# Log4j 2 settings for a local session the CLI starts: off, so that stderr holds
# relkit's lines only. Spark's defaults print its profile, a hostname warning and a
# "default log level" notice before relkit can lower the level, and a failed job as
# ERROR lines with the JVM's stack trace; relkit reports a failed job itself, in one
# line with the task's own error. Spark's repl logger is named too, or Spark announces
# the level it sets. A cluster's own logging is left alone.
_LOG4J = """rootLogger.level = off
rootLogger.appenderRef.stderr.ref = console
appender.console.type = Console
appender.console.name = console
appender.console.target = SYSTEM_ERR
appender.console.layout.type = PatternLayout
appender.console.layout.pattern = %p %c{1}: %m%n
logger.spark.name = org.apache.spark
logger.spark.level = off
logger.hadoop.name = org.apache.hadoop
logger.hadoop.level = off
"""


def _quiet_jvm(master: str | None) -> dict[str, str]:
    import os
    import tempfile

    from relkit.metrics.spark.session import master_from_env

    if not (master or master_from_env()).startswith("local"):
        return {}
    path = os.path.join(tempfile.gettempdir(), "relkit-spark-log4j2-off.properties")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(_LOG4J)
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{path}"}


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
            get_session(master, conf=_quiet_jvm(master))
    except SparkUnavailableError as exc:
        raise OptionError("--engine", str(exc)) from None
    except Exception as exc:   # the JVM's error for a master URL it cannot use
        raise OptionError("--spark-master" if master else "--engine",
                          f"Spark cannot start: {_first_line(exc)}") from None
