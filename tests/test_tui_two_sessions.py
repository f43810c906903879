"""Two judging screens of one person on one database (two browser tabs run this same
app; two terminals too): a save over a judgment the screen never showed is kept, as the
newest version, and said on the state line. Pilot, on SQLite and PostgreSQL."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any

import pytest

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp, Settings, make_app
from relkit.judging.tui.judge import JudgeScreen
from tui_helpers import Clock, read_and_press, screen

Steps = Callable[[Any, JudgeApp, Clock], Awaitable[None]]


def project(url: str, n: int = 4) -> Store:
    store = Store.open(url)
    docs = [Document(f"D10{i}", f"Title {i}", f"Text {i}.") for i in range(n)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


def state(s: JudgeScreen) -> str:
    return str(s.query_one("#state").render())


def two_tabs(url: str, first: Steps, second: Steps, draw_ahead: bool = False,
             size: tuple[int, int] = (80, 24)) -> None:
    """Run ``first`` in one app of ann's; it may ``await`` the ``second`` app (run in its
    own task, as a second tab or terminal is) through ``app.other()``."""

    def app_of() -> tuple[JudgeApp, Clock]:
        clock = Clock()
        return make_app(Store.open(url), "ann", Settings(
            keymap_path=None, idle_after=30.0, clock=clock, draw_ahead=draw_ahead)), clock

    async def run(steps: Steps) -> None:
        app, clock = app_of()
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await steps(pilot, app, clock)

    async def main() -> None:
        async def other() -> None:
            await asyncio.create_task(run(second))

        async def with_other(pilot: Any, app: JudgeApp, clock: Clock) -> None:
            app.other = other  # type: ignore[attr-defined]
            await first(pilot, app, clock)

        await asyncio.create_task(run(with_other))

    asyncio.run(main())


@pytest.mark.parametrize("draw_ahead", [False, True])
def test_the_second_tab_says_the_document_was_judged_meanwhile(db_url: str,
                                                               draw_ahead: bool) -> None:
    store = project(db_url)

    async def tab2(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        assert s.item is not None and s.item.doc == "D100"
        await read_and_press(pilot, clock, "1")  # saved at once, as always
        assert "saved: 1 Related, D100" in state(s) and "meanwhile" not in state(s)

    async def tab1(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        assert s.item is not None and s.item.doc == "D100" and "Not judged yet" in state(s)
        await app.other()  # type: ignore[attr-defined]  # meanwhile the other tab: 1
        await read_and_press(pilot, clock, "3")
        line = state(s)
        # The keystroke is saved, as the newest version, and the screen says what it
        # replaced, which it never showed.
        assert ("saved: 3 Perfectly relevant, D100 — it had been judged 1 Related in "
                "another session of yours (another tab or terminal) meanwhile; both are in "
                "its history") in " ".join(line.split()), line
        assert s.item is not None and s.item.doc == "D101"  # moved on after the commit
        # The next save on this screen is over what it showed: no notice.
        await read_and_press(pilot, clock, "2")
        assert "saved: 2 Highly relevant, D101" in state(s) and "meanwhile" not in state(s)

    two_tabs(db_url, tab1, tab2, draw_ahead)
    view = store.assessor("ann")
    assert [(h.grade, h.version) for h in view.history("1", "D100")] == [(1, 1), (3, 2)]
    assert {j.doc: (j.grade, j.version) for j in view.judgments("1")} == {
        "D100": (3, 2), "D101": (2, 1)}


def test_revising_a_grade_changed_in_another_tab_says_so(db_url: str) -> None:
    store = project(db_url)

    async def tab2(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.press("r")  # the revise list: D100 as judged 0
        await pilot.pause()
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        assert s.item is not None and s.item.doc == "D100"
        await read_and_press(pilot, clock, "s", "enter")  # skipped here

    async def tab1(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "0", "r")  # D100: 0; the revise list
        await pilot.press("enter")
        await pilot.pause()
        assert s.item is not None and s.item.doc == "D100" and "Your grade: 0" in state(s)
        await app.other()  # type: ignore[attr-defined]
        await read_and_press(pilot, clock, "2")
        line = " ".join(state(s).split())
        assert "saved: 2 Highly relevant, D100 — it had been skipped in another session" in line
        assert "both are in its history" in line

    two_tabs(db_url, tab1, tab2)
    view = store.assessor("ann")
    assert [(h.status, h.version) for h in view.history("1", "D100")] == [
        ("judged", 1), ("skipped", 2), ("judged", 3)]


def test_a_flag_over_another_tabs_grade_says_so(db_url: str) -> None:
    # The flag re-saves the grade the screen shows: over a grade it never showed, that
    # is said (the other grade stays in the history).
    store = project(db_url)
    view = store.assessor("ann")

    async def tab1(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "1", "b")  # D100: 1; back to it
        assert s.item is not None and s.item.version == 1
        view.record(source="tui", topic="1", doc="D100", grade=3)  # another terminal
        await pilot.press("f")
        await pilot.pause()
        line = " ".join(state(s).split())
        assert "saved: 1 Related, flagged, D100 — it had been judged 3 Perfectly" in line

    two_tabs(db_url, tab1, tab1)
    assert [h.grade for h in view.history("1", "D100")] == [1, 3, 1]


def test_a_retry_after_a_commit_whose_answer_was_lost_is_not_applied_twice(
        db_url: str) -> None:
    # The connection drops as the commit goes through: the screen cannot know it was
    # saved, keeps it pending and retries. The retry finds its own earlier try in the
    # database: saved once (one history row, the dwell counted once), said as saved,
    # not as another tab's.
    from sqlalchemy.exc import OperationalError

    store = project(db_url)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        real, tries = s.view.record, []

        def dropped_once(*args: Any, **kwargs: Any) -> Any:
            saved = real(*args, **kwargs)  # committed
            tries.append(saved.version)
            if len(tries) == 1:
                raise OperationalError("COMMIT", {}, Exception("server closed the connection"))
            return saved

        s.view.record = dropped_once  # type: ignore[method-assign]
        await read_and_press(pilot, clock, "2")
        assert s.pending is not None and "NOT saved yet" in str(s.query_one("#banner").render())
        await pilot.pause(1.3)  # the retry, a second later
        assert s.pending is None and tries == [1, 1]
        line = " ".join(state(s).split())
        assert "saved: 2 Highly relevant, D100" in line, line
        assert "another session of yours" not in line and "twice" not in line

    two_tabs(db_url, steps, steps)
    view = store.assessor("ann")
    assert [h.grade for h in view.history("1", "D100")] == [2]
    (j,) = [j for j in view.judgments("1") if j.doc == "D100"]
    assert j.version == 1 and j.dwell_ms == view.history("1", "D100")[0].dwell_ms


@pytest.mark.parametrize("size", [(80, 16), (88, 21)])
def test_the_notice_is_on_screen_on_a_short_screen(tmp_path: Any,
                                                   size: tuple[int, int]) -> None:
    """Below 24 rows the screen is compact (judging/tui/short.py): the state line
    still shows the whole notice, not its first row."""
    url = f"sqlite:///{tmp_path / 'short.db'}"
    project(url)
    seen: list[str] = []

    async def tab2(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await read_and_press(pilot, clock, "1")

    async def tab1(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await app.other()  # type: ignore[attr-defined]
        await read_and_press(pilot, clock, "3")
        await pilot.pause()
        seen.extend(strip.text for strip in app.screen._compositor.render_strips())

    two_tabs(url, tab1, tab2, size=size)
    text = " ".join(" ".join(seen).split())
    assert "saved: 3 Perfectly relevant, D100" in text, "\n".join(seen)
    assert "in another session of yours" in text and "both are in its history" in text, \
        "\n".join(seen)
