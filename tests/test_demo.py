"""The quick start (`relkit demo`, the README's first command) on the shipped sample."""

from __future__ import annotations

import asyncio
from pathlib import Path

from helpers import run_cli
from relkit.judging.store import Store
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
            await pilot.pause(0.3)  # a grade counts once the document was on screen 200 ms
            await pilot.press("3")
            assert screen.item.doc != first

    asyncio.run(main())
    (j,) = store.assessor("ann").judgments()
    assert j.grade == 3 and j.topic == "101"
