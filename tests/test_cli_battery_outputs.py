"""Paths that are not what a command needs, in every command: every file it writes is
checked before the work (an output path in a missing directory, or one naming a
directory, is one line naming the option as typed, and nothing else is written: no
table on stdout, no other output file, no database change); and a directory given for
a file it reads is called a directory.

A newcomer found `relkit compare -o t.txt --html /nonexist/x.html` writing its table and
then failing on the report, and `relkit eval -o DIR` giving the system's "Is a
directory" instead of the commands' own line. The battery walks every command's output
options (tests/battery.py: ``OUTPUTS``), so the next one added is covered.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from battery import OUTPUTS, SKIP, assert_closed, command_line, commands, digest, run
from test_cli_battery_files import (
    OUTPUT_FILES,
    Project,
    case_line,
    file_params,
    fresh_db,
    valid_values,
)

# (command, output option) pairs not fed a bad path, and why.
ELSEWHERE = {
    (("corpora", "fetch"), "dest"): "downloads over the network",
}


# What a command needs beyond its required parameters to write the output at all.
WITH = {("export", "prefs"): {"to": ["prefs"]}}
# ...and the files it needs with that option (the project's valid ones).
NEEDS = {(("pool-sample",), "prels"): ("qrels",)}


def params() -> list[Any]:
    out = []
    for path, cmd in commands():
        if path in SKIP:
            continue
        for p in cmd.params:
            written = p.name in OUTPUTS or (path, p.name) in OUTPUT_FILES
            if written and (path, p.name) not in ELSEWHERE:
                for kind in ("missing-directory", "a-directory"):
                    out.append(pytest.param(path, p.name, kind,
                                            id=f"{' '.join(path)} {p.opts[0]} {kind}"))
    return out


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project(tmp_path_factory.mktemp("battery-outputs"))


def files(root: Path) -> dict[str, int]:
    return {str(p.relative_to(root)): p.stat().st_size for p in root.rglob("*") if p.is_file()}


@pytest.mark.parametrize(("path", "name", "kind"), params())
def test_a_bad_output_path_is_refused_before_the_work(
        project: Project, tmp_path: Path, path: tuple[str, ...], name: str, kind: str) -> None:
    from battery import command

    cmd = command(path)
    param = next(p for p in cmd.params if p.name == name)
    (tmp_path / "a-dir").mkdir()
    bad = tmp_path / ("nowhere/out.txt" if kind == "missing-directory" else "a-dir")
    db = fresh_db(project, path, tmp_path)
    also = {k: [str(project.file_for(path, k))] for k in NEEDS.get((path, name), ())}
    args = command_line(project, path, cmd, tmp_path, db,
                        {**WITH.get(path, {}), **also, name: [str(bad)]})
    before, db_before = files(tmp_path), digest(db) if db.exists() else None
    result = run(args, tmp_path)
    assert_closed(db)
    assert result.crash is None, (args, result.crash)
    assert result.code in (1, 2), (args, result)
    assert result.one_line(), (args, result.err)
    assert any(f"{o} {bad}" in result.err for o in param.opts), (args, result.err)
    assert result.out == "", (args, "wrote to stdout before refusing", result.out[:200])
    after = {k: v for k, v in files(tmp_path).items() if not k.startswith("p.db")}
    assert after == {k: v for k, v in before.items() if not k.startswith("p.db")}, args
    if db_before is not None:
        assert digest(db) == db_before, (args, "changed the database")


# Inputs a directory is a valid value of (a collection's folder), so not refused as one.
FOLDERS = {(("corpora", "info"), "ref"), (("systems", "run"), "collection")}


def file_inputs() -> list[Any]:
    return [pytest.param(p, n, id=f"{' '.join(p)} {n}") for p, n in file_params()
            if (p, n) not in FOLDERS]


@pytest.mark.parametrize(("path", "name"), file_inputs())
def test_a_directory_given_as_an_input_file_is_called_a_directory(
        project: Project, tmp_path: Path, path: tuple[str, ...], name: str) -> None:
    """Not "no such file": a newcomer was told `pool`, `import judgments` and `agree`
    found no file where a directory stood (`eval` and `compare` said it right)."""
    values = valid_values(project, path, name)
    folder = tmp_path / "a-folder"
    folder.mkdir()
    db = fresh_db(project, path, tmp_path)
    args = case_line(project, path, name, [str(folder), *values[1:]], tmp_path, db)
    result = run(args, tmp_path)
    assert_closed(db)
    assert result.crash is None, (args, result.crash)
    assert result.code in (1, 2) and result.one_line(), (args, result)
    said = result.err.partition(str(folder))[2]   # (the test's own path says "directory")
    assert str(folder) in result.err and "directory" in said, (args, result.err)
