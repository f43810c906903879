"""The pairs mode of the judging screen (`relkit judge --pairs`, issue 38), driven by
Textual's Pilot: answers committed before the next pair, flags, notes, undo, the layout
at 80 and 130 columns, seeded sides, an outage on a real PostgreSQL server, and
snapshots of both layouts."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.pairorder import pair_order, to_answers
from relkit.judging.store.assign import Store
from relkit.judging.store.preferences import PreferenceView
from relkit.judging.tui.app import JudgeApp, Settings, make_app
from relkit.judging.tui.pairs import HELP, PairsScreen
from test_tui_outage import pg  # noqa: F401  (a project on PostgreSQL, outage(on))

TEXT = ("Monocrystalline solar panels convert about twenty percent of sunlight into "
        "electricity; this report compares panels installed in 2019 with newer models.")


def _project(url: str) -> Store:
    store = Store.open(url)
    docs = [Document(f"d{i}", f"Panel efficiency report {i}", f"{TEXT} ({i})")
            for i in range(4)]
    store.create_collection("pairs", TREC_DL, [
        Topic("1", "solar panel efficiency", "How efficient are home solar panels?",
              "Relevant documents give measured efficiency figures.")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"], seed=3)
    return store


def _app(store: Store) -> JudgeApp:
    return make_app(store, "ann", Settings(keymap_path=None, clock=lambda: 0.0, pairs=True))


def _drive(store: Store, steps: Callable[[Any, JudgeApp], Awaitable[None]],
           size: tuple[int, int] = (80, 24)) -> JudgeApp:
    app = _app(store)

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.press("enter")  # the topic list: open topic 1
            await pilot.pause()
            await steps(pilot, app)

    asyncio.run(main())
    return app


def _screen(app: JudgeApp) -> PairsScreen:
    assert isinstance(app.screen, PairsScreen), type(app.screen)
    return app.screen


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    s = _project(str(tmp_path / "pairs.db"))
    yield s
    s.close()


def test_a_key_commits_the_answer_before_the_next_pair(store: Store) -> None:
    seen: list[tuple[str, str] | None] = []

    async def steps(pilot: Any, app: JudgeApp) -> None:
        s = _screen(app)
        seen.append(s.pair)
        assert str(s.query_one("#keys").render()) == HELP  # the help line says the keys
        await pilot.press("f", "1")
        await pilot.pause()
        # Committed: read back through a separate view of the database.
        (saved,) = PreferenceView(store, "ann").answers("1")
        assert (saved.left, saved.right, saved.answer, saved.flagged) == (*seen[0], "left",
                                                                          True)
        seen.append(s.pair)
        assert s.pair != seen[0] and not s.flagged  # the flag went with that answer
        await pilot.press("2")
        await pilot.pause()
        seen.append(s.pair)

    _drive(store, steps)
    got = {(p.left, p.right): p.answer for p in PreferenceView(store, "ann").answers("1")}
    assert got == {seen[0]: "left", seen[1]: "right"}  # type: ignore[dict-item]


def test_the_pairs_come_in_the_seeded_order_with_seeded_sides(store: Store) -> None:
    view = PreferenceView(store, "ann")
    docs = view.documents("1")
    order = []
    nxt = pair_order("all-pairs", view.seed("1"), "1")  # the assignment's seed
    answered: dict[frozenset[str], tuple[str, str, str]] = {}
    while (pair := nxt.next_pair(docs, to_answers("1", answered))) is not None:
        order.append(pair)
        answered[frozenset(pair)] = (*pair, "equal")
    assert len(order) == 6 and len(answered) == 6  # every pair once
    assert any(a > b for a, b in order) and any(a < b for a, b in order)  # both sides
    assert order != sorted(order)
    shown: list[tuple[str, str] | None] = []

    async def steps(pilot: Any, app: JudgeApp) -> None:
        s = _screen(app)
        for key in "123012":
            shown.append(s.pair)
            await pilot.press(key)
            await pilot.pause()
        assert s.pair is None  # all answered
        assert "Every pair of this topic is answered" in str(s.query_one("#pair-state")
                                                             .render())

    _drive(store, steps)
    assert shown == order  # the screen asks exactly the default's pairs, in its order
    assert PreferenceView(store, "ann").progress("1") == (6, 6)


def test_note_flag_and_undo_keep_history(store: Store) -> None:
    async def steps(pilot: Any, app: JudgeApp) -> None:
        s = _screen(app)
        first = s.pair
        await pilot.press("n", *"same study", "enter")
        await pilot.pause()
        await pilot.press("3")
        await pilot.pause()
        await pilot.press("z")  # undo: the pair is asked again
        await pilot.pause()
        assert s.pair == first
        await pilot.press("0")
        await pilot.pause()

    _drive(store, steps)
    history = PreferenceView(store, "ann").history("1")
    assert [(h.answer, h.note, h.version) for h in history] == [
        ("equal", "same study", 1), (None, "", 2), ("neither", "", 3)]


@pytest.mark.parametrize(("size", "wide"), [((80, 24), False), ((130, 32), True)])
def test_side_by_side_from_120_columns(store: Store, size: tuple[int, int],
                                       wide: bool) -> None:
    async def steps(pilot: Any, app: JudgeApp) -> None:
        s = _screen(app)
        left, right = s.query_one("#left").region, s.query_one("#right").region
        assert s.query_one("#pair").has_class("wide") is wide
        if wide:
            assert left.y == right.y and left.right <= right.x
        else:
            assert left.x == right.x and left.bottom <= right.y
        await pilot.press("w")  # one document at a time
        await pilot.pause()
        assert s.query_one("#left").display and not s.query_one("#right").display
        await pilot.press("w")
        await pilot.pause()
        assert not s.query_one("#left").display and s.query_one("#right").display

    _drive(store, steps, size)


# -- snapshots (the graded screen's are in test_tui_snapshots.py) ---------------------------
_MADE_WITH = (Path(__file__).parent / "snapshots_textual_version.txt").read_text().strip()
_snapshots = pytest.mark.skipif(
    __import__("textual").__version__ != _MADE_WITH,
    reason=f"snapshots were made with Textual {_MADE_WITH}")


@_snapshots
@pytest.mark.parametrize("size", [(80, 24), (130, 32)])
def test_pairs_screen_snapshot(snap_compare: Any, tmp_path: Path,
                               size: tuple[int, int]) -> None:
    store = _project(str(tmp_path / "snap.db"))
    assert snap_compare(_app(store), press=["enter"], terminal_size=size)


# -- an outage of a real PostgreSQL server ------------------------------------------------


def test_an_answer_waits_through_an_outage_and_is_saved_after(
        pg: tuple[str, Callable[[bool], None]]) -> None:  # noqa: F811
    url, outage = pg
    store = Store.open(url)
    shown: list[Any] = []

    async def steps(pilot: Any, app: JudgeApp) -> None:
        s = _screen(app)
        shown.append(s.pair)
        outage(True)
        await pilot.press("1")
        await pilot.pause()
        banner = str(s.query_one("#pair-banner").render())
        assert banner.startswith("NOT saved yet: the database is unreachable")
        assert s.pair == shown[0]  # the screen stays on the pair
        assert app.pair_outbox.record is not None
        await pilot.press("2")  # refused while the first answer is on its way
        await pilot.pause()
        outage(False)
        s._send()  # what the retry timer does
        await pilot.pause()
        assert app.pair_outbox.record is None
        assert s.pair != shown[0]

    try:
        _drive(store, steps)
        (saved,) = PreferenceView(store, "ann").answers("1")
        assert ((saved.left, saved.right), saved.answer) == (shown[0], "left")
    finally:
        store.close()


def test_quitting_during_an_outage_prints_the_answer(
        pg: tuple[str, Callable[[bool], None]],  # noqa: F811
        capsys: pytest.CaptureFixture[str]) -> None:
    from relkit.judging.tui.cli import finish

    url, outage = pg
    store = Store.open(url)

    async def steps(pilot: Any, app: JudgeApp) -> None:
        outage(True)
        await pilot.press("0")
        await pilot.pause()

    try:
        app = _drive(store, steps)
        assert finish(app) == 1  # still away: printed in full, exit 1
        err = capsys.readouterr().err
        assert "NOT saved: ann's answer neither relevant for" in err
        outage(False)
        assert finish(app) == 0  # back: saved on the way out
        assert [p.answer for p in PreferenceView(store, "ann").answers("1")] == ["neither"]
    finally:
        store.close()
