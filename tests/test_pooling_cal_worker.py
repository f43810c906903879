"""cal's training process (pooling/cal/worker.py): the plans made ahead come from a
separate process, and the order stays the library's; a slow or dead process never
loses or blocks a judgment (the key trains in this process and the log says so);
the process ends with the program, however the program ends. No timed assertions:
the waits below only wait (for the process to start or to end)."""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from relkit.judging.store.assign import Store
from relkit.pooling.cal import plan as cal_plan
from relkit.pooling.cal import worker
from test_pooling_cal_ahead import BUDGET, TOPICS, _drive, _grade, _project, _reference, needs


@pytest.fixture
def trainer(monkeypatch: pytest.MonkeyPatch) -> Iterator[worker.Worker]:
    """A training process of this test's own, started and ready; stopped after it."""
    w = worker.Worker()
    monkeypatch.setattr(worker, "_SHARED", [w])
    try:
        w.usable()
        assert w.ready.wait(300) and w.usable(), "the training process did not start"
        yield w
    finally:
        w.stop()


@pytest.fixture
def fits_here(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the fits made in this process (the key's or the fallback thread's)."""
    fit, n = cal_plan.fit_scores, [0]

    def counted(*a: object, **k: object) -> object:
        n[0] += 1
        return fit(*a, **k)

    monkeypatch.setattr(cal_plan, "fit_scores", counted)
    return n


@needs
def test_plans_from_the_training_process_give_the_librarys_order(
        trainer: worker.Worker, fits_here: list[int], monkeypatch: pytest.MonkeyPatch) -> None:
    expected = {t: _drive(t, ahead=False) for t in TOPICS}
    on_key = fits_here[0]
    fits_here[0] = 0
    monkeypatch.setattr(worker, "PATIENCE", 600.0)  # always wait: every plan is used
    for topic in TOPICS:
        assert _drive(topic, ahead=True) == expected[topic]
    assert trainer.served > 0
    # only each topic's first batch and the batch after its set-aside document train here
    assert fits_here[0] <= 2 * len(TOPICS) < on_key


@pytest.mark.slow
@needs
def test_the_store_with_a_training_process_keeps_the_order_across_restarts(
        tmp_path: Path, trainer: worker.Worker, fits_here: list[int]) -> None:
    db = _project(tmp_path, "ann")
    grade, shown = _grade("1"), []
    view = Store.open(db).assessor("ann")
    other = Store.open(db).assessor("ann")      # a second session of the same assessor
    for k in range(BUDGET):
        if k in (4, 8, 17):
            view = Store.open(db).assessor("ann")   # restart, plans in flight left behind
        session = other if k in (12, 13) else view
        item = session.next_item("1")
        assert item is not None
        shown.append(item.doc)
        session.record(topic="1", doc=item.doc, grade=grade(item.doc))
    assert shown == _reference("1")
    assert trainer.served > 0


def _judged(db: str) -> int:
    return len(Store.open(db).assessor("ann").judgments("1"))


@pytest.mark.slow
@needs
def test_a_dead_training_process_loses_no_judgment_and_changes_no_order(
        tmp_path: Path, db_url: str, trainer: worker.Worker,
        caplog: pytest.LogCaptureFixture) -> None:
    """Killed mid-session (SQLite and PostgreSQL): every grade is kept, the order is the
    library's, the key trains in this process from then on and the log says why."""
    db = _project(tmp_path, "ann") if "://" not in db_url else _pg_project(tmp_path, db_url)
    grade, shown = _grade("1"), []
    view = Store.open(db).assessor("ann")
    caplog.set_level(logging.WARNING, logger=worker.__name__)
    for k in range(BUDGET):
        if k == 7:
            assert trainer.pid is not None
            os.kill(trainer.pid, signal.SIGKILL)
        item = view.next_item("1")
        assert item is not None
        shown.append(item.doc)
        view.record(topic="1", doc=item.doc, grade=grade(item.doc))
    assert shown == _reference("1")
    assert _judged(db) == BUDGET
    assert trainer.state == "dead"
    assert "training in this process instead" in caplog.text


def _pg_project(tmp_path: Path, url: str) -> str:
    """The project of :func:`_project` in the PostgreSQL database ``url``."""
    from helpers import run_cli
    from test_pooling_cal_ahead import CORPORA

    cran = CORPORA / "cranfield"
    assert run_cli(["init", "--topics", str(cran / "cran.qry"), "--docs",
                    str(cran / "cran.all.1400"), "--scale", "cranfield", "--db", url])[0] == 0
    code, _, err = run_cli(["pool", *map(str, sorted((cran / "runs").glob("*/*.txt"))),
                            "--strategy", "cal", "--from", "collection", "--depth", "50",
                            "--budget", str(BUDGET), "--topic", "1", "--seed", "3",
                            "--db", url])
    assert code == 0, err
    assert run_cli(["assign", "ann", "--db", url])[0] == 0
    return url


@needs
def test_a_stalled_training_process_is_not_waited_for(
        trainer: worker.Worker, monkeypatch: pytest.MonkeyPatch,
        caplog: pytest.LogCaptureFixture) -> None:
    """Stopped (SIGSTOP): the key waits PATIENCE once, then trains the batch itself,
    and the stalled process is abandoned (killed), so no later batch waits for it too
    (before, every batch end queued behind the stalled plan and waited PATIENCE)."""
    expected = _drive("2", ahead=False)
    monkeypatch.setattr(worker, "PATIENCE", 0.05)
    caplog.set_level(logging.WARNING, logger=worker.__name__)
    pid = trainer.pid
    assert pid is not None
    os.kill(pid, signal.SIGSTOP)
    try:
        assert _drive("2", ahead=True) == expected
    finally:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGCONT)
    assert "trained in this process" in caplog.text
    assert caplog.text.count("took over") == 1, caplog.text   # waited once, not per batch
    assert trainer.state == "dead" and not trainer.usable()
    assert trainer._proc.wait(30) == -signal.SIGKILL


