"""Fixtures shared by the test modules (helpers to import are in ``helpers.py``)."""

from __future__ import annotations

import os
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import settings

import isolation
from helpers import BACKENDS, PG_URL, ROOT, examples, fresh_pg_database

# A property without max_examples of its own runs Hypothesis's 100, scaled as the rest
# (helpers.examples: a third in `make check`).
settings.register_profile("relkit", max_examples=examples(100))
settings.load_profile("relkit")

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


# pytest-xdist (`make test`: -n N --dist loadgroup): the tests that need one costly
# thing per process run in one worker, by fixture: the Spark session (a JVM each) and
# the wheel test's build. tests/test_worker_safety.py checks every user is grouped.
XDIST_GROUPS = {"spark": "spark", "dist": "wheel"}


@pytest.hookimpl(tryfirst=True)   # before xdist's own hook reads the groups
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        for fixture, group in XDIST_GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()):
                item.add_marker(pytest.mark.xdist_group(group))


def pytest_sessionfinish(session: pytest.Session) -> None:
    """A pytest-xdist worker sends its part of the CLI battery's tally to the controller
    (which runs no tests, and prints the summary below)."""
    battery = sys.modules.get("battery")
    out = getattr(session.config, "workeroutput", None)
    if out is not None and battery is not None:
        out["battery"] = battery.state()


@pytest.hookimpl(optionalhook=True)   # pytest-xdist's hook: unknown without it
def pytest_testnodedown(node: object, error: object) -> None:
    got = getattr(node, "workeroutput", {}).get("battery")
    if got:
        import battery

        battery.merge(got)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """What the CLI battery covered (commands, readers, cases, escapes), when it ran:
    in this process, or in pytest-xdist's workers (merged by ``pytest_testnodedown``).

    With ``RELKIT_BATTERY_REPORT=FILE`` the counts and each escape also go to FILE (JSON).
    """
    battery = sys.modules.get("battery")
    if battery is None or not battery.TALLY:
        return
    for line in battery.summary():
        terminalreporter.write_line(line)
    if os.environ.get("RELKIT_BATTERY_REPORT"):
        battery.json_dump(Path(os.environ["RELKIT_BATTERY_REPORT"]))
