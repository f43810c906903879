"""The next document is drawn while the grade commits, and nothing moves on before the
commit: the state line says "saving", a failed save brings the graded document back
(Pilot, SQLite; the commit is observed from inside the thread that runs it)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.store.models import StoreError
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.judge import JudgeScreen
from tui_helpers import Clock, drive, read_and_press, screen


def project(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "a.db")
    docs = [Document(f"d{i}", f"Title {i}", f"Text {i}.") for i in range(4)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


def state(s: JudgeScreen) -> str:
    return str(s.query_one("#state").render())


def test_next_document_is_drawn_while_the_grade_commits(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[tuple[str, str, bool, str]] = []
    commit = JudgeScreen._commit

    def observed(self: JudgeScreen, *args: Any) -> Any:
        # While the commit runs: what is on screen, and is the grade still outstanding?
        assert self.item is not None
        seen.append((self.item.doc, state(self), self.pending is not None,
                     self.query_one(DocView).plain.splitlines()[0]))
        return commit(self, *args)

    monkeypatch.setattr(JudgeScreen, "_commit", observed)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        await read_and_press(pilot, clock, "2")
        (during,) = seen
        assert during[0] == "d1" and during[3] == "Title 1"  # drawn ahead ...
        assert "saving: 2 Highly relevant, d0" in during[1] and during[2]  # ... not saved yet
        assert s.item is not None and s.item.doc == "d1" and s.pending is None
        assert "saved: 2 Highly relevant, d0" in state(s) and "Not judged yet" in state(s)
        assert "1 judged" in str(s.query_one("#progress").render())
        # The document after d1 is wrapped again once the store is free: the next grade
        # draws it ahead too.
        assert s.ready is not None and s.ready.key == "d2"
        await read_and_press(pilot, clock, "1")
        assert seen[-1][0] == "d2" and s.item.doc == "d2"

    drive(project(tmp_path), steps, draw_ahead=True)
    (j0, j1) = Store.open(tmp_path / "a.db").assessor("ann").judgments("1")
    assert (j0.doc, j0.grade, j1.doc, j1.grade) == ("d0", 2, "d1", 1)


def test_a_failed_save_brings_the_graded_document_back(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    def refused(self: JudgeScreen, *args: Any) -> Any:
        raise StoreError("refused by the store")

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        monkeypatch.setattr(JudgeScreen, "_commit", refused)
        await read_and_press(pilot, clock, "2")
        assert s.item is not None and s.item.doc == "d0"  # back where the grade was given
        assert s.query_one(DocView).plain.startswith("Title 0")
        assert "Not saved: refused by the store" in str(s.query_one("#banner").render())
        assert "saving" not in state(s) and "Not judged yet" in state(s)
        assert s.pending is None
        monkeypatch.undo()
        await read_and_press(pilot, clock, "3")  # the store accepts it now
        assert s.item.doc == "d1" and "saved: 3 Perfectly relevant, d0" in state(s)

    drive(project(tmp_path), steps, draw_ahead=True)


def test_by_default_the_screen_moves_on_only_after_the_commit(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The house rule: a judgment is committed before the screen moves on (drawing ahead
    is opt-in, Settings.draw_ahead)."""
    seen: list[tuple[str, str]] = []
    commit = JudgeScreen._commit

    def observed(self: JudgeScreen, *args: Any) -> Any:
        assert self.item is not None
        seen.append((self.item.doc, self.query_one(DocView).plain.splitlines()[0]))
        return commit(self, *args)

    monkeypatch.setattr(JudgeScreen, "_commit", observed)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        await read_and_press(pilot, clock, "2")
        assert seen == [("d0", "Title 0")]  # still the graded document while committing
        assert s.item is not None and s.item.doc == "d1" and s.pending is None
        assert "saved: 2 Highly relevant, d0" in state(s)

    drive(project(tmp_path), steps)
