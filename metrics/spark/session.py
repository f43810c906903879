"""One place that finds or starts the Spark session relkit works in.

Every Spark entry point (``eval --engine spark``, ``ab analyze --engine spark``,
``clicks fit --engine spark``) asks :func:`get_session`, so the settings relkit relies on
are made in one place: Arrow transfers on (``applyInPandas``/``mapInArrow`` move columns,
not pickled rows), UTC session time, and no web UI in local mode.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.errors import RelkitError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class SparkUnavailableError(RelkitError):
    """PySpark or the Java runtime it needs is missing."""


# Where the master comes from when the caller gives none: the environment variable
# spark-submit users already set, else a local session on two cores (this project's
# test bed, and enough to try the engine on a laptop).
DEFAULT_MASTER = "local[2]"


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


def _quiet_jvm() -> dict[str, str]:
    """The driver JVM option that points log4j at :data:`_LOG4J` (written once to the
    temporary directory: the JVM reads a file)."""
    import tempfile

    path = os.path.join(tempfile.gettempdir(), "relkit-spark-log4j2-off.properties")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(_LOG4J)
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{path}"}


def master_from_env() -> str:
    """The master URL relkit uses when none is given (``RELKIT_SPARK_MASTER``, ``MASTER``)."""
    return os.environ.get("RELKIT_SPARK_MASTER") or os.environ.get("MASTER") or DEFAULT_MASTER


def get_session(master: str | None = None, *, app_name: str = "relkit",
                conf: dict[str, Any] | None = None) -> SparkSession:
    """The active Spark session, or a new one on ``master``.

    Parameters
    ----------
    master
        A Spark master URL (``local[4]``, ``yarn``, ``k8s://...``, ``spark://...``).
        ``None``: an active session (as under ``spark-submit``) is reused as it is,
        otherwise :func:`master_from_env`.
    app_name
        The application name shown by the cluster manager.
    conf
        Extra ``spark.*`` settings for a new session.

    Raises
    ------
    SparkUnavailableError
        PySpark is not installed or no Java runtime is found.
    """
    try:
        from pyspark.sql import SparkSession
    except ImportError as exc:
        raise SparkUnavailableError(
            "--engine spark needs PySpark: pip install 'relkit[spark]'") from exc
    if master is None:
        active = SparkSession.getActiveSession()
        if active is not None:
            return active
    if not os.environ.get("JAVA_HOME") and shutil.which("java") is None:
        raise SparkUnavailableError(
            "--engine spark needs a Java runtime (17 or newer): install one "
            "(Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME")
    # Under spark-submit the launcher's --master reaches the session through the Py4J
    # gateway's configuration; setting a master here would override it with local[2].
    submitted = master is None and bool(os.environ.get("PYSPARK_GATEWAY_PORT"))
    master = master or master_from_env()
    if not submitted and master.startswith("local"):
        # Python workers run the driver's interpreter (and so see relkit and pyarrow),
        # not whatever `python3` is first on PATH
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder if submitted else SparkSession.builder.master(master)
    builder = (builder.appName(app_name)
               .config("spark.sql.execution.arrow.pyspark.enabled", "true")
               .config("spark.sql.session.timeZone", "UTC")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false"))
    settings = dict(conf or {})
    if not submitted and master.startswith("local"):
        settings = {**_quiet_jvm(), **settings}
    for key, value in settings.items():
        builder = builder.config(key, value)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("OFF" if not submitted and master.startswith("local")
                                     else "ERROR")
    return session
