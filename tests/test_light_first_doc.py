"""`relkit judge`'s first document drawn before the store is open (judging/tui/lightview.py).

What the light view reads with sqlite3 must be exactly what the store's view reads; a
grade key pressed while the store is still opening is saved through the store before
the screen moves on ("saving…" meanwhile); whatever the light view cannot read (an
adaptive pool) waits for the store as before.
"""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import Static

from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp, Settings, make_app
from relkit.judging.tui.judge import JudgeScreen
from relkit.judging.tui.lightview import LightView
from relkit.judging.tui.start import StoreLoader, first_screen
from relkit.judging.tui.topics import TopicsScreen
from store_helpers import make_project
from test_tui_light_start import run
from tui_helpers import Clock


def judge_some(store: Store, assessor: str, n: int = 6) -> None:
    """Judged, flagged, noted, skipped and put-off items on every topic (two put off, so
    their order counts), the last topic judged to the end."""
    view = store.assessor(assessor)
    topics = view.topics()
    for t in topics:
        items = view.items(t.key)
        if t is topics[-1] and len(topics) > 1:
            for item in items:
                view.record(topic=t.key, doc=item.doc, grade=1)
            continue
        for i, item in enumerate(items[:n]):
            if i == 3:
                view.record(topic=t.key, doc=item.doc, status="skipped", note="off topic")
            elif i in (1, 4):
                view.record(topic=t.key, doc=item.doc, status="later")
            else:
                view.record(topic=t.key, doc=item.doc, grade=i % 4, flagged=i == 2,
                            note="n" if i == 2 else "")


def never_open() -> tuple[Store, Any]:
    raise AssertionError("the light view opened the store")


def same_as_store(db: Path, assessor: str, positions: list[int] | None = None) -> None:
    first = first_screen(str(db), assessor)
    assert first is not None
    loader = StoreLoader(first, never_open)  # never started: the store stays closed
    store = Store.open(db, readonly=True)
    try:
        real = store.assessor(assessor)
        for t in real.topics():
            light = LightView.open(loader, t.key)
            assert light is not None
            where = positions if positions is not None else list(range(0, t.total + 2))
            # the screen's first reads (from the opening snapshot), then the same again
            for _ in range(2):
                assert light.next_item(t.key, 0) == real.next_item(t.key, 0)
                assert light.progress(t.key) == real.progress(t.key)
                assert light.skipped(t.key) == real.skipped(t.key)
                assert light.upcoming(t.key) == real.upcoming(t.key)
            for after in where:
                a, b = light.next_item(t.key, after), real.next_item(t.key, after)
                assert a == b
                if a is not None and b is not None:  # the same types, not only values
                    assert [type(v) for v in vars(a).values()] == \
                        [type(v) for v in vars(b).values()]
            for p in where:
                if 1 <= p <= t.total:
                    assert light.item(t.key, p) == real.item(t.key, p)
                else:
                    with pytest.raises(Exception) as light_error:
                        light.item(t.key, p)
                    with pytest.raises(Exception) as store_error:
                        real.item(t.key, p)
                    assert str(light_error.value) == str(store_error.value)
                    assert type(light_error.value) is type(store_error.value)
            light._reader.close()  # type: ignore[union-attr]
        assert not loader.ready
    finally:
        store.close()


def test_the_light_view_reads_what_the_store_reads(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db), overlap=0.5)
    judge_some(store, "ann")
    store.close()
    same_as_store(db, "ann")
    same_as_store(db, "bob")  # nothing judged


def test_the_shipped_sample_with_judgments(tmp_path: Path) -> None:
    from relkit.judging.demo import build

    db = tmp_path / "demo.db"
    build(str(db), 10, 0.3, 1)
    store = Store.open(db, create=False)
    judge_some(store, "bob", n=8)
    store.close()
    same_as_store(db, "ann", positions=[0, 1, 2, 5, 9, 10, 11])
    same_as_store(db, "bob", positions=[0, 1, 2, 3, 4, 5, 8, 9, 10, 11])


