"""What the judging screen says after a save, and which keys may judge (Pilot, SQLite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.judge import JudgeScreen
from tui_helpers import Clock, drive, read_and_press, screen


def project(tmp_path: Path, n: int = 3) -> Store:
    store = Store.open(tmp_path / "s.db")
    docs = [Document(f"d{i}", f"Title {i}", f"Text {i}.") for i in range(n)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


def state(s: JudgeScreen) -> str:
    return str(s.query_one("#state").render())


def test_state_line_after_the_last_unjudged_document(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "l")  # d0 put off: it comes round last
        assert "saved: judge later, d0" in state(s) and "Not judged yet" in state(s)
        await read_and_press(pilot, clock, "1", "3")  # d1, d2
        assert s.item is not None and s.item.doc == "d0" and "judge later" in state(s)
        await read_and_press(pilot, clock, "2")  # the last unjudged: nothing to move on to
        assert s.item.doc == "d0" and s.complete
        line = state(s)
        assert "saved: 2 Highly relevant, d0" in line and "Your grade: 2 Highly relevant" in line
        assert "later" not in line and "Topic complete: 3 of 3" in line
        assert s.query_one("#state").region.height >= 2  # wrapped at 80 columns, not cut

    drive(store, steps)


def test_state_line_after_regrading_from_the_revise_list(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "3", "3", "3", "r")  # all judged; revise list
        await pilot.press("enter")  # d0
        await pilot.pause()
        assert s.item is not None and s.item.doc == "d0" and "Your grade: 3" in state(s)
        await read_and_press(pilot, clock, "0")
        line = state(s)
        assert "saved: 0 Irrelevant, d0" in line and "Your grade: 0 Irrelevant" in line
        assert "Your grade: 3" not in line

    drive(store, steps)
    assert [j.grade for j in store.assessor("ann").history("1", "d0")] == [3, 0]


def test_keys_typed_ahead_never_judge_an_unseen_document(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        clock.t += 5
        await pilot.press("2", "3")  # sent together: the 3 arrives before d1 was seen
        assert s.item is not None and s.item.doc == "d1" and s.item.status is None
        banner = str(s.query_one("#banner").render())
        assert "Key 3 ignored" in banner and "d1" in banner
        clock.t += 0.1  # on screen 100 ms: still too short
        await pilot.press("3")
        assert s.item.doc == "d1"
        clock.t += 0.95  # 1,050 ms now (the default --min-view is 1,000 ms)
        await pilot.press("3")
        assert s.item.doc == "d2"
        assert str(s.query_one("#banner").render()) == ""

    drive(store, steps)
    got = [(j.doc, j.grade, j.dwell_ms) for j in store.assessor("ann").judgments("1")]
    assert got == [("d0", 2, 5000), ("d1", 3, 1050)]


def test_a_double_tap_does_not_grade_the_next_document(tmp_path: Path) -> None:
    """Issue 33: with --min-view at 200 ms, taps 210-300 ms apart graded the next document
    9 times in 38 trials. The default is now 1,000 ms (docs/judging.md says why): a
    second tap that soon is dropped with a note, however the two keys are spaced."""
    import inspect

    from relkit.judging.tui.app import Settings
    from relkit.judging.tui.cli import judge

    assert Settings().min_view == 1.0
    assert inspect.signature(judge).parameters["min_view"].default.default == 1000
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        for gap in (0.21, 0.3, 0.5, 0.99):  # the second tap, after the next document's paint
            doc = s.item.doc if s.item else ""
            clock.t += 5
            await pilot.press("2")  # the first tap grades what was read ...
            await pilot.pause()
            assert s.item is not None and s.item.doc != doc
            nxt = s.item.doc
            clock.t += gap
            await pilot.press("2")  # ... the second is dropped: its document was not read
            await pilot.pause()
            assert s.item.doc == nxt and s.item.status is None, gap
            assert f"Key 2 ignored: {nxt} was on screen for" in str(
                s.query_one("#banner").render())
            await pilot.press("b")  # back to the one graded, for the next round
            await pilot.pause()

    drive(store, steps, min_view=Settings().min_view)
    assert [j.doc for j in store.assessor("ann").judgments("1")] == ["d0"]


def test_minimum_time_on_screen_is_configurable(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.press("2", "3", "s")
        await pilot.pause()
        await pilot.press("enter")  # the skip dialog: no reason
        await pilot.pause()

    drive(store, steps, min_view=0.0)
    got = [(j.doc, j.grade, j.status) for j in store.assessor("ann").judgments("1")]
    assert got == [("d0", 2, "judged"), ("d1", 3, "judged"), ("d2", None, "skipped")]


def test_undo_brings_back_the_document_just_saved(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "z")
        assert "Nothing to undo" in str(s.query_one("#banner").render())
        await read_and_press(pilot, clock, "2", "1")  # d0 -> 2, d1 -> 1 (a slip)
        assert s.item is not None and s.item.doc == "d2"
        await read_and_press(pilot, clock, "z")
        assert s.item.doc == "d1" and "Your grade: 1 Related" in state(s)
        assert "Back to d1" in str(s.query_one("#banner").render())
        await read_and_press(pilot, clock, "3")  # corrected; on to the next unjudged
        assert s.item.doc == "d2" and "saved: 3 Perfectly relevant, d1" in state(s)

    drive(store, steps)
    assert [j.grade for j in store.assessor("ann").history("1", "d1")] == [1, 3]


def test_a_document_already_read_is_not_held_to_min_view_again(tmp_path: Path) -> None:
    """Review of issue 33: every show() restarted the document's time on screen, so a
    grade on a document already read was dropped: a wrong grade, z, the right grade
    500 ms later; a grade 300 ms after its flag was saved; one from the revise list."""
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "1")            # d0: a slip ...
        await read_and_press(pilot, clock, "z", seconds=0.3)
        assert s.item is not None and s.item.doc == "d0"
        await read_and_press(pilot, clock, "3", seconds=0.5)   # ... corrected at once
        assert s.item.doc == "d1" and "saved: 3 Perfectly relevant, d0" in state(s)
        await read_and_press(pilot, clock, "b", "f", seconds=0.3)  # d0 again, flagged
        assert s.item.doc == "d0" and "flagged" in state(s)
        await read_and_press(pilot, clock, "2", seconds=0.3)   # graded right after
        assert s.item.doc == "d1" and "saved: 2 Highly relevant, flagged, d0" in state(s)
        await read_and_press(pilot, clock, "r", "enter", seconds=0.3)   # revise list: d0
        assert s.item.doc == "d0"
        await read_and_press(pilot, clock, "0", seconds=0.3)
        assert "saved: 0 Irrelevant, flagged, d0" in state(s)
        # a document not read yet is still held to min_view
        await read_and_press(pilot, clock, "2", seconds=0.3)
        assert "Key 2 ignored" in str(s.query_one("#banner").render())

    drive(store, steps, min_view=1.0)
    assert [j.grade for j in store.assessor("ann").history("1", "d0")] == [1, 3, 3, 2, 0]
