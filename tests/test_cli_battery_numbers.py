"""Every numeric option at its boundaries, from its declared range (issue 32).

Each ``int``/``float`` option declares its range once (:func:`relkit.metrics.commands.numopt.Num`);
a test fails for one that does not, so a new option cannot escape. The battery reads the
declaration: just outside each end (``nextafter`` for a float, one past for an int), an
open end itself, NaN and the infinities must each be a usage error (exit 2, one line on
stderr naming the option, no traceback, the database untouched); 0, 1 and -1 when inside
the range are valid values, which may succeed or fail cleanly (exit 1 or 2, one line).
"""

from __future__ import annotations

import math
import shutil
from pathlib import Path
from typing import Any

import pytest

from battery import SKIP, Project, annotation, command, command_line, commands, digest, record, run
from relkit.metrics.commands.numopt import Range, declared_range


def numeric_options() -> list[tuple[tuple[str, ...], str]]:
    # Arguments (adjudicate's GRADE) are data: the scale decides, named in the message.
    return [(path, p.name) for path, cmd in commands() for p in cmd.params
            if p.param_type_name == "option" and annotation(p) in (int, float)]


def test_every_numeric_option_declares_its_range() -> None:
    missing = [f"{' '.join(path)} {name}" for path, name in numeric_options()
               if declared_range(next(p for p in command(path).params
                                      if p.name == name)) is None]
    assert not missing, f"declare a range with relkit.metrics.commands.numopt.Num: {missing}"


def boundaries(rng: Range, kind: type) -> list[tuple[str, bool]]:
    """(value, inside the range) pairs made from the declaration."""
    out: list[tuple[str, bool]] = []

    def past(end: float, down: bool) -> str:
        if kind is int:
            return str(int(end) - 1 if down else int(end) + 1)
        return repr(math.nextafter(end, -math.inf if down else math.inf))

    for end, is_open, down in ((rng.low, rng.open_low, True), (rng.high, rng.open_high, False)):
        if end is None:
            continue
        out.append((past(end, down), False))
        if is_open:
            out.append((str(int(end)) if kind is int else repr(end), False))
    out += [("nan", False), ("inf", False), ("-inf", False)]
    if kind is int:   # past a float's range: refused, not an OverflowError in the check
        out += [("9" * 400, False), ("-" + "9" * 400, False)]
    for v in ("0", "1", "-1"):
        if all(v != x for x, _ in out):
            out.append((v, int(v) in rng))
    return out


def cases() -> list[Any]:
    out = []
    for path, name in numeric_options():
        if path in SKIP or path[:1] in SKIP:
            continue
        param = next(p for p in command(path).params if p.name == name)
        rng = declared_range(param)
        if rng is None:
            continue
        for value, inside in boundaries(rng, annotation(param)):
            out.append(pytest.param(path, name, value, inside,
                                    id=f"{' '.join(path)} {param.opts[0]} "
                                       + (value if len(value) < 40 else f"{value[:3]}...")))
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project(tmp_path_factory.mktemp("battery-numbers"))


@pytest.mark.parametrize(("path", "name", "value", "inside"), cases())
def test_numeric_boundary(project: Project, tmp_path: Path, path: tuple[str, ...], name: str,
                          value: str, inside: bool) -> None:
    cmd = command(path)
    param = next(p for p in cmd.params if p.name == name)
    opt = next((o for o in param.opts if o.startswith("--")), param.opts[0])
    db = tmp_path / "p.db"
    if path != ("init",):
        shutil.copy(project.template, db)
    before = digest(db)
    token = f"{opt}={value}" if opt.startswith("--") else f"{opt}{value}"
    args = [*command_line(project, path, cmd, tmp_path, db), token]
    result = run(args, tmp_path)
    named = any(o in result.err for o in param.opts)
    if inside:
        clean = result.crash is None and (result.code == 0 or result.code in (1, 2)
                                          and result.one_line())
    else:
        clean = result.crash is None and result.code == 2 and result.one_line() and named \
            and digest(db) == before
    record("numeric options", f"{' '.join(path)} {opt} {value}", list(path), result, clean)
    assert result.crash is None, (args, result.crash)
    if inside:
        assert result.code == 0 or result.one_line(), (args, result.err)
        return
    assert result.code == 2, (args, result)
    assert result.one_line() and named, (args, result.err)
    assert digest(db) == before, (args, "changed the database")
