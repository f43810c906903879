"""Commands that write an HTML report show progress until the report is written.

Run under a pseudo-terminal (the bar draws only on a terminal), each command's last
bar update must come after the report file is written: its final label names the
file and the count is complete. Before, `compare --html` drew its last chart, then
spent seconds with no bar (the report's tables, the write, the exit), and `agree`
drew no bar at all. The order is checked, never a time (no timed assertions).
Which commands write HTML is read off the command registry, so a new one needs a case.
"""

from __future__ import annotations

import os
import pty
import re
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ab_helpers import click_log, write
from helpers import ROOT

SAMPLE = ROOT / "corpora" / "sample"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def _html_commands() -> set[str]:
    """Every command (group path) with an ``--html`` option or an html ``--format``."""
    import importlib

    import typer

    from relkit.judging.cli import COMMANDS

    found: set[str] = set()

    def walk(cmd: Any, path: str) -> None:  # typer's own click: groups have .commands
        if hasattr(cmd, "commands"):
            for name, sub in cmd.commands.items():
                walk(sub, f"{path} {name}")
            return
        for p in cmd.params:
            help_ = getattr(p, "help", "") or ""
            if "--html" in p.opts or ("--format" in p.opts and "html" in help_):
                found.add(path)

    for name, entry in COMMANDS.items():
        module, attr = entry.app.split(":")
        app = getattr(importlib.import_module(module), attr)
        cmd = typer.main.get_command(app)
        if hasattr(cmd, "commands") and not entry.group and len(cmd.commands) == 1:
            cmd = next(iter(cmd.commands.values()))  # a one-command app is the command
        walk(cmd, name)
    return found


def _compare(tmp: Path) -> tuple[list[str], Path]:
    out = tmp / "report.html"
    return (["compare", "--html", str(out), str(SAMPLE / "qrels.txt"),
             *map(str, sorted((SAMPLE / "runs").glob("*.txt")))], out)


def _agree(tmp: Path) -> tuple[list[str], Path]:
    # two assessors: the sample's qrels, and a copy with every third grade flipped
    lines = (SAMPLE / "qrels.txt").read_text().splitlines()
    flipped = [" ".join([*p[:3], str(int(p[3] == "0"))]) if i % 3 == 0 else " ".join(p)
               for i, p in enumerate(line.split() for line in lines)]
    (tmp / "ann.qrels").write_text("\n".join(lines) + "\n")
    (tmp / "bob.qrels").write_text("\n".join(flipped) + "\n")
    out = tmp / "agreement.html"
    return (["agree", str(tmp / "ann.qrels"), str(tmp / "bob.qrels"),
             "--replicates", "50", "--format", "html", "-o", str(out),
             "--runs", *map(str, sorted((SAMPLE / "runs").glob("*.txt")))], out)


def _ab(tmp: Path) -> tuple[list[str], Path]:
    log, assign = click_log(200, 3, effect=0.05)
    out = tmp / "ab.html"
    return (["ab", "analyze", str(write(log, tmp / "log.parquet")), "--assign",
             str(write(assign, tmp / "assign.csv")), "-o", str(tmp / "ab.tsv"),
             "--html", str(out)], out)


CASES: dict[str, Callable[[Path], tuple[list[str], Path]]] = {
    "compare": _compare, "agree": _agree, "ab analyze": _ab}


def test_every_command_writing_html_has_a_case() -> None:
    assert _html_commands() == set(CASES)


def _under_a_terminal(args: list[str], cwd: Path,
                      program: tuple[str, ...] = ("-m", "relkit")) -> tuple[int, str]:
    """Run ``relkit ARGS`` (or ``python PROGRAM ARGS``) with stderr on a pseudo-terminal;
    (exit code, what it drew)."""
    leader, follower = pty.openpty()
    env = {**os.environ, "COLUMNS": "400", "TERM": "xterm", "NO_COLOR": "1"}
    proc = subprocess.Popen([sys.executable, *program, *args], cwd=cwd, env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=follower)
    os.close(follower)
    drawn = b""
    try:
        while True:
            ready, _, _ = select.select([leader], [], [], 1.0)
            if ready:
                try:
                    chunk = os.read(leader, 65536)
                except OSError:   # EIO: the child closed its end
                    break
                if not chunk:
                    break
                drawn += chunk
            elif proc.poll() is not None:
                break
    finally:
        os.close(leader)
        code = proc.wait()
    return code, drawn.decode("utf-8", "replace")


@pytest.mark.slow
@pytest.mark.parametrize("command", sorted(CASES))
def test_the_last_bar_update_names_the_written_report(command: str, tmp_path: Path) -> None:
    args, report = CASES[command](tmp_path)
    code, drawn = _under_a_terminal(args, tmp_path)
    assert code == 0, drawn
    assert report.is_file()
    bars = [ANSI.sub("", s).strip() for s in re.split(r"[\r\n]", drawn)]
    bars = [s for s in bars if re.search(r"\d+/\d+ steps", s)]
    assert bars, drawn
    last = bars[-1]
    done, total = map(int, re.search(r"(\d+)/(\d+) steps", last).groups())  # type: ignore[union-attr]
    assert done == total and str(report) in last, last
    labels = {re.sub(r" [━╸╺ ]+.*$", "", s) for s in bars}
    assert len(labels) >= 4, labels    # the steps are named as they go


def test_every_label_is_drawn_however_quick_its_step(tmp_path: Path) -> None:
    """A renamed bar is drawn at once, not at rich's next timed refresh (10 a second):
    quick steps were never named on screen (the case above saw 3 of agree's names
    under load)."""
    script = tmp_path / "bar.py"
    script.write_text(
        "from relkit.metrics.core.progress import Bar\n"
        "with Bar('start', 5, unit='steps') as bar:\n"
        "    for i in range(1, 6):\n"
        "        bar.update(i, label=f'step-{i}-named')\n")
    code, text = _under_a_terminal([], tmp_path, program=(str(script),))
    assert code == 0
    assert [i for i in range(1, 6) if f"step-{i}-named" not in text] == [], text