SCRIPT = textwrap.dedent("""
    import sys
    from relkit.pooling.adaptive import AdaptivePool
    from relkit.pooling.candidates import Candidates
    from relkit.pooling.cal import worker
    from relkit.pooling.cal.strategy import with_collection
    from relkit.pooling.cal.texts import TextSource

    words = ["wing flutter", "wing lift", "cats", "dogs", "birds sing", "boats"]
    docs = {f"d{i:02d}": words[i % len(words)] for i in range(30)}
    c = Candidates({"1": {"r": ["d00", "d01"]}}, {"1": {"r": [2.0, 1.0]}}, 2,
                   text=TextSource(docs, {"1": "wing"}))
    pool = AdaptivePool("cal", with_collection(c, docs), {"from": "collection"},
                        level=1, max_grade=1)
    pool.next("1")
    pool.ahead("1")                      # starts the training process, in the background:
    w = worker.shared()
    waited = w.ready.is_set()            # returned before the child imported scikit-learn
    assert w.ready.wait(300) and w.usable(), w.state
    pool.ahead("1")
    print(w.pid, waited, flush=True)
    if sys.argv[1] == "wait":
        sys.stdin.read()                 # until killed
""")


def _ended(pid: int) -> bool:
    """No such process, or a zombie (ended, not reaped yet by whoever adopted it)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] == "Z"
    except FileNotFoundError:
        return True


def _wait_ended(pid: int) -> bool:
    deadline = time.monotonic() + 120   # a bound on waiting, not a timing assertion
    while not _ended(pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _ended(pid)


@pytest.mark.slow  # a program started, killed and waited for: 5-6 s
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="reads /proc")
def test_the_training_process_ends_with_the_program(tmp_path: Path) -> None:
    script = tmp_path / "judge.py"
    script.write_text(SCRIPT)
    out = subprocess.run([sys.executable, str(script), "exit"], capture_output=True,
                         text=True, timeout=600, cwd=tmp_path)
    assert out.returncode == 0, out.stderr
    said, waited = out.stdout.split()
    assert waited == "False"             # the first document did not wait for the start
    pid = int(said)
    assert _ended(pid)                 # stopped and reaped before the program ended
    # killed (no atexit): the child reads the end of its pipe and ends
    with subprocess.Popen([sys.executable, str(script), "wait"], stdout=subprocess.PIPE,
                          stdin=subprocess.PIPE, text=True, cwd=tmp_path) as proc:
        assert proc.stdout is not None
        pid = int(proc.stdout.readline().split()[0])
        assert not _ended(pid)
        proc.kill()
        proc.wait()
    assert _wait_ended(pid)


@needs
def test_the_training_process_does_not_import_from_the_working_directory(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A ``sklearn.py`` where the assessor stands is not what the child imports (``python
    -c`` puts the working directory first on the path; the child runs with ``-P``)."""
    (tmp_path / "sklearn.py").write_text("raise SystemExit(3)\n")
    monkeypatch.chdir(tmp_path)
    w = worker.Worker()
    try:
        w.usable()
        assert w.ready.wait(300)
        assert w.state == "ready" and w.usable(), w.state
    finally:
        w.stop()
