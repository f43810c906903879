"""One place that finds or starts the Spark session relkit works in.

Every Spark entry point (``eval --engine spark``, ``ab analyze --engine spark``,
``clicks fit --engine spark``) asks :func:`get_session`, so the settings relkit relies on
are made in one place: Arrow transfers on (``applyInPandas``/``mapInArrow`` move columns,
not pickled rows), UTC session time, and no web UI in local mode.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import sys
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.borrowed import give_up, missing
from relkit.metrics.core.errors import RelkitError
from relkit.metrics.spark.master import check_master

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


class SparkUnavailableError(RelkitError):
    """PySpark or the Java runtime it needs is missing."""


# Where the master comes from when the caller gives none: the environment variable
# spark-submit users already set, else a local session on two cores (this project's
# test bed, and enough to try the engine on a laptop).
DEFAULT_MASTER = "local[2]"
QUIET_JVM = "the quiet start of Spark's JVM (its output in a log file, not the terminal)"


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
        # Written whole under a name of its own, then renamed: two relkit processes
        # starting Spark at once must not give a JVM a half-written file.
        fd, part = tempfile.mkstemp(prefix="relkit-spark-log4j2-", suffix=".part")
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            f.write(_LOG4J)
        os.chmod(part, 0o644)   # mkstemp's 0600 would hide it from the machine's other users
        os.replace(part, path)
    return {"spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{path}"}


def master_from_env() -> str:
    """The master URL relkit uses when none is given (``RELKIT_SPARK_MASTER``, ``MASTER``)."""
    return os.environ.get("RELKIT_SPARK_MASTER") or os.environ.get("MASTER") or DEFAULT_MASTER


def get_session(master: str | None = None, *, app_name: str = "relkit",
                conf: dict[str, Any] | None = None, quiet: bool = False) -> SparkSession:
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
    quiet
        Send the driver JVM's own output (its log lines, its stack traces) to a log
        file instead of this process's stderr (the CLI: stderr holds relkit's lines).

    Raises
    ------
    SparkUnavailableError
        PySpark is not installed, no Java runtime is found, or the JVM exited.
    MasterURLError, MasterUnreachableError
        ``master`` is not a URL Spark takes, or is one this machine cannot use
        (:func:`relkit.metrics.spark.master.check_master`), found before the JVM starts.
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
    # Under spark-submit the launcher's --master reaches the session through the Py4J
    # gateway's configuration; setting a master here would override it with local[2].
    submitted = master is None and bool(os.environ.get("PYSPARK_GATEWAY_PORT"))
    master = master or master_from_env()
    _check_java()
    if not submitted:
        from pyspark import SparkContext

        if _no_context(SparkContext):   # a new session: check first
            check_master(master)
    if not submitted and master.startswith("local"):
        # Python workers run the driver's interpreter (and so see relkit and pyarrow),
        # not whatever `python3` is first on PATH
        os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    builder = SparkSession.builder if submitted else SparkSession.builder.master(master)
    settings = {"spark.sql.execution.arrow.pyspark.enabled": "true",
                "spark.sql.session.timeZone": "UTC",
                "spark.ui.enabled": "false",
                "spark.ui.showConsoleProgress": "false"}
    if not submitted and master.startswith("local"):
        settings.update(_quiet_jvm())
    settings.update(conf or {})
    builder = builder.appName(app_name)
    for key, value in settings.items():
        builder = builder.config(key, value)
    if quiet and not submitted:
        _launch_quietly(master, app_name, settings)
    session = builder.getOrCreate()
    session.sparkContext.setLogLevel("OFF" if not submitted and master.startswith("local")
                                     else "ERROR")
    return session


def _no_context(context: Any) -> bool:
    """Whether no SparkContext runs in this process, from PySpark's private
    ``SparkContext._active_spark_context``; without it every session is taken as new
    (its master checked again: slower, never wrong)."""
    if missing(context, "_active_spark_context") is not None:
        give_up("pyspark", "SparkContext._active_spark_context",
                "skipping the master's check for a running session")
        return True
    return context._active_spark_context is None


def _check_java() -> None:
    """The Java runtime Spark's launcher will run: ``$JAVA_HOME/bin/java`` when
    ``JAVA_HOME`` is set (the launcher does not fall back to PATH), else ``java``."""
    home = os.environ.get("JAVA_HOME")
    if home:
        java = os.path.join(home, "bin", "java")
        if not os.access(java, os.X_OK):
            raise SparkUnavailableError(
                f"JAVA_HOME={home} has no bin/java: point JAVA_HOME at a "
                "Java runtime (17 or newer) or unset it to use the java on PATH")
    elif shutil.which("java") is None:
        raise SparkUnavailableError(
            "--engine spark needs a Java runtime (17 or newer): install one "
            "(Debian: apt-get install openjdk-17-jre-headless) or set JAVA_HOME")


def _launch_quietly(master: str, app_name: str, settings: dict[str, Any]) -> None:
    """Start the driver JVM (the Py4J gateway) with its stdout and stderr in
    :func:`jvm_log`, so that no log line or JVM stack trace reaches the terminal; the
    session built next uses this gateway. Nothing to do if a gateway is running."""
    from pyspark import SparkConf, SparkContext
    from pyspark.java_gateway import launch_gateway

    gone = missing(SparkContext, "_gateway", "_ensure_initialized")  # PySpark's private
    if gone is not None:   # Spark starts its JVM itself, its log on the terminal
        give_up("pyspark", f"SparkContext.{gone}", QUIET_JVM)
        return
    if SparkContext._gateway is not None:
        return
    spark_conf = SparkConf(loadDefaults=False).setMaster(master).setAppName(app_name)
    for key, value in settings.items():
        spark_conf.set(key, str(value))
    path = jvm_log()
    with open(path, "ab") as log:
        try:
            gateway = launch_gateway(  # type: ignore[no-untyped-call]
                spark_conf, popen_kwargs={"stdout": log, "stderr": log})
        except Exception:   # noqa: BLE001 - PySpark's JAVA_GATEWAY_EXITED: say why
            raise SparkUnavailableError(
                f"the Java runtime exited before Spark started: "
                f"{jvm_reason(path)}") from None
    SparkContext._ensure_initialized(gateway=gateway)


_LOG_PATH: str | None = None
_KEEP_LOG = False


def jvm_log() -> str:
    """The file the CLI's driver JVM writes its output to (one per process, removed at
    exit unless a failure named it: :func:`jvm_log_hint`)."""
    global _LOG_PATH
    if _LOG_PATH is None:
        import atexit
        import tempfile

        fd, _LOG_PATH = tempfile.mkstemp(prefix="relkit-spark-", suffix=".log")
        os.close(fd)
        atexit.register(_drop_log)
    return _LOG_PATH


def jvm_log_hint() -> str:
    """`` (the JVM's log: PATH)`` for a failure's message, if the JVM wrote to its log
    file anything beyond its start-up notice (a cluster's log lines; in local mode log4j
    is off), which is then kept after exit; else ``""``."""
    global _KEEP_LOG
    if _LOG_PATH is None or not _meaningful(_LOG_PATH):
        return ""
    _KEEP_LOG = True
    return f" (the JVM's log: {_LOG_PATH})"


def jvm_error() -> str | None:
    """The first ERROR line of the JVM's log, without its time and logger (``None``
    when there is none, or the JVM writes to stderr)."""
    import re

    for line in _meaningful(_LOG_PATH) if _LOG_PATH is not None else []:
        found = re.search(r"\bERROR [\w.$]+: (?P<message>.+)$", line)
        if found:
            return found.group("message")[:300]
    return None


def _meaningful(path: str) -> list[str]:
    try:
        with open(path, encoding="utf-8", errors="replace") as f:
            return [t.strip() for t in f if t.strip() and "incubator modules" not in t]
    except OSError:
        return []


def _drop_log() -> None:
    if _LOG_PATH is not None and not _KEEP_LOG:
        with contextlib.suppress(OSError):
            os.unlink(_LOG_PATH)


def jvm_reason(path: str) -> str:
    """The line of the JVM's log that says why it failed (an error, else its last line)."""
    lines = _meaningful(path)
    if not lines:
        return "it printed nothing"
    found = [t for t in lines if "rror" in t or "xception" in t or "No such file" in t]
    return (found or lines)[-1 if not found else 0][:300]
