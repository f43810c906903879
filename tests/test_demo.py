"""The quick start (`relkit demo`, the README's first command) on the shipped sample."""

from __future__ import annotations

import asyncio
import shlex
import shutil
import subprocess
from pathlib import Path

from helpers import run_cli
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import Settings, make_app
from relkit.judging.tui.judge import JudgeScreen
from relkit.metrics.data import Run

SAMPLE = Path(__file__).resolve().parents[1] / "corpora" / "sample"


def test_demo_builds_the_project_and_resumes(tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")
    code, out, err = run_cli(["demo", "--db", db, "--no-judge"])
    assert code == 0, err
    assert out == ""  # data to stdout, diagnostics (here: all of it) to stderr
    assert "relkit agree --db" in err and "relkit export qrels" in err

    store = Store.open(db, create=False)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    assert [t.key for t in ann.topics()] == ["101", "102", "103", "104", "105", "106"]
    # The pool is the union of the four runs' top 10s; every pair is someone's, and
    # about half of them both assessors' (50% overlap).
    pooled = set()
    for path in sorted((SAMPLE / "runs").glob("*.txt")):
        frame = Run.read(path).frame
        top = frame.sort_values(["query_id", "score", "doc_id"], ascending=False)
        for _, rows in top.groupby("query_id"):
            pooled |= {(r.query_id, r.doc_id) for r in rows.head(10).itertuples()}
    mine = {(i.topic, i.doc) for t in ann.topics() for i in ann.items(t.key)}
    theirs = {(i.topic, i.doc) for t in bob.topics() for i in bob.items(t.key)}
    assert mine | theirs == pooled
    both = len(mine & theirs) / len(pooled)
    assert 0.35 <= both <= 0.65, both
    assert all(i.text for t in ann.topics() for i in ann.items(t.key))

    ann.record(topic="101", doc=ann.items("101")[0].doc, grade=2, status="judged")
    code, _, err = run_cli(["demo", "--db", db, "--no-judge"])
    assert code == 0 and "reopening" in err
    assert len(Store.open(db).assessor("ann").judgments()) == 1  # nothing rebuilt or lost


def test_demo_project_opens_in_the_judging_screen(tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")
    assert run_cli(["demo", "--db", db, "--no-judge"])[0] == 0
    store = Store.open(db, create=False)
    app = make_app(store, "ann", Settings(keymap_path=None))

    async def main() -> None:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.pause()
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, JudgeScreen) and screen.item is not None
            first = screen.item.doc
            await pilot.pause(1.1)  # a grade counts once the document was on screen 1 s
            await pilot.press("3")
            assert screen.item.doc != first

    asyncio.run(main())
    (j,) = store.assessor("ann").judgments()
    assert j.grade == 3 and j.topic == "101"


def _commands(err: str) -> list[str]:
    """The commands the demo suggests, as a user would paste them (comments dropped)."""
    return [ln.split("#")[0].strip() for ln in err.splitlines()
            if ln.startswith("  ") and not ln.strip().startswith("#")]


def _paste(cmd: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", "-c", cmd], cwd=cwd, capture_output=True, text=True,
                          timeout=300, stdin=subprocess.DEVNULL)


def test_demo_hints_paste_as_they_are_and_lead_to_real_numbers(tmp_path: Path) -> None:
    """The hints said `relkit ...` (not on the PATH) and led to all-unjudged qrels (0.0000)."""
    code, _, err = run_cli(["demo", "--db", "demo.db", "--no-judge"], cwd=tmp_path)
    assert code == 0, err
    commands = _commands(err)
    exe = shlex.split(commands[0])[0]
    assert all(shlex.split(c)[0] == exe for c in commands)
    # the program as typed exists (relkit only when the PATH has this very one)
    assert exe == "relkit" and shutil.which("relkit") or Path(exe).is_file()
    assert "Nothing is judged yet" in err
    (shipped,) = [c for c in commands if " eval " in c and "qrels.txt " in c
                  and "sample/qrels.txt" in c]
    ev = _paste(shipped, tmp_path)
    assert ev.returncode == 0, ev.stderr
    values = [float(ln.split("\t")[2]) for ln in ev.stdout.splitlines()
              if ln.startswith(("map", "ndcg_cut_10"))]
    assert len(values) == 8 and min(values) > 0                 # 4 runs x 2 measures
    assert ev.stderr == ""                                      # nothing scores 0 silently

    # Once something is judged the hints export it and evaluate on it.
    store = Store.open(str(tmp_path / "demo.db"), create=False)
    ann = store.assessor("ann")
    for item in ann.items("101")[:5]:
        ann.record(topic="101", doc=item.doc, grade=3)
    code, _, err = run_cli(["demo", "--db", "demo.db", "--no-judge"], cwd=tmp_path)
    commands = _commands(err)
    assert code == 0 and "your 5 judgments" in err
    for cmd in [c for c in commands if " export qrels " in c or " eval " in c]:
        done = _paste(cmd, tmp_path)
        assert done.returncode == 0, (cmd, done.stderr)
        if " eval " in cmd and "sample/qrels.txt" not in cmd:
            # topic 101 has judged relevant documents: the runs score on it, and the
            # five topics nobody judged are named, not averaged in silently
            assert any(float(ln.split("\t")[2]) > 0 for ln in done.stdout.splitlines()
                       if ln.startswith("map"))
            assert "5 topics of qrels.txt have no judged document" in done.stderr


def test_makefile_demo_installs_the_runtime_only(tmp_path: Path) -> None:
    """`make demo` installed the test tools too (and the editable-install banner)."""
    root = Path(__file__).resolve().parents[1]
    dry = subprocess.run(["make", "-n", "-B", "demo", f"VENV={tmp_path / 'v'}"], cwd=root,
                         capture_output=True, text=True, timeout=60)
    assert dry.returncode == 0, dry.stderr
    installs = [ln for ln in dry.stdout.splitlines() if " install " in ln]
    assert installs and not any("[test]" in ln or " -e " in ln for ln in installs), installs
    assert f"{tmp_path / 'v'}/bin/relkit demo" in dry.stdout
    dry = subprocess.run(["make", "-n", "-B", "setup", f"VENV={tmp_path / 'v'}"], cwd=root,
                         capture_output=True, text=True, timeout=60)
    assert "-e '.[test]'" in dry.stdout
