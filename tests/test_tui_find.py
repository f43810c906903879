"""Find in the document: ``/`` opens the bar, matches are marked, ``n`` / ``N`` step,
the view follows, Esc closes (Pilot, SQLite)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.docview import CURRENT, MATCH, DocView
from relkit.judging.tui.find import FindBar, find
from tui_helpers import Clock, drive, read_and_press, screen

# "turbine" occurs 12 times: once in the title, 10 times in the filler (lines 2..),
# and once as the last word, far below the first screenful at 80x24.
FILLER = " ".join(f"Paragraph {i} says little about wind turbine blades here." for i in range(10))
BODY = FILLER + " " + "More filler words without the word. " * 80 + "Final turbine"


def project(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "t.db")
    docs = [Document("d0", "Turbine report", BODY), Document("d1", "Other", "no match here")]
    store.create_collection("c", TREC_DL, [Topic("1", "wind blades")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


def count(app: JudgeApp) -> str:
    return str(screen(app).query_one("#find-count").render())


def marked(doc: DocView) -> dict[int, list[tuple[int, int, bool]]]:
    return {r: spans for r, spans in doc.marks.items() if spans}


def test_find_marks_counts_steps_scrolls_and_closes(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        doc = s.query_one(DocView)
        bar = s.query_one(FindBar)
        assert not bar.display
        await pilot.press("slash", *"turbine")
        await pilot.pause()
        assert bar.display
        assert count(app).startswith("1/12")
        rows = doc.rows
        spans = marked(doc)
        # Every mark covers the word as drawn, and exactly one is the current match.
        for r, ranges in spans.items():
            for a, b, _ in ranges:
                assert rows[r][a:b].lower() == "turbine"
        assert sum(cur for ranges in spans.values() for *_, cur in ranges) == 1
        # Drawn: the current match in its own style, the others in the match style.
        strip = doc.render_line(spans and min(spans) - round(doc.scroll_y))
        styles = [seg.style for seg in strip if seg.text.lower() == "turbine"]
        assert styles and styles[0] is not None and styles[0].bgcolor == CURRENT.bgcolor
        # Enter goes back to the document; n and N step, wrapping round, and the view
        # follows the current match to the end of the document.
        await pilot.press("enter", "n")
        await pilot.pause()
        assert app.focused is doc and count(app).startswith("2/12")
        await pilot.press("N", "N")
        await pilot.pause()
        assert count(app).startswith("12/12")
        last = max(marked(doc))
        assert last > doc.scrollable_content_region.height  # below the first screenful
        top = round(doc.scroll_y)
        assert top <= last < top + doc.scrollable_content_region.height
        assert any(cur for *_, cur in doc.marks[last])
        # n is the note key again once Esc has closed the bar; Esc does not leave the topic.
        await pilot.press("escape")
        await pilot.pause()
        assert not bar.display and not marked(doc) and app.screen is s
        await pilot.press("n")
        await pilot.pause()
        assert type(app.screen).__name__ == "NoteScreen"

    drive(project(tmp_path), steps)


def test_find_no_match_and_a_new_document_closes_it(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        await pilot.press("slash", *"zebra")
        await pilot.pause()
        assert count(app) == "no match" and not marked(s.query_one(DocView))
        await pilot.press("enter")
        # A grade key still grades with the bar open; the next document starts unsearched.
        await read_and_press(pilot, clock, "1")
        assert s.item is not None and s.item.doc == "d1"
        assert not s.query_one(FindBar).display and not s.query_one(DocView).marks

    drive(project(tmp_path), steps)


def test_find_across_a_line_break_and_wide_characters() -> None:
    rows = ["the wind", "turbine 風車 turbine"]
    (m,) = find(rows, "wind  TURBINE")  # any whitespace between words, any case
    assert m.row == 0 and m.spans == ((0, 4, 8), (1, 0, 7))
    _, m2 = find(rows, "turbine")
    assert m2.spans == ((1, 13, 20),)  # cells: the two wide characters take four
    assert find(rows, "   ") == [] and find(rows, "a.b") == []  # literal, not a regex
    assert MATCH.bgcolor != CURRENT.bgcolor


def test_the_footer_gets_its_keys_back_after_find(tmp_path: Path) -> None:
    # Before: after / Enter Esc, the footer kept hiding "Note" and "Topics" (bound to n and
    # Esc, which the find bar takes while open) until some modal redrew it.
    def footer(app: JudgeApp) -> list[str]:
        return [str(k.description) for k in app.screen.query("FooterKey")]

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        before = footer(app)
        assert "Note" in before and "Topics" in before
        await pilot.press("slash", "x", "enter")
        await pilot.pause()
        assert "Note" not in footer(app)
        await pilot.press("escape")
        await pilot.pause()
        assert footer(app) == before

    drive(project(tmp_path), steps)
