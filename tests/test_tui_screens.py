"""Finding your way and reading comfortably: progress that does not round up, the topic
list moving on, the document id, the reading width, the theme remembered, contrast
(Pilot, SQLite)."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich.color import Color as RichColor
from textual.geometry import Region
from textual.widgets import OptionList

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui import prefs
from relkit.judging.tui.app import JudgeApp, Settings, make_app
from relkit.judging.tui.docview import DocView
from tui_helpers import Clock, drive, read_and_press, screen


def project(tmp_path: Path, docs: int = 3, topics: int = 3) -> Store:
    store = Store.open(tmp_path / "t.db")
    body = "Wind turbine blades are long and light. " * 40
    store.create_collection("c", TREC_DL, [Topic(str(t), f"topic {t} wind blades",
                                                 "A description that wraps. " * 6)
                                           for t in range(1, topics + 1)],
                            [Document(f"d{i}", f"Title {i}", body) for i in range(docs)])
    store.import_pool([(str(t), f"d{i}") for t in range(1, topics + 1) for i in range(docs)],
                      name="p")
    store.assign(["ann"])
    return store


def test_a_bar_is_full_only_when_all_is_done(tmp_path: Path) -> None:
    from relkit.judging.tui.topics import bar

    assert bar(32, 33) != bar(33, 33) and "░" in bar(32, 33) and "░" not in bar(33, 33)
    assert bar(1, 33) == "░" * 12 and bar(0, 0) == "░" * 12
    store = project(tmp_path, docs=33, topics=1)
    view = store.assessor("ann")
    for i in range(32):
        view.record(topic="1", doc=f"d{i}", grade=1)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        ol = app.screen.query_one(OptionList)
        line = ol.get_option_at_index(0).prompt
        assert "32/33" in str(line) and "░" in str(line)  # the topic list
        await pilot.press("enter")
        await pilot.pause()
        progress = str(screen(app).query_one("#progress").render())
        assert "32 judged" in progress and "░" in progress  # the judging screen

    drive(store, steps)


def test_the_topic_list_moves_on_after_a_finished_topic(tmp_path: Path) -> None:
    store = project(tmp_path, docs=1)
    store.assessor("ann").record(topic="2", doc="d0", grade=1)  # topic 2: done already

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        ol = app.screen.query_one(OptionList)
        assert ol.highlighted == 0
        await pilot.press("enter")
        await pilot.pause()
        await read_and_press(pilot, clock, "2", "escape")  # topic 1 finished, back
        assert ol.highlighted == 2  # past 1 (finished) and 2 (finished before)
        line = str(ol.get_option_at_index(0).prompt)  # its line was made again ...
        assert "1/1" in line and "2:1" in line and "░" not in line
        assert "0/1" in str(ol.get_option_at_index(2).prompt)  # ... the others are as were
        await pilot.press("up", "up", "escape")  # a finished topic chosen by hand ...
        await pilot.press("enter")
        await pilot.pause()
        await read_and_press(pilot, clock, "escape")
        assert ol.highlighted == 2  # ... is left for the next one with work

    drive(store, steps)


def test_the_document_id_is_on_screen(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        doc = screen(app).query_one(DocView)
        assert doc.border_title == "d0"
        # Drawn in the pane's top border, where the terminal gets it.
        border = app.screen._compositor.render_strips()[doc.region.y]
        assert "─d0─" in "".join(seg.text for seg in border)
        await read_and_press(pilot, clock, "1")
        assert doc.border_title == "d1"

    drive(project(tmp_path), steps)


@pytest.mark.parametrize("width,expected", [(80, 76), (200, 100)])
def test_reading_width_is_capped_and_centred(tmp_path: Path, width: int, expected: int) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        doc = screen(app).query_one(DocView)
        assert max(len(r) for r in doc.rows) <= expected
        assert max(len(r) for r in doc.rows) >= expected - 12  # it does use the room
        strip = doc.render_line(2)  # a line of the body: centred in the pane
        text = "".join(seg.text for seg in strip)
        pane = doc.scrollable_content_region.width
        assert len(text) == pane
        left = len(text) - len(text.lstrip())
        assert left == (pane - expected) // 2

    drive(project(tmp_path), steps, size=(width, 50))


def test_reading_width_from_the_preferences(tmp_path: Path) -> None:
    path = tmp_path / "cfg" / "relkit" / "tui.toml"
    prefs.save(path, prefs.Prefs(), reading_width=60)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        assert max(len(r) for r in screen(app).query_one(DocView).rows) <= 60

    drive(project(tmp_path), steps, size=(200, 50), prefs_path=path)
    path.write_text("reading_width = -3\n")
    with pytest.raises(prefs.PrefsError, match=r"tui.toml: reading_width must be"):
        prefs.load(path)
    path.write_text("theme = [\n")
    with pytest.raises(prefs.PrefsError, match=r"tui.toml: not a readable TOML"):
        prefs.load(path)


def test_the_theme_is_remembered_across_runs(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    path = prefs.default_path()
    assert path == tmp_path / "xdg" / "relkit" / "tui.toml"
    store = project(tmp_path)

    async def run(change: str | None) -> str:
        app = make_app(store, "ann", Settings(keymap_path=None, prefs_path=path))
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            if change:
                app.theme = change
                await pilot.pause()
            return app.theme

    assert asyncio.run(run(None)) == "textual-dark" and not path.exists()  # nothing chosen
    asyncio.run(run("textual-light"))
    assert prefs.load(path).theme == "textual-light"
    assert asyncio.run(run(None)) == "textual-light"  # the next run starts with it
    assert prefs.load(path).reading_width == 100


def _luminance(c: RichColor) -> float:
    # WCAG 2.x relative luminance (https://www.w3.org/TR/WCAG21/#dfn-relative-luminance).
    def channel(v: int) -> float:
        s = v / 255
        return s / 12.92 if s <= 0.04045 else ((s + 0.055) / 1.055) ** 2.4
    r, g, b = c.get_truecolor()
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def contrast(fg: RichColor, bg: RichColor) -> float:
    hi, lo = sorted((_luminance(fg), _luminance(bg)), reverse=True)
    return (hi + 0.05) / (lo + 0.05)


@pytest.mark.parametrize("theme", ["textual-light", "textual-dark"])
def test_state_line_and_markers_meet_wcag_aa(tmp_path: Path, theme: str) -> None:
    # The colours as drawn (the theme's variables resolved, alpha blended), text only.
    long = Topic("1", "wind blades", "Described at length. " * 60)
    store = Store.open(tmp_path / "c.db")
    store.create_collection("c", TREC_DL, [long], [Document("d0", "T", "text")])
    store.import_pool([("1", "d0")], name="p")
    store.assign(["ann"])
    store.assessor("ann").record(topic="1", doc="d0", grade=2, note="see page 2")

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        app.theme = theme
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        await check(s, ("#state", "#topic-more", "#scale > .brief", "#statement", "#doc"))
        await pilot.press("d")  # the definitions (one line of keys at 80x24)
        await pilot.pause()
        await check(s, ("#scale > .full",))

    async def check(s: Any, selectors: tuple[str, ...]) -> None:
        for sel in selectors:
            w = s.query_one(sel)
            assert w.display and w.region.height, sel
            ratios = []
            for strip in w.render_lines(Region(0, 0, w.size.width, w.size.height)):
                for seg in strip:
                    st = seg.style
                    text = seg.text.strip(" ─▁▔▎▊▄▇")  # text, not rules or scrollbars
                    if text and st and st.color and st.bgcolor:
                        fg, bg = (st.bgcolor, st.color) if st.reverse else (st.color,
                                                                           st.bgcolor)
                        ratios.append(contrast(fg, bg))
            assert ratios, sel
            assert min(ratios) >= 4.5, (sel, theme, min(ratios))

    drive(store, steps)


def test_on_resume_the_topic_list_starts_at_the_first_topic_with_work(tmp_path: Path) -> None:
    """Issue 33: a resumed session's cursor sat on topic 1, finished the day before."""
    store = project(tmp_path, docs=2)
    ann = store.assessor("ann")
    for doc in ("d0", "d1"):
        ann.record(topic="1", doc=doc, grade=1)      # topic 1: every document judged
    ann.record(topic="2", doc="d0", grade=2)
    ann.record(topic="2", doc="d1", status="skipped", note="not English")  # set aside:
    # nothing left to judge in topic 2 either

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        ol = app.screen.query_one(OptionList)
        assert ol.highlighted == 2, ol.highlighted  # topic 3
        await pilot.press("enter")
        await pilot.pause()
        assert screen(app).topic.key == "3"

    drive(store, steps)


