"""docs/tutorial.md runs as written: its marked blocks, in order, on the real Cranfield files.

Each fenced block whose info string is ``sh tutorial`` is one step. The steps run in
order, each in its own ``bash -euo pipefail``, in one fresh directory, with the
``relkit`` and ``python`` of the environment running the tests first on ``PATH`` and
``$CRANFIELD`` pointing at ``../shared/corpora/cranfield`` (the tutorial's first step
keeps a ``$CRANFIELD`` already set, so nothing is fetched). Every step must exit 0. A
``text output`` block right after a step is what the text claims the step prints: each
of its lines must appear, in that order, among the lines the step printed (stdout and
stderr; runs of blanks and tabs count as one space; other lines may come between, and
a ``...`` line says so to the reader; a line ending in `` ...`` matches a printed line
that starts with the rest, so a table may grow columns).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from helpers import ROOT, SHARED

TUTORIAL = ROOT / "docs" / "tutorial.md"
CRAN = SHARED / "corpora" / "cranfield"

@dataclass
class Step:
    line: int                     # where the block starts in the tutorial
    script: str
    expected: list[str] = field(default_factory=list)


def steps(text: str) -> list[Step]:
    """The ``sh tutorial`` blocks, each with the ``text output`` block that follows it."""
    out: list[Step] = []
    lines = text.splitlines()
    i = 0
    last_was_step = False
    while i < len(lines):
        m = re.match(r"^```(\S*)\s*(.*)$", lines[i])
        if not m:
            if lines[i].strip():
                last_was_step = False
            i += 1
            continue
        info = (m.group(1), m.group(2).strip())
        start = i
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i])
            i += 1
        i += 1
        if info == ("sh", "tutorial"):
            out.append(Step(start + 1, "\n".join(body) + "\n"))
            last_was_step = True
        elif info == ("text", "output"):
            assert last_was_step, f"tutorial.md:{start + 1}: an output block after no step"
            out[-1].expected = body
            last_was_step = False
        else:
            last_was_step = False
    return out


def squash(line: str) -> str:
    return " ".join(line.split())


def shows(printed: str, expected: list[str]) -> str | None:
    """None if ``expected`` appears in order in ``printed``; else the first line missing."""
    got = [squash(x) for x in printed.splitlines()]
    at = 0
    for want in map(squash, expected):
        if want in ("", "..."):
            continue
        # "... " at the end of a line: the printed line goes on (more columns).
        head = want[:-3].rstrip() if want.endswith(" ...") else None
        for j in range(at, len(got)):
            if got[j] == want or (head is not None and (got[j] + " ").startswith(head + " ")):
                at = j + 1
                break
        else:
            return want
    return None


def test_steps_are_found() -> None:
    found = steps(TUTORIAL.read_text())
    assert len(found) >= 8
    assert "${CRANFIELD:-" in found[0].script, "step 1 must keep a $CRANFIELD already set"
    assert all("relkit judge" not in s.script for s in found)  # a terminal screen


def env_for(tmp: Path) -> dict[str, str]:
    bin_dir = ROOT / ".venv" / "bin"
    if not (bin_dir / "relkit").exists():
        bin_dir = Path(sys.executable).parent
    env = {k: v for k, v in os.environ.items() if not k.startswith("RELKIT_")}
    env |= {"PATH": f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", "CRANFIELD": str(CRAN),
            "RELKIT_CACHE": str(tmp / "cache"), "NO_COLOR": "1", "COLUMNS": "100"}
    return env


@pytest.mark.slow
@pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")
def test_tutorial_runs_as_written(tmp_path: Path) -> None:
    env = env_for(tmp_path)
    work = tmp_path / "project"
    work.mkdir()
    for step in steps(TUTORIAL.read_text()):
        where = f"docs/tutorial.md:{step.line}"
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", step.script], cwd=work,
                              env=env, capture_output=True, text=True, timeout=600)
        printed = proc.stdout + proc.stderr
        assert proc.returncode == 0, f"{where} exited {proc.returncode}:\n{printed[-3000:]}"
        assert "Traceback" not in printed, f"{where}:\n{printed[-3000:]}"
        missing = shows(printed, step.expected)
        assert missing is None, (f"{where}: the tutorial shows {missing!r}, the step "
                                 f"printed:\n{printed[-3000:]}")
    for name in ("cran.qrels", "sim.svg", "cran.db", "ann.qrels", "qrels.txt", "report.html"):
        assert (work / name).is_file(), name
    assert (work / "agreement.html").is_file()


def test_output_matching() -> None:
    printed = "a  b\nheader\tx y z\nrow 1 2 3\nlast\n"
    assert shows(printed, ["header x ...", "row 1 ...", "last"]) is None
    assert shows(printed, ["a b", "...", "last"]) is None
    assert shows(printed, ["row 1 2 3", "header x y z"]) == "header x y z"  # order counts
    assert shows(printed, ["row 12 ..."]) == "row 12 ..."  # whole columns only
    assert shows(printed, ["row 1 2"]) == "row 1 2"  # without ..., the whole line
