"""What a grade costs the screen: no layout of the whole screen, and "on screen" means
drawn (Pilot, SQLite). The speed itself is measured by bench/tui_bench.py, not here."""

from __future__ import annotations

import gc
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Static

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store import Store
from relkit.judging.tui.app import JudgeApp, Settings
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.quiet import set_text
from tui_helpers import Clock, drive, read_and_press, screen


def project(tmp_path: Path, n: int = 12, words: int = 40) -> Store:
    store = Store.open(tmp_path / "s.db")
    docs = [Document(f"d{i:02d}", f"Title {i}", " ".join(["solar panel"] * (words + i)))
            for i in range(n)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


@pytest.mark.parametrize("words", [40, 400])  # fits the pane / needs the scrollbar
def test_grading_lays_nothing_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                  words: int) -> None:
    # The position, the progress bar, the state line and the document change after a
    # grade, their sizes do not: every Static.update used to lay the screen out again
    # (and draw all of it), most of the time from the commit to the next document.
    layouts: list[str] = []
    real = Screen._refresh_layout

    def counted(self: Screen[Any], *args: Any, **kwargs: Any) -> None:
        layouts.append(type(self).__name__)
        real(self, *args, **kwargs)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "1", "2")  # the state line has its ack now
        monkeypatch.setattr(Screen, "_refresh_layout", counted)
        for key in "3120":
            before = s.item
            await read_and_press(pilot, clock, key)
            assert s.item is not before and f"saved: {key}" in str(s.query_one("#state").render())
        monkeypatch.setattr(Screen, "_refresh_layout", real)
        assert layouts == []
        assert s.query_one(DocView).plain.startswith(f"Title {int(s.item.doc[1:])}")

    drive(store=project(tmp_path, words=words), steps=steps, size=(100, 40))


def test_a_document_counts_as_seen_only_once_a_frame_drew_it(tmp_path: Path) -> None:
    # Without a layout, a refresh reaches the screen after the screen's own idle
    # callbacks may have run: the on-screen clock (and the next document's preparation)
    # start from the frame written with the document's lines in it.
    written: list[tuple[str | None, float | None]] = []

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        doc = s.query_one(DocView)
        display = app._display

        def watched(target: Any, renderable: Any) -> None:
            # What the frame holds, and whether the screen counted it as seen before.
            if renderable is not None and doc.wrapped is not None:
                written.append((doc.wrapped.key, s.drawn_at))
            display(target, renderable)

        app._display = watched  # type: ignore[method-assign]
        for key in "0123":
            written.clear()
            await read_and_press(pilot, clock, key)
            assert s.drawn_at is not None
            shown = s.item.doc if s.item else None
            frames = [seen for key_, seen in written if key_ == shown]
            assert frames and frames[0] is None  # not seen before its first frame

    drive(store=project(tmp_path), steps=steps, size=(100, 40))


