"""What a grade costs the screen: no layout of the whole screen, and "on screen" means
drawn (Pilot, SQLite). The speed itself is measured by bench/tui_bench.py, not here."""

from __future__ import annotations

import gc
import sys
from pathlib import Path
from typing import Any

import pytest
from textual.screen import Screen
from textual.widgets import Static

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp, Settings
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.heap import IDLE
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
        drive(project(tmp_path / "a"), steps, idle_gc=True)
        # from an empty permanent generation: frozen objects freed later would lower
        # the count, and other tests' frozen objects are not this app's doing
        gc.unfreeze()
        drive(project(tmp_path / "b"), steps)
    finally:
        gc.unfreeze()
    assert frozen[0] > 0 and frozen[1] == 0
    assert Settings().idle_gc is False


@pytest.mark.slow  # 125 keys and 3 idle passes: 18 s, the fast loop's longest test
def test_full_collections_wait_for_the_assessor_to_read(tmp_path: Path) -> None:
    # A full pass of the cycle collector (70-130 ms over Textual's line caches) used to
    # land on whichever key allocated when it came due: the slow modal opens of
    # bench/tui_bench.py each had one inside. With relkit judge's settings every full
    # pass is one the app runs once the next document is drawn, or after IDLE seconds
    # without input: never one CPython starts in the middle of a key.
    full: list[int] = []

    def seen(phase: str, info: dict[str, int]) -> None:
        if phase == "stop" and info["generation"] == 2:
            full.append(1)

    threshold = gc.get_threshold()

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        assert app.heap is not None
        before = app.heap.passes
        gc.callbacks.append(seen)
        try:
            for i in range(25):
                for key in ("r", "escape", "question_mark", "escape", str(i % 4)):
                    await pilot.press(key)
                    await pilot.pause()
                    clock.t += 0.1  # keys a tenth of a second apart: never idle
            assert len(full) == app.heap.passes - before > 0  # each after a document was drawn
            for _ in range(3):  # a modal read for a while
                await pilot.press("question_mark")
                await pilot.pause()
            gc.collect(1)  # a young pass, as CPython runs them: something to sweep
            assert gc.get_count()[2] > 0
            assert not app.heap.tick()  # a key just came
            clock.t += IDLE + 0.01  # the assessor reads the help
            assert app.heap.tick() and len(full) == app.heap.passes - before
            assert not app.heap.tick()  # nothing promoted since: no second pass
        finally:
            gc.callbacks.remove(seen)

    try:
        drive(project(tmp_path, n=80), steps, size=(100, 40), min_view=0.0, idle_gc=True)
    finally:
        gc.unfreeze()
    assert gc.get_threshold() == threshold  # given back when the app ends


@pytest.mark.private_api
@pytest.mark.slow  # 60 modals opened and closed: 12 s
def test_closed_modals_leave_nothing_alive(tmp_path: Path) -> None:
    # Every modal opened and closed used to leave ~2,000 objects alive for the rest of
    # the session: the footer's old keys (bound to the footer, Textualize/textual#6666)
    # and the last 1,024 widgets' styles caches with every line they drew (an lru_cache
    # keyed on the cache itself). The heap grew without end and each full pass of the
    # cycle collector walked it (judging/tui/leaks.py).
    from textual._styles_cache import StylesCache
    from textual.widgets._footer import FooterKey

    def alive() -> tuple[int, int]:
        gc.collect()
        objects = gc.get_objects()
        # by exact type: isinstance() raises on a dead weakref.proxy (other tests leave some)
        return (sum(type(o) is FooterKey for o in objects),
                sum(type(o) is StylesCache for o in objects))

    counts: list[tuple[int, int]] = []

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        for rounds in (2, 8):
            for _ in range(rounds):
                for key in ("question_mark", "escape", "r", "escape", "n", "escape"):
                    await pilot.press(key)
                    await pilot.pause()
            counts.append(alive())

    drive(project(tmp_path), steps, size=(100, 40))
    (keys2, caches2), (keys10, caches10) = counts
    assert keys10 <= keys2 + 14 and caches10 <= caches2 + 20, counts  # one modal's worth


@pytest.mark.private_api
def test_a_rowlist_builds_only_the_rows_on_screen() -> None:
    # The promise of judging/tui/rowlist.py: OptionList rendered every option when it was
    # mounted (the revise list of 2,000 judged documents took ~90 ms to open); a RowList
    # builds a row's label only once it scrolls into view, and keys still move through
    # all of them.
    import asyncio

    from textual.app import App, ComposeResult

    from relkit.judging.tui.rowlist import LazyOption, RowList

    made: set[int] = set()

    def maker(i: int) -> Any:
        return lambda: made.add(i) or f"row {i}"

    class Rows(App[None]):
        def compose(self) -> ComposeResult:
            yield RowList(*[LazyOption(maker(i), id=f"r{i}") for i in range(2000)])

    seen: list[set[int]] = []

    async def main() -> None:
        async with Rows().run_test(size=(40, 10)) as pilot:
            rows = pilot.app.query_one(RowList)
            rows.focus()
            await pilot.pause()
            seen.append(set(made))
            await pilot.press("end")
            await pilot.pause()
            seen.append(set(made))
            assert rows.highlighted == 1999 and rows.virtual_size.height == 2000

    asyncio.run(main())
    opened, ended = seen
    assert opened and opened <= set(range(10)), sorted(opened)   # the 10 rows on screen
    assert ended - opened <= set(range(1990, 2000)) and 1999 in ended, sorted(ended - opened)


def test_a_library_imported_mid_session_is_frozen_at_the_next_full_pass(
        monkeypatch: pytest.MonkeyPatch) -> None:
    # scikit-learn and SciPy come in at a cal topic's first document, after the start-up
    # freeze: unfrozen, their ~94,000 objects made every later full pass 110 ms instead
    # of 16 (bench/tui_bench.py --cal). The keeper freezes again after a pass that
    # follows such an import, and not after one that follows none.
    import types

    from relkit.judging.tui import heap

    keeper = heap.HeapKeeper(clock=lambda: 0.0)
    threshold = gc.get_threshold()
    try:
        keeper.start()
        gc.collect(1)
        assert keeper._collect(1)
        frozen = gc.get_freeze_count()
        junk = [[i] for i in range(1000)]  # tracked objects made after the freeze
        gc.collect(1)
        assert keeper._collect(1) and gc.get_freeze_count() <= frozen  # no import: none
        for i in range(heap.IMPORTS):  # a library's worth of modules
            monkeypatch.setitem(sys.modules, f"_relkit_fake_{i}", types.ModuleType("m"))
        gc.collect(1)
        assert keeper._collect(1)
        assert gc.get_freeze_count() >= frozen + len(junk)  # what is alive is frozen
    finally:
        keeper.stop()
        gc.unfreeze()
    assert gc.get_threshold() == threshold
