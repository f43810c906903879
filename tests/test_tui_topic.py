"""The topic statement is readable in full at any size (Pilot, SQLite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from rich.text import Text

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.topicpane import TopicPane
from tui_helpers import Clock, drive, screen

CRANFIELD_TITLE = ("can a criterion be developed to show empirically the validity of flow "
                   "solutions for chemically reacting gas mixtures based on the simplifying "
                   "assumption of instantaneous local chemical equilibrium .")
NARRATIVE = " ".join(f"Relevant documents discuss point{i} in detail." for i in range(60))


def project(tmp_path: Path, topic: Topic) -> Store:
    store = Store.open(tmp_path / "t.db")
    docs = [Document(f"d{i}", f"Title {i}", "reacting gas mixtures " * 30) for i in range(2)]
    store.create_collection("c", TREC_DL, [topic], docs)
    store.import_pool([(topic.id, d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


def marker(app: JudgeApp) -> str:
    m = app.screen.query_one("#topic-more")
    return str(m.render()) if m.display else ""


def test_a_title_only_topic_is_shown_whole(tmp_path: Path) -> None:
    store = project(tmp_path, Topic("4", CRANFIELD_TITLE))

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        pane = screen(app).query_one(TopicPane)
        assert pane.title_cut  # the bar cannot hold it ...
        assert CRANFIELD_TITLE in " ".join(pane.plain.split())  # ... the pane shows it all
        assert pane.hidden_lines() == 0 and marker(app) == ""
        assert pane.region.height >= 3  # wrapped, not one cut line

    drive(store, steps)


def test_a_long_narrative_is_marked_and_reachable(tmp_path: Path) -> None:
    store = project(tmp_path, Topic("1", "gas mixtures", "What is known about gas mixtures?",
                                    NARRATIVE))

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        pane = s.query_one(TopicPane)
        assert not pane.title_cut and "point59" in pane.plain
        more = pane.hidden_lines()
        assert more > 0 and f"▼ {more} more lines of the topic" in marker(app)
        await pilot.press("t")  # most of the screen, and the arrow keys, for the topic
        await pilot.pause()
        assert pane.expanded and pane.region.height > 10 and pane.has_focus
        assert s.query_one(DocView).region.height >= 3  # the document stays in view
        assert "scroll it" in marker(app)
        await pilot.press("end")
        await pilot.pause()
        assert pane.hidden_lines() == 0 and "more line" not in marker(app)
        await pilot.press("t")  # back: the document has the keys again
        await pilot.pause()
        assert not pane.expanded and s.query_one(DocView).has_focus
        assert pane.scroll_y == 0 and "▼" in marker(app)

    drive(store, steps)


def test_the_title_moves_into_the_pane_when_the_bar_is_too_narrow(tmp_path: Path) -> None:
    title = "effect of chemically reacting gas mixtures on equilibrium flow"
    store = project(tmp_path, Topic("1", title, "A statement."))

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        pane = screen(app).query_one(TopicPane)
        assert not pane.title_cut and title not in pane.plain  # fits in the bar at 120
        await pilot.resize_terminal(70, 24)
        await pilot.pause()
        await pilot.pause()
        assert pane.title_cut and title in pane.plain  # every highlighted word is visible

    drive(store, steps, size=(120, 24))


def test_help_fits_scrolls_and_lists_the_scroll_keys(tmp_path: Path) -> None:
    from textual.containers import VerticalScroll

    store = project(tmp_path, Topic("1", "gas mixtures"))

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter", "question_mark")
        await pilot.pause()
        box = app.screen.query_one("#help-scroll", VerticalScroll)
        text = str(app.screen.query_one("#help-text").render())
        for key in ("PgUp PgDn", "Home End", "↑ ↓", "Ctrl+Q", "Esc", "→"):
            assert key in text, key
        for action in screen_actions(app):
            assert action in text, action
        assert box.region.bottom <= 24 and box.max_scroll_y > 0  # at 80x24 it scrolls
        await pilot.press("end")
        await pilot.pause()
        assert box.scroll_y == box.max_scroll_y > 0
        await pilot.press("escape")

    drive(store, steps)


def screen_actions(app: JudgeApp) -> list[str]:
    return [a.description for a in app.actions_.values()]


def test_topic_list_one_line_per_topic_and_type_to_jump(tmp_path: Path) -> None:
    from rich.cells import cell_len
    from textual.widgets import OptionList

    store = Store.open(tmp_path / "many.db")
    topics = [Topic(str(i), f"{CRANFIELD_TITLE} {i}") for i in range(1, 16)]
    store.create_collection("c", TREC_DL, topics, [Document("d0", "T", "text")])
    store.import_pool([(t.id, "d0") for t in topics], name="p")
    store.assign(["ann"])

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.pause()
        ol = app.screen.query_one("#topic-list", OptionList)
        room = ol.scrollable_content_region.width
        for i in range(ol.option_count):
            prompt = ol.get_option_at_index(i).prompt
            assert isinstance(prompt, Text)
            assert cell_len(prompt.plain) <= room and "…" in prompt.plain, prompt.plain
        await pilot.press("1", "2")
        assert ol.highlighted == 11 and "topic 12" in str(app.screen.query_one("#summary")
                                                            .render())
        await pilot.press("enter")
        await pilot.pause()
        assert screen(app).topic.key == "12"

    drive(store, steps)


@pytest.mark.slow  # a burst of keys: 5.5 s
def test_type_to_jump_keeps_a_bounded_buffer_through_a_key_burst(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 33: 2,000 / 4,000 / 8,000 keys cost 0.6 / 1.5 / 4.9 s of CPU (quadratic): the
    jump buffer grew with every key and each key searched and showed all of it. A key no
    topic continues with starts a new topic key: the buffer stays within the longest key
    (each key's work no longer depends on how many came before) and jumps still work."""
    from textual.widgets import OptionList

    from relkit.judging.tui import topics as topic_screen
    from relkit.judging.tui.topics import TopicsScreen

    monkeypatch.setattr(topic_screen, "JUMP_RESET", 1e9)   # a slow machine: no pause
    store = Store.open(tmp_path / "many.db")
    topics = [Topic(str(i), f"topic {i}") for i in range(1, 16)]
    store.create_collection("c", TREC_DL, topics, [Document("d0", "T", "text")])
    store.import_pool([(t.id, "d0") for t in topics], name="p")
    store.assign(["ann"])

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.pause()
        s = app.screen
        assert isinstance(s, TopicsScreen)
        ol = s.query_one("#topic-list", OptionList)
        longest = max(len(t.key) for t in s.topics)
        seen = 0
        for key in "1234567890" * 8:                      # a burst, no pause
            await pilot.press(key)
            seen = max(seen, len(s.typed), len(str(s.query_one("#summary").render())))
        assert len(s.typed) <= longest
        assert seen <= 60, seen                  # the summary line: no 80-key echo
        await pilot.press("1", "3")               # within the reset pause: topic 13
        assert ol.highlighted == 12 and s.typed == "13"
        await pilot.press("9", "9")               # no topic 99: the second 9 starts anew
        assert ol.highlighted == 8 and s.typed == "9"

    drive(store, steps)


def test_a_short_title_only_topic_leaves_no_empty_pane(tmp_path: Path) -> None:
    store = project(tmp_path, Topic("7", "gas mixtures"))

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        assert "gas mixtures" in str(s.query_one("#topic-title").render())
        assert not s.query_one(TopicPane).display and marker(app) == ""

    drive(store, steps)