def test_set_text_lays_out_only_when_the_size_can_change(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        state = s.query_one("#state", Static)
        position = s.query_one("#position", Static)
        asked: list[bool] = []
        for widget in (state, position):
            real = widget.refresh

            def refresh(*args: Any, _real: Any = real, **kwargs: Any) -> Any:
                asked.append(bool(kwargs.get("layout")))
                return _real(*args, **kwargs)

            widget.refresh = refresh  # type: ignore[method-assign]
        for widget, text, layout in (
                (state, "one row", [False]),
                (state, "one row", []),  # the same: not drawn again
                (state, "word " * 40, [True]),  # wraps at 100 columns: a new height
                (state, "two", [True]),  # and back to one row
                (position, " 10 / 12 ", [True]),  # wider than " 1 / 12 "
                (position, " 11 / 12 ", [False]),  # as wide
                (position, " 9 / 12 ", [True])):  # narrower
            asked.clear()
            set_text(widget, text)
            assert asked == layout, text
            await pilot.pause()
        assert str(state.render()) == "two" and "9 / 12" in str(position.render())

    drive(store=project(tmp_path), steps=steps, size=(100, 40))


def test_relkit_judge_freezes_the_heap_at_a_topic(tmp_path: Path) -> None:
    frozen: list[int] = []

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        before = gc.get_freeze_count()
        await pilot.press("enter")
        await pilot.pause()
        frozen.append(gc.get_freeze_count() - before)

    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    try:
        drive(project(tmp_path / "a"), steps, freeze_heap=True)
        # from an empty permanent generation: frozen objects freed later would lower
        # the count, and other tests' frozen objects are not this app's doing
        gc.unfreeze()
        drive(project(tmp_path / "b"), steps)
    finally:
        gc.unfreeze()
    assert frozen[0] > 0 and frozen[1] == 0
    assert Settings().freeze_heap is False


def test_the_revise_list_reads_no_document_text(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    # It used to read every item of the topic with its text (AssessorView.items) to keep
    # the judged ones: on a big topic, all the documents, for a list of titles.
    from relkit.judging.assessor import AssessorView

    store = project(tmp_path)
    view = store.assessor("ann")
    everything = view.items("1")

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await read_and_press(pilot, clock, "2", "l", "0")
        with monkeypatch.context() as m:
            m.setattr(AssessorView, "items", lambda *a: pytest.fail("read every item"))
            await read_and_press(pilot, clock, "r")
        listed = [str(o.prompt) for o in app.screen.query_one("#judged-list").options]
        assert [row.split(".")[0].strip() for row in listed] == ["1", "2", "3"]
        assert "judge later" in listed[1] and "2 Highly relevant" in listed[0]

    drive(store, steps, size=(100, 40))
    rows = view.judged("1")
    assert [(i.position, i.doc, i.grade, i.status, i.title) for i in rows] == [
        (i.position, i.doc, i.grade, i.status, i.title) for i in view.items("1")
        if i.status is not None]
    assert all(i.text == "" for i in rows) and len(everything) == 12


def test_the_revise_list_builds_only_the_rows_on_screen(tmp_path: Path,
                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    # Textual's OptionList visualised and measured every option when it was mounted
    # (and on each resize): opening the list of 2,000 judged documents took ~90 ms of
    # CPU and grew with the list. Only the rows that fit on screen are built now.
    import dataclasses

    from textual.widgets import OptionList

    from relkit.judging.assessor import AssessorView

    judged = AssessorView.judged

    def many(self: AssessorView, topic: str) -> list[Any]:
        one = judged(self, topic)[0]
        return [dataclasses.replace(one, position=p, doc=f"d{p}", title=f"title {p}")
                for p in range(1, 501)]

    built: list[object] = []
    get_visual = OptionList._get_visual

    def counted(self: OptionList, option: Any) -> Any:
        if self.id == "judged-list":
            built.append(option)
        return get_visual(self, option)

    monkeypatch.setattr(AssessorView, "judged", many)
    monkeypatch.setattr(OptionList, "_get_visual", counted)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await read_and_press(pilot, clock, "2", "r")
        ol = app.screen.query_one("#judged-list", OptionList)
        assert ol.option_count == 500 and ol.highlighted == 0
        assert 0 < len({id(o) for o in built}) <= 24  # 80x24: at most a screenful
        drawn = [ol.render_line(y).text for y in range(ol.scrollable_content_region.height)]
        assert "   1. d1  2 Highly relevant  title 1" in drawn[0]
        await pilot.press("end")
        await pilot.pause()
        drawn = [ol.render_line(y).text for y in range(ol.scrollable_content_region.height)]
        assert ol.highlighted == 499 and " 500. d500  2 Highly relevant" in drawn[-1]
        assert len({id(o) for o in built}) <= 48  # the first screenful and the last
        await pilot.press("pageup")
        await pilot.pause()
        assert ol.highlighted is not None and 470 < ol.highlighted < 499

    drive(project(tmp_path), steps, size=(80, 24))