@pytest.mark.slow
def test_one_hundred_thousand_items(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        from tui_bench import build
    finally:
        sys.path.pop(0)
    db = tmp_path / "big.db"
    store = build(db, 100_000, 3)
    view = store.assessor("ann")
    for item in view.items("1")[:40]:
        status = {7: "skipped", 9: "later", 3: "later"}.get(item.position)
        if status:
            view.record(topic="1", doc=item.doc, status=status)
        else:
            view.record(topic="1", doc=item.doc, grade=item.position % 4)
    store.close()
    same_as_store(db, "ann", positions=[0, 1, 3, 39, 40, 41, 50_000, 99_999, 100_000, 100_001])


def adaptive_project(db: Path) -> None:
    """ann's topics on an adaptive pool (its picks are the strategy's)."""
    from test_adaptive_judging import project

    project(str(db), "mtf", assessors=("ann",))[0].close()


async def enter_to_first_document(pilot: Any, app: JudgeApp) -> JudgeScreen:
    """Enter on the topic list, then wait (by the clock, a loaded machine) until the
    judging screen has drawn its first document."""
    await pilot.press("enter")
    for _ in range(200):
        await pilot.pause(0.05)
        if isinstance(app.screen, JudgeScreen) and app.screen.drawn_at is not None:
            break
    screen = app.screen
    assert isinstance(screen, JudgeScreen)
    return screen


def judgments_in(db: Path) -> list[tuple[str, int | None, str]]:
    """What the database holds, read from outside the app."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return conn.execute("SELECT document.key, judgment.grade, judgment.status "
                            "FROM judgment JOIN document ON document.id = judgment.document_id"
                            " ORDER BY judgment.id").fetchall()
    finally:
        conn.close()


def held_loader(db: Path, assessor: str) -> tuple[StoreLoader, threading.Event]:
    """A loader whose store opens only when the test sets the event."""
    first = first_screen(str(db), assessor)
    assert first is not None
    go = threading.Event()

    def open_store() -> tuple[Store, Any]:
        assert go.wait(120), "the test never let the store open"
        s = Store.open(db, create=False)
        return s, s.assessor(assessor)

    return StoreLoader(first, open_store), go


def test_enter_at_once_draws_the_first_document_and_a_grade_waits_for_the_store(
        tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db))
    view = store.assessor("ann")
    t = view.topics()[0]
    judged = view.items(t.key)[0].doc
    view.record(topic=t.key, doc=judged, grade=2)
    first_doc = view.next_item(t.key)
    progress = view.progress(t.key)
    store.close()
    assert first_doc is not None
    loader, go = held_loader(db, "ann")
    clock = Clock()
    app = make_app(loader, "ann", Settings(keymap_path=None, idle_after=30.0, clock=clock))
    shown: list[tuple[str, list[Any]]] = []  # each document shown, and the database then

    async def steps(pilot: Any) -> None:
        screen = await enter_to_first_document(pilot, app)
        assert isinstance(screen, JudgeScreen)
        assert not loader.ready  # drawn without the store
        assert screen.item == first_doc
        assert str(screen.query_one("#progress", Static).render()).endswith(
            f"{progress[0]} judged ")
        assert "Not judged yet" in str(screen.query_one("#state", Static).render())
        real_show = screen.show

        def show(*args: Any, **kwargs: Any) -> None:
            real_show(*args, **kwargs)
            assert screen.item is not None
            shown.append((screen.item.doc, judgments_in(db)))

        screen.show = show  # type: ignore[method-assign]
        clock.t += 2  # read for two seconds
        # (Pilot's press returns once the key is handled: the handler waits for the commit.)
        press = asyncio.ensure_future(pilot.press("1"))
        for _ in range(200):
            await asyncio.sleep(0.05)
            if screen.pending is not None:
                break
        await asyncio.sleep(0.2)  # the banner drawn
        # The key waits for the store: not lost, the document stays, "saving…" said.
        assert screen.item == first_doc and not shown
        assert screen.pending is not None and screen.pending["grade"] == 1
        assert "saving… 1" in str(screen.query_one("#banner", Static).render())
        assert judgments_in(db) == [(judged, 2, "judged")]  # only what was there
        assert not press.done()
        go.set()
        await asyncio.wait_for(press, 60)  # a loaded machine opens the store slowly
        for _ in range(200):
            await pilot.pause(0.05)
            if shown:
                break
        assert shown, "the screen never moved on"
        assert screen.pending is None
        assert str(screen.query_one("#banner", Static).render()) == ""

    run(app, steps)
    # The next document was shown only once the grade was committed.
    doc, then = shown[0]
    assert doc != first_doc.doc
    assert (first_doc.doc, 1, "judged") in then
    assert [g for d, g, _ in judgments_in(db) if d == first_doc.doc] == [1]
    app.store.close()


def test_an_adaptive_topic_waits_for_the_store_as_before(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    adaptive_project(db)
    loader, go = held_loader(db, "ann")
    assert LightView.open(loader, loader.first.topics[0].key) is None
    app = make_app(loader, "ann", Settings(keymap_path=None))

    async def steps(pilot: Any) -> None:
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, TopicsScreen)  # waiting, and saying so
        assert any("Opening the judging database" in str(n.message)
                   for n in app._notifications)
        go.set()
        for _ in range(600):
            await pilot.pause(0.05)
            if isinstance(app.screen, JudgeScreen):
                break
        assert isinstance(app.screen, JudgeScreen)

    run(app, steps)
    app.store.close()


def test_the_first_document_imports_no_store(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    # `relkit judge` up to the first document, Enter pressed at once, the store never open.
    code = f"""
import asyncio, sys
from relkit.judging.tui.start import first_screen, StoreLoader
from relkit.judging.tui.app import Settings, make_app
first = first_screen({str(db)!r}, 'ann')
loader = StoreLoader(first, lambda: 1 / 0)
loader.start = lambda: None  # never started: the thread would import the store
app = make_app(loader, first.assessor, Settings(keymap_path=None))
async def main():
    async with app.run_test(size=(100, 24)) as pilot:
        await pilot.pause()
        await pilot.press('enter')
        for _ in range(200):
            await pilot.pause(0.05)
            if getattr(app.screen, 'drawn_at', None) is not None:
                break
        print(app.screen.item.doc)
        print(' '.join(sorted({{m.split('.')[0] for m in sys.modules}})))
asyncio.run(main())
"""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, timeout=120).stdout.splitlines()
    assert out[0]  # the first document's id
    assert not set(out[1].split()) & {"sqlalchemy", "sqlmodel", "pydantic", "alembic"}


def test_a_grade_waiting_for_a_store_that_cannot_open_is_kept_and_printed(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # The grade pressed while the store opens waits for it; when the store then fails to
    # open, the grade is no refusal of the database's: it stays in the outbox and the
    # command prints it in full (before, the outbox was cleared and only the store's
    # error was said, so the grade vanished without a "NOT saved" line).
    from relkit.judging.tui.cli import unsaved_at_open

    db = tmp_path / "p.db"
    make_project(str(db)).close()
    first = first_screen(str(db), "ann")
    assert first is not None
    go = threading.Event()

    def open_store() -> tuple[Store, Any]:
        assert go.wait(120), "the test never let the store open"
        raise OSError("disk gone")

    loader = StoreLoader(first, open_store)
    clock = Clock()
    app = make_app(loader, "ann", Settings(keymap_path=None, idle_after=30.0, clock=clock))

    async def steps(pilot: Any) -> None:
        screen = await enter_to_first_document(pilot, app)
        assert isinstance(screen, JudgeScreen) and screen.item is not None
        clock.t += 2
        press = asyncio.ensure_future(pilot.press("1"))
        for _ in range(200):
            await asyncio.sleep(0.05)
            if screen.pending is not None:
                break
        go.set()
        await asyncio.wait_for(press, 60)
        for _ in range(100):  # the app ends once the loader has failed
            await pilot.pause(0.05)
            if not app.is_running:
                break

    run(app, steps)
    assert loader.error is not None
    record = app.outbox.record
    assert record is not None and record["grade"] == 1
    unsaved_at_open(app, first)
    err = capsys.readouterr().err
    assert err.startswith("relkit: NOT saved: ann's 1 ") and f"document {record['doc']} " in err
    assert "could not be opened" in err and "comes round again" in err
    assert judgments_in(db) == []


def test_an_action_on_a_store_that_could_not_open_is_said_not_raised() -> None:
    # Revise, undo and history read the store itself; when it could not be opened after
    # the first document was drawn, the key says so on the banner (the app then ends)
    # instead of a traceback out of Textual's handler.
    from relkit.judging.store.errors import StoreNotOpen
    from relkit.judging.tui.outbox import reads_store

    class Screen:
        pending = None
        said: list[str] = []

        def _unsaved(self, then: str = "") -> None:
            self.said.append(then)

        def _banner(self, text: str, note: bool = False) -> None:
            self.said.append(text)

        @reads_store("revising")
        def action_revise(self) -> None:
            raise StoreNotOpen("the judging database could not be opened: disk gone")

    s = Screen()
    assert s.action_revise() is None
    assert s.said == ["Not possible: the judging database could not be opened: disk gone"]
