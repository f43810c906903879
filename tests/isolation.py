"""What a test may not leave behind for the tests after it: the parts of the process's
environment that relkit, its servers' sessions and its libraries read, and the working
directory.

A test that leaves ``RELKIT_SERVE_PAIRS=1`` set turns every later ``relkit serve`` into
the pairs screen (it happened: every browser test after it failed in CI, none before).
tests/conftest.py checks every test with :func:`changes` (tests/test_isolation.py).
"""

from __future__ import annotations

import os
from collections.abc import Mapping

# Read by relkit, by the processes its tests start (servers, sessions, CLIs), or by the
# libraries under them. Variables third-party libraries set for themselves on import
# (Java's, Spark's) are theirs: the session-wide Spark fixture starts before any test.
WATCHED_PREFIXES = ("RELKIT_", "TEXTUAL", "XDG_", "PG", "IR_DATASETS", "COLUMNS", "ROWS",
                    "TERM", "NO_COLOR", "FORCE_COLOR", "LANG", "LC_", "TZ", "HOME", "PATH",
                    "PYTHON", "VIRTUAL_ENV", "MASTER", "JAVA_HOME", "HADOOP_", "YARN_",
                    "OPENAI_")
# PySpark's own: relkit's Spark session sets PYSPARK_PYTHON for its workers (setdefault:
# the interpreter running, the same for every test) and reads the gateway port Spark sets.
NOT_WATCHED = ("PYSPARK_",)


def watched(name: str) -> bool:
    return name.startswith(WATCHED_PREFIXES) and not name.startswith(NOT_WATCHED)


def snapshot() -> tuple[dict[str, str], str]:
    """The watched variables and the working directory, now."""
    return {k: v for k, v in os.environ.items() if watched(k)}, os.getcwd()


def changes(before: tuple[Mapping[str, str], str],
            after: tuple[Mapping[str, str], str]) -> list[str]:
    """What differs between two snapshots, one phrase each (empty: nothing)."""
    (env0, cwd0), (env1, cwd1) = before, after
    said = []
    for name in sorted(set(env0) | set(env1)):
        if name not in env1:
            said.append(f"unset {name}")
        elif name not in env0:
            said.append(f"set {name}={env1[name]!r}")
        elif env0[name] != env1[name]:
            said.append(f"changed {name} from {env0[name]!r} to {env1[name]!r}")
    if cwd0 != cwd1:
        said.append(f"moved the working directory from {cwd0} to {cwd1}")
    return said


def restore(before: tuple[Mapping[str, str], str]) -> None:
    """Put the watched variables and the working directory back as in ``before``."""
    env0, cwd0 = before
    for name in [k for k in os.environ if watched(k) and k not in env0]:
        del os.environ[name]
    os.environ.update(env0)
    os.chdir(cwd0)
