"""What lets the suite run in parallel pytest-xdist workers (`make test`: -n N): no test
races another for a port, and the tests sharing one costly thing per process (a Spark
JVM, the wheel's build) run in one worker. Each check walks a registry (the test
sources, the collected tests), so the next racy resource is caught when it is added."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import battery
from conftest import XDIST_GROUPS

TESTS = Path(__file__).resolve().parent

# A port found free and released, to be used later: another worker can take it in between
# (ports.py says what to do instead). And a fixed port: two workers (or two checkouts) take
# the same one.
RACY = {
    "a port bound, then released and returned": re.compile(
        r"return\s+(?:int\()?\w+\.getsockname\(\)\[1\]"),
    "a free_port() helper": re.compile(r"def _?free_port\(|\b_?free_port\(\)"),
    "a fixed port given to --port": re.compile(
        r"""["']--port["'],\s*["']?[1-9]\d*|--port[ =][1-9]"""),
    # PostgreSQL's roles and databases are the server's, not the test's database's: a
    # count of them all moves when another worker's test makes or drops one
    "a count of the whole server's roles or databases": re.compile(
        r"count\(\*\) FROM pg_(?:roles|database|authid)\b(?!\s+WHERE)", re.IGNORECASE),
}


def test_no_test_takes_a_port_another_worker_could_take() -> None:
    found = []
    for path in sorted(TESTS.rglob("*.py")):
        if path.name == "test_worker_safety.py":
            continue
        for n, line in enumerate(path.read_text().splitlines(), 1):
            found += [f"{path.relative_to(TESTS)}:{n}: {what}: {line.strip()}"
                      for what, pattern in RACY.items() if pattern.search(line)]
    assert found == [], "\n".join(found)


def test_the_racy_patterns_are_recognised() -> None:
    """The registry above finds what it is meant to (a check that finds nothing proves
    nothing): the forms tests/ had before they were made worker-safe."""
    before = ['        return int(s.getsockname()[1])',
              '    port = free_port()', 'def _free_port() -> int:',
              '["serve", "--db", db, "--port", "18733", "--pairs"]',
              'relkit serve --port 8000 --db x',
              'roles = team.owner_scalar("SELECT count(*) FROM pg_roles")']
    for line in before:
        assert any(p.search(line) for p in RACY.values()), line
    for fine in ['"--port", "0"', 'yield int(held.getsockname()[1])',
                 '"--port", str(self.port or 0)',
                 '"SELECT count(*) FROM pg_roles WHERE starts_with(rolname, :p)"']:
        assert not any(p.search(fine) for p in RACY.values()), fine


# A test server's serve_forever polls for shutdown every 0.5 s by default, and
# shutdown() waits out the interval: half a second of every such test's teardown
# (30 teardowns, 14 worker-s of the fast loop before ports.POLL was given). Found in the
# syntax tree, not by line: `Thread(target=s.serve_forever)` with no args, or a call
# `s.serve_forever()` with no interval, wherever the parentheses break the lines.
def slow_shutdowns(source: str) -> list[int]:
    """Lines of ``source`` that serve forever at the default poll interval."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Attribute) and func.attr == "serve_forever":
            if not node.args and not node.keywords:
                found.append(node.lineno)
            continue
        kw = {k.arg: k.value for k in node.keywords}
        target = kw.get("target")
        if isinstance(target, ast.Attribute) and target.attr == "serve_forever":
            given = kw.get("args")
            if not (isinstance(given, (ast.Tuple, ast.List)) and given.elts):
                found.append(node.lineno)
    return found


def test_every_test_server_polls_for_shutdown_quickly() -> None:
    found = [f"{path.relative_to(TESTS)}:{n}"
             for path in sorted(TESTS.rglob("*.py")) if path.name != "test_worker_safety.py"
             for n in slow_shutdowns(path.read_text())]
    assert found == [], "give serve_forever ports.POLL: " + ", ".join(found)
    for slow in ["threading.Thread(target=server.serve_forever, daemon=True)",
                 "Thread(target=s.serve_forever)", "Thread(daemon=True, target=s.serve_forever)",
                 "Thread(target=s.serve_forever, args=())", "httpd.serve_forever()"]:
        assert slow_shutdowns(slow) == [1], slow
    for quick in ["Thread(target=httpd.serve_forever, args=(POLL,))",
                  "Thread(target=s.serve_forever,\n       args=(POLL,), daemon=True)",
                  "httpd.serve_forever(POLL)", "httpd.serve_forever(poll_interval=0.05)"]:
        assert slow_shutdowns(quick) == [], quick


def test_every_test_of_a_shared_fixture_is_in_its_worker_group(
        request: pytest.FixtureRequest) -> None:
    """Walks every collected test: one that uses the Spark session (or the wheel's
    build) outside its xdist group would start a second JVM (or build) in another
    worker."""
    items = request.session.items
    users = {fixture: 0 for fixture in XDIST_GROUPS}
    for item in items:
        for fixture, group in XDIST_GROUPS.items():
            if fixture in getattr(item, "fixturenames", ()):
                users[fixture] += 1
                groups = [m.args[0] if m.args else m.kwargs.get("name")
                          for m in item.iter_markers("xdist_group")]
                assert groups == [group], (item.nodeid, groups)
    # the whole suite: no files named on the command line (make check deselects -m slow)
    whole = request.config.args_source != pytest.Config.ArgsSource.ARGS \
        and not request.config.getoption("markexpr") and not request.config.getoption("keyword")
    if whole:    # the whole suite collected: each group has its tests
        assert all(users.values()), users


def test_a_workers_battery_tally_reaches_the_summary(monkeypatch: pytest.MonkeyPatch) -> None:
    """The controller runs no tests: what each worker's battery counted is merged
    (conftest.pytest_testnodedown) before the summary is printed."""
    from collections import Counter

    monkeypatch.setattr(battery, "TALLY", {"bad values": Counter(clean=3, escape=1)})
    monkeypatch.setattr(battery, "COVERED", {"bad values": {"eval", "agree"}})
    monkeypatch.setattr(battery, "ESCAPES", {"case-1": "exit 1: boom"})
    worker = battery.state()
    battery.merge({"tally": {"bad values": {"clean": 2}, "files": {"escape": 1}},
                   "commands": {"bad values": ["eval", "pool"], "files": ["eval"]},
                   "escapes": {"case-2": "Traceback"}})
    tally, covered, escapes = battery.TALLY, battery.COVERED, battery.ESCAPES
    assert tally == {"bad values": Counter(clean=5, escape=1), "files": Counter(escape=1)}
    assert covered == {"bad values": {"eval", "agree", "pool"}, "files": {"eval"}}
    assert escapes == {"case-1": "exit 1: boom", "case-2": "Traceback"}
    assert worker["tally"] == {"bad values": {"clean": 3, "escape": 1}}
