"""Thin commands: a command's body parses, calls one library function and prints.

Every command of the CLI (walked from :func:`relkit.judging.cli.full_app`, so a new one
is checked too) has a body of McCabe complexity at most :data:`BOUND`, as ruff's C901
counts it. The work goes in a library function, which tests and Python users call
without the CLI (``relkit judges``: 16 -> 3, its work in
``relkit.judging.agreement.judges_report``).

:data:`EXCEPTIONS` names the bodies above the bound when this check came (issue 34),
each at its complexity then: one may get simpler, never more complex, and one thinned
to the bound must leave the list (so the list only shrinks). Since the twelve listed then
were thinned, it is empty: every body is held to the bound.
"""

from __future__ import annotations

import inspect
import json
import re
import subprocess
import sys
from pathlib import Path

from battery import commands

BOUND = 10
EXCEPTIONS: dict[tuple[str, ...], int] = {}
TOO_COMPLEX = re.compile(r"`(?P<name>[^`]+)` is too complex \((?P<n>\d+) > 0\)")


def _ruff() -> str:
    return str(Path(sys.executable).with_name("ruff"))


def _bodies() -> dict[tuple[str, ...], tuple[str, str]]:
    """Each command's path -> (file, function name) of its body."""
    out = {}
    for path, cmd in commands():
        fn = inspect.unwrap(cmd.callback)
        out[path] = (str(Path(inspect.getsourcefile(fn) or "").resolve()), fn.__name__)
    return out


def _complexity(files: set[str]) -> dict[tuple[str, str], list[int]]:
    """(file, function name) -> ruff's McCabe complexity of each function so named."""
    done = subprocess.run(
        [_ruff(), "check", "--isolated", "--select", "C901", "--config",
         "lint.mccabe.max-complexity=0", "--output-format", "json", "--exit-zero",
         *sorted(files)], capture_output=True, text=True, check=True)
    out: dict[tuple[str, str], list[int]] = {}
    for d in json.loads(done.stdout):
        m = TOO_COMPLEX.fullmatch(d["message"])
        assert m is not None, d["message"]
        key = (str(Path(d["filename"]).resolve()), m["name"])
        out.setdefault(key, []).append(int(m["n"]))
    return out


def test_command_bodies_are_thin() -> None:
    bodies = _bodies()
    assert len(bodies) >= 40 and ("judges",) in bodies
    counted = _complexity({f for f, _ in bodies.values()})
    over, stale = [], []
    for path, body in sorted(bodies.items()):
        found = counted.get(body)
        assert found is not None and len(found) == 1, (path, body, found)
        n, allowed = found[0], EXCEPTIONS.get(path, BOUND)
        if n > allowed:
            over.append(f"relkit {' '.join(path)} ({body[1]}): {n} > {allowed}")
        elif path in EXCEPTIONS and n <= BOUND:
            stale.append(f"relkit {' '.join(path)} is thin now ({n}): leave EXCEPTIONS")
    assert not over, "thin these command bodies (parse, call a library function, print):\n" \
        + "\n".join(over)
    assert not stale, "\n".join(stale)
    assert set(EXCEPTIONS) <= set(bodies), set(EXCEPTIONS) - set(bodies)


def test_judges_is_thin() -> None:
    """16 before its work moved to the library; 3 with ruff 0.17 (a little room for
    another ruff's count)."""
    file, name = _bodies()[("judges",)]
    (n,) = _complexity({file})[(file, name)]
    assert n <= 5