def test_the_topic_list_says_how_to_open_a_topic_and_counts_what_is_set_aside(
        tmp_path: Path) -> None:
    """Issue 33: no help line, no hint that Enter opens a topic, no skipped/later counts."""
    store = project(tmp_path, docs=3)
    ann = store.assessor("ann")
    ann.record(topic="1", doc="d0", grade=1)
    ann.record(topic="1", doc="d1", status="skipped", note="cut off")
    ann.record(topic="1", doc="d2", status="later")

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        drawn = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "Enter opens" in drawn and "Judge" in drawn, drawn  # the hint, the footer
        assert "? help" in drawn.lower() or "? Help" in drawn, drawn
        line = str(app.screen.query_one(OptionList).get_option_at_index(0).prompt)
        assert "s:1 l:1" in line, line
        summary = str(app.screen.query_one("#summary").render())
        assert "1 skipped" in summary and "1 for later" in summary, summary
        await pilot.press("question_mark")  # the help: every key of the list
        await pilot.pause()
        help_text = "\n".join(strip.text for strip in app.screen._compositor.render_strips())
        assert "Enter" in help_text and "type" in help_text.lower(), help_text

    drive(store, steps)


def test_the_revise_list_marks_flags_and_notes(tmp_path: Path) -> None:
    """Issue 33: the revise list showed no flag or note markers."""
    from relkit.judging.tui.modals import ReviseScreen

    store = project(tmp_path, docs=3, topics=1)
    ann = store.assessor("ann")
    ann.record(topic="1", doc="d0", grade=1, flagged=True)
    ann.record(topic="1", doc="d1", grade=2, note="figures for roofs only")
    ann.record(topic="1", doc="d2", grade=0)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.press("r")
        await pilot.pause()
        assert isinstance(app.screen, ReviseScreen)
        drawn = [strip.text for strip in app.screen._compositor.render_strips()]
        row = {d: next(r for r in drawn if f" {d} " in r) for d in ("d0", "d1", "d2")}
        assert "⚑" in row["d0"] and "✎" not in row["d0"], row
        assert "✎" in row["d1"] and "⚑" not in row["d1"], row
        assert "⚑" not in row["d2"] and "✎" not in row["d2"], row
        assert "⚑ flagged" in "\n".join(drawn) and "✎ note" in "\n".join(drawn), drawn

    drive(store, steps)
