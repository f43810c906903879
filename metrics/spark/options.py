"""``relkit eval --engine spark``'s options, checked before any file is read.

A wrong ``--engine``/``--spark-master`` or an engine that cannot start (no PySpark, no
Java, a master URL Spark does not know) is a usage error: one line, exit status 2,
from :class:`~relkit.metrics.core.options.OptionError`. A valid master that cannot be
used from here (nothing answers at its address, ``yarn`` without its configuration) is
a failure: one line, exit status 1. :func:`start_session` is how every command starts
Spark (``eval``, ``ab analyze``, ``clicks fit``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


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
    start_session(master)


def master_option(master: str | None) -> str:
    """How the user gave the master: ``--spark-master``, the environment variable that
    set it, or ``--engine`` (the default, ``local[2]``)."""
    if master is not None:
        return "--spark-master"
    import os

    return next((name for name in ("RELKIT_SPARK_MASTER", "MASTER") if os.environ.get(name)),
                "--engine")


def start_session(master: str | None, *, python_tasks: bool = True) -> SparkSession:
    """:func:`~relkit.metrics.spark.session.get_session` for a command: the JVM's output
    kept off stderr, and every way it cannot start turned into one line naming the
    option as typed.

    Raises
    ------
    OptionError
        (exit 2) No PySpark or Java, or a master URL that Spark does not take.
    RelkitError
        (exit 1) A valid master that cannot be used from here (nothing answers at a
        ``spark://`` address, ``yarn`` without its configuration), or Spark failed to
        start for another reason.
    """
    from relkit.metrics.spark.engine import quiet_pandas
    from relkit.metrics.spark.master import MasterUnreachableError, MasterURLError
    from relkit.metrics.spark.session import SparkUnavailableError, get_session, master_from_env

    option = master_option(master)
    try:
        with quiet_pandas():
            session = get_session(master, quiet=True)
    except SparkUnavailableError as exc:
        raise OptionError("--engine", str(exc)) from None
    except MasterURLError as exc:
        raise OptionError(option, str(exc)) from None
    except MasterUnreachableError as exc:
        raise RelkitError(f"{option} {exc}") from None
    except Exception as exc:   # noqa: BLE001 - the JVM's error for a master it cannot use
        from relkit.metrics.spark.failures import describe

        raise RelkitError(f"{option} {master or master_from_env()}: Spark did not start: "
                          f"{describe(exc)}") from None
    if python_tasks:
        check_executors(session)
    return session


def _imports(_rows: Iterable[int]) -> Iterator[int]:
    """What a relkit task needs in the executors' Python (run there by
    :func:`check_executors`)."""
    import numpy  # noqa: F401
    import pyarrow  # noqa: F401

    import relkit.metrics.spark.task  # noqa: F401

    yield 0


def check_executors(session: SparkSession) -> None:
    """One task that imports what relkit's tasks import: a Python without relkit (or
    pyarrow, numpy) on the executors is said in one line before any input is read.

    Raises
    ------
    RelkitError
        The task failed: its cause, and the fix when a module is missing.
    """
    from relkit.metrics.spark.failures import describe

    app = session.sparkContext.applicationId
    if app in _CHECKED:
        return
    try:
        session.sparkContext.parallelize([0], 1).mapPartitions(_imports).collect()
    except Exception as exc:   # noqa: BLE001 - Py4JJavaError, PythonException...
        raise RelkitError(describe(exc)) from None
    _CHECKED.add(app)


# The Spark applications whose executors were checked (once each: commands run in one
# process share a session).
_CHECKED: set[str] = set()
