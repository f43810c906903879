"""One line for a Spark failure, from the page of text PySpark and the JVM give.

A failed job reaches the driver as a ``Py4JJavaError`` or a ``PythonException`` whose
text is the JVM's stack trace with the Python worker's traceback inside it. The user
needs the cause, which is one of its lines: :func:`one_line` finds it. A worker that
cannot import relkit (or pyarrow, numpy) is the cause most often met on a new cluster,
and its fix is known, so that line says what to do.

Standard library only: nothing here imports PySpark.
"""

from __future__ import annotations

import re

# What each task imports: a worker without one of them cannot run any relkit task.
TASK_MODULES = ("relkit", "pyarrow", "numpy", "pyspark")

_NO_MODULE = re.compile(r"No module named '(?P<module>[\w.]+)'")
# A Python exception line of the worker's traceback (``ValueError: ...``), not a JVM
# class (``org.apache.spark.SparkException: ...``).
_PYTHON_ERROR = re.compile(r"^(?P<name>[A-Z]\w*(?:Error|Exception|Exit)): (?P<message>.+)$")
_CAUSED_BY = re.compile(r"^Caused by: [\w.$]+: (?P<message>.+)$")
# Lines that introduce the cause rather than state it.
_HEADERS = ("An exception was thrown from the Python worker",
            "An error occurred while calling", "Traceback (most recent call last)",
            "JVM stacktrace:", "at ", "File \"", "...")
LIMIT = 300


def missing_module(text: str) -> str | None:
    """The task module a worker could not import (``relkit``...), if that is what failed."""
    for found in _NO_MODULE.finditer(text):
        top = found.group("module").split(".")[0]
        if top in TASK_MODULES:
            return top
    return None


def worker_cannot_import(module: str) -> str:
    """What to do when the executors' Python lacks ``module`` (docs/spark.md)."""
    return (f"the Spark executors cannot import {module} (No module named '{module}'): "
            "install relkit[spark] in the Python the executors run, or point "
            "PYSPARK_PYTHON (spark.pyspark.python) at a Python that has it; see "
            "docs/spark.md, Executors' Python")


def one_line(exc: BaseException | str) -> str:
    """The line of a Spark failure's text that states its cause (at most 300 characters).

    In order: a task module the worker could not import (with the fix); the last Python
    exception line of the worker's traceback; the JVM's deepest ``Caused by:``; else
    the first line that is not a header or a stack frame.
    """
    text = str(exc)
    module = missing_module(text)
    if module is not None:
        return worker_cannot_import(module)
    # Py4J puts the Java exception on a line of its own after ": "
    lines = [t.strip().removeprefix(": ") for t in text.splitlines() if t.strip()]
    python = [t for t in lines if _PYTHON_ERROR.match(t)]
    if python:
        return python[-1][:LIMIT]
    caused = [m.group("message") for m in map(_CAUSED_BY.match, lines) if m]
    if caused:
        return caused[-1][:LIMIT]
    plain = [t for t in lines if not t.startswith(_HEADERS)]
    if plain:
        return plain[0][:LIMIT]
    return type(exc).__name__ if isinstance(exc, BaseException) else "no reason given"


def describe(exc: BaseException) -> str:
    """:func:`one_line`, for the CLI: when Spark stopped the application (a master that
    gave up on it), the JVM's own ERROR line says why; and the JVM's log file is named
    when it holds anything (:func:`relkit.metrics.spark.session.jvm_log_hint`)."""
    from relkit.metrics.spark.session import jvm_error, jvm_log_hint

    line = one_line(exc)
    if "SparkContext" in line and ("stopped" in line or "shut down" in line):
        line = jvm_error() or line
    return f"{line}{jvm_log_hint()}"
