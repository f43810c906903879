"""The judging app started from the light reader's first screen (`relkit judge` on SQLite):
the same topic list as from the store, Enter before the store is open on a topic the light
view cannot read waits for it with a note, and judging then goes as always."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from textual.widgets import OptionList, Static

from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp, Settings, make_app
from relkit.judging.tui.judge import JudgeScreen
from relkit.judging.tui.lightview import LightView
from relkit.judging.tui.start import StoreLoader, first_screen
from relkit.judging.tui.topics import TopicsScreen
from store_helpers import make_project
from tui_helpers import Clock, read_and_press


def topic_screen_text(app: JudgeApp) -> tuple[list[str], str]:
    assert isinstance(app.screen, TopicsScreen)
    ol = app.screen.query_one(OptionList)
    lines = [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]
    return lines, str(app.screen.query_one("#summary", Static).render())


def run(app: JudgeApp, steps: Any) -> None:
    async def main() -> None:
        async with app.run_test(size=(100, 24)) as pilot:
            await pilot.pause()
            await steps(pilot)

    asyncio.run(main())



def _opened_when(go: threading.Event, db: Path) -> Callable[[], tuple[Store, Any]]:
    """The loader's opening of the store, held until the test sets ``go``."""
    def open_store() -> tuple[Store, Any]:
        assert go.wait(120), "the test never let the store open"
        s = Store.open(db, create=False)
        return s, s.assessor("ann")
    return open_store

def test_the_light_start_draws_what_the_store_start_draws_and_judges(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db), overlap=0.5)
    view = store.assessor("ann")
    t = view.topics()[0]
    view.record(topic=t.key, doc=view.items(t.key)[0].doc, grade=2)
    view.record(topic=t.key, doc=view.items(t.key)[1].doc, status="skipped")
    clock = Clock()
    settings = Settings(keymap_path=None, idle_after=30.0, clock=clock)
    seen: dict[str, Any] = {}

    async def look(pilot: Any, key: str, app: JudgeApp) -> None:
        seen[key] = topic_screen_text(app)

    store_app = make_app(store, "ann", settings)
    run(store_app, lambda pilot: look(pilot, "store", store_app))

    # The store opens only when the test lets it: Enter comes first.
    first = first_screen(str(db), "ann")
    assert first is not None
    go = threading.Event()

    loader = StoreLoader(first, _opened_when(go, db))
    light_app = make_app(loader, "ann", settings)
    # A topic the light view cannot read (an adaptive pool's, the pairs mode's) waits for
    # the store; a static pool's opens at once (tests/test_light_first_doc.py).
    monkeypatch.setattr(LightView, "open", classmethod(lambda cls, loader, topic: None))

    async def steps(pilot: Any) -> None:
        await look(pilot, "light", light_app)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(light_app.screen, TopicsScreen)  # waiting, and saying so
        assert any("Opening the judging database" in str(n.message)
                   for n in light_app._notifications)
        go.set()
        for _ in range(600):  # up to 30 s: a loaded machine opens the store slowly
            await pilot.pause(0.05)
            # drawn, not only chosen: a grade key waits for the frame that draws it
            if isinstance(light_app.screen, JudgeScreen) and light_app.screen.item \
                    and light_app.screen.drawn_at is not None:
                break
        assert isinstance(light_app.screen, JudgeScreen)
        assert not light_app._notifications  # the note is gone with the wait
        item = light_app.screen.item
        assert item is not None
        await read_and_press(pilot, clock, "1")
        seen["judged"] = item.doc

    run(light_app, steps)
    assert seen["light"] == seen["store"]
    assert [j.grade for j in light_app.view.judgments()
            if j.doc == seen["judged"]] == [1]
    light_app.store.close()
    store.close()


def test_a_store_that_fails_to_open_ends_the_app(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    first = first_screen(str(db), "ann")
    assert first is not None

    def open_store() -> tuple[Store, Any]:
        raise OSError("gone")

    loader = StoreLoader(first, open_store)
    app = make_app(loader, "ann", Settings(keymap_path=None))

    async def steps(pilot: Any) -> None:
        await pilot.press("enter")
        for _ in range(600):  # up to 30 s: a loaded machine opens the store slowly
            await pilot.pause(0.05)
            if not app.is_running:
                break

    run(app, steps)
    assert app.return_code == 1
    assert isinstance(loader.error, OSError)


def test_the_topic_list_is_read_once_at_start(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """The list shown first is the one read before the app started: the screen's first
    resume (right after its mount) read it all again (a second light read, 13 ms of the
    first frame on 100,000 items); coming back to the list still reads it afresh."""
    import relkit.judging.tui.start as start

    db = tmp_path / "p.db"
    make_project(str(db)).close()
    first = first_screen(str(db), "ann")
    assert first is not None
    reads: list[str] = []
    real = start.first_screen
    monkeypatch.setattr(start, "first_screen", lambda *a: reads.append("light") or real(*a))
    go = threading.Event()

    loader = StoreLoader(first, _opened_when(go, db))
    app = make_app(loader, "ann", Settings(keymap_path=None))

    async def steps(pilot: Any) -> None:
        await pilot.pause()
        assert isinstance(app.screen, TopicsScreen)
        assert reads == []
        await pilot.press("question_mark")  # the help screen, and back: read again
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, TopicsScreen)
        assert reads == ["light"]
        go.set()

    run(app, steps)
    loader.get()[0].close()


@pytest.mark.parametrize("light", [True, False])
def test_a_topic_named_at_start_opens_at_once_and_escape_shows_the_list(
        tmp_path: Path, light: bool) -> None:
    """`relkit judge --topic KEY` (resuming): the topic's next document is the first
    screen, on the light view before the store is open as from the store; the topic list
    is underneath, read afresh when the assessor goes back to it."""
    db = tmp_path / "p.db"
    store = make_project(str(db))
    view = store.assessor("ann")
    t = view.topics()[0]
    first_doc = view.items(t.key)[0]
    view.record(topic=t.key, doc=first_doc.doc, grade=1)  # resumed: the next one is shown
    expected = view.next_item(t.key)
    assert expected is not None and expected.doc != first_doc.doc
    settings = Settings(keymap_path=None, topic=t.key)
    go = threading.Event()
    if light:
        first = first_screen(str(db), "ann")
        assert first is not None

        def open_store() -> tuple[Store, Any]:
            assert go.wait(120), "the test never let the store open"
            s = Store.open(db, create=False)
            return s, s.assessor("ann")

        app = make_app(StoreLoader(first, open_store), "ann", settings)
    else:
        app = make_app(store, "ann", settings)

    async def steps(pilot: Any) -> None:
        await pilot.pause()
        s = app.screen
        assert isinstance(s, JudgeScreen) and s.item is not None
        assert (s.topic.key, s.item.doc) == (t.key, expected.doc)
        assert isinstance(s.view, LightView) == light
        go.set()
        await pilot.press("escape")
        await pilot.pause()
        lines, summary = topic_screen_text(app)
        assert len(lines) == len(view.topics()) and "1 / " in summary

    run(app, steps)
    if light:
        app.store.close()
    store.close()
