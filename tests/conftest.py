"""Fixtures shared by the test modules (helpers to import are in ``helpers.py``)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

import isolation
from helpers import BACKENDS, PG_URL, ROOT, fresh_pg_database

# `python -m pytest` puts the working directory on sys.path; from the repository root
# that makes `metrics/` importable as a top-level copy of relkit.metrics. Plain `pytest`
# does not; drop it so both run the same modules (tests/test_import_paths.py).
sys.path[:] = [p for p in sys.path if Path(p or ".").resolve() != ROOT]

# ir_datasets (imported by the ecosystem tests, and by ranx) makes its data folders on
# import, under ~/.ir_datasets unless told otherwise: keep the tests out of the home folder.
os.environ.setdefault("IR_DATASETS_HOME",
                      str(Path(tempfile.gettempdir()) / "relkit-tests-ir_datasets"))


@pytest.fixture(autouse=True)
def _leaves_the_process_as_it_found_it() -> Iterator[None]:
    """Every test: the environment variables relkit and its sessions read, and the
    working directory, are as before it (tests/isolation.py says why). Set up before,
    and so torn down after, the test's own fixtures (monkeypatch has undone its work)."""
    before = isolation.snapshot()
    yield
    left = isolation.changes(before, isolation.snapshot())
    if left:
        isolation.restore(before)   # (the tests after it run as they would have)
        pytest.fail("the test left the process changed for the tests after it: "
                    + "; ".join(left), pytrace=False)


@pytest.fixture(params=BACKENDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A fresh, empty judging database URL on each backend."""
    if request.param == "sqlite":
        yield str(tmp_path / "judging.db")
        return
    if not PG_URL:
        if os.environ.get("RELKIT_REQUIRE_PG"):
            pytest.fail("RELKIT_REQUIRE_PG is set but RELKIT_TEST_PG is not: "
                        "PostgreSQL was not started (.ci/postgres)")
        pytest.skip("PostgreSQL not available: set RELKIT_TEST_PG (see .ci/postgres)")
    url, drop = fresh_pg_database(PG_URL)
    yield url
    drop()


@pytest.fixture(scope="session")
def spark() -> Iterator[object]:
    """One local Spark session (``local[2]``) for the whole test run: start-up costs
    tens of seconds, so every Spark test shares it. Skipped without PySpark or Java,
    unless ``.ci/run`` said the engine must be tested (``RELKIT_REQUIRE_SPARK``)."""
    from relkit.metrics.spark.session import SparkUnavailableError, get_session

    try:
        session = get_session("local[2]", conf={"spark.sql.shuffle.partitions": "4"})
    except SparkUnavailableError as exc:
        if os.environ.get("RELKIT_REQUIRE_SPARK"):
            pytest.fail(f"RELKIT_REQUIRE_SPARK is set but Spark cannot start: {exc}")
        pytest.skip(str(exc))
    yield session
    session.stop()


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """What the CLI battery covered (commands, readers, cases, escapes), when it ran.

    With ``RELKIT_BATTERY_REPORT=FILE`` the counts and each escape also go to FILE (JSON).
    """
    battery = sys.modules.get("battery")
    if battery is None or not battery.TALLY:
        return
    for line in battery.summary():
        terminalreporter.write_line(line)
    if os.environ.get("RELKIT_BATTERY_REPORT"):
        battery.json_dump(Path(os.environ["RELKIT_BATTERY_REPORT"]))
