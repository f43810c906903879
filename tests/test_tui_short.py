"""On a short screen the document gets the room (Pilot, SQLite).

Tester report 4, item 11: a browser window of 800x600 (a terminal of about 88x21)
showed the assessor the title and one line of the document, the lead only the
title, while the grade keys still worked. Below 24 rows the topic statement, the
scale and the lead's list shrink so that the document can be read, and the grade
keys with their meaning stay on screen. Issue 33: at 80x24 too the definitions took 11
rows and left the document 3-6; below 40 rows the scale is one line (the definitions
one key away) and the document gets 14 rows or more at 80x24 (the snapshots in
test_tui_snapshots.py at 80x24, 100x30, 120x40).
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path
from typing import Any

import pytest

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.adjudication import register_leads
from relkit.judging.store.assign import Store
from relkit.judging.store.reports import adjudicate, dump
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.lead import LeadApp
from relkit.judging.tui.topicpane import TopicPane
from tui_helpers import Clock, drive, screen

# Every word of the document is w000, w001, ...: a screen line holding one is document
# text (the topic, the scale and the footer hold none).
BODY = " ".join(f"w{i:03d}" for i in range(600))
WORD = re.compile(r"\bw\d{3}\b")
# The tester's topic (the sample's topic 101): ten lines at 80 columns.
TOPIC = Topic("101", "solar panel output cloudy winter",
              "How much electricity do rooftop solar panels still produce on cloudy days "
              "and during winter?",
              "A relevant document gives figures for, or clearly explains, how much "
              "photovoltaic output drops under cloud cover, snow, fog or short winter days, "
              "for example as a share of rated or summer output. Documents that explain the "
              "causes (diffuse light, a low sun, snow cover, shading in winter) without saying "
              "how large the effect is are partially relevant. Documents about solar water "
              "heating, the price of panels, or panel output in general with no reference to "
              "weather or season are not relevant.")


def project(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "s.db")
    docs = [Document(f"D{i}", f"Bifacial panels and snow {i}", BODY) for i in range(3)]
    store.create_collection("c", TREC_DL, [TOPIC], docs)
    store.import_pool([("101", d.id) for d in docs], name="p")
    store.assign(["ann", "bob"], overlap=1.0)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    ann.record(topic="101", doc="D0", grade=1, dwell_ms=4000)
    bob.record(topic="101", doc="D0", grade=3, dwell_ms=9000, note="figures for roofs")
    register_leads(store, ["lee"])
    return store


def lines(app: Any) -> list[str]:
    """The screen as drawn, one string per row."""
    return [strip.text for strip in app.screen._compositor.render_strips()]


def text_rows(app: Any) -> int:
    """Rows of the screen that show document text."""
    return sum(bool(WORD.search(row)) for row in lines(app))


def assert_keys_shown(app: Any) -> None:
    """Each grade key is on screen next to its label (its meaning)."""
    drawn = "\n".join(lines(app))
    for g in TREC_DL.grades:
        assert re.search(rf"\b{g.value}\s+{g.label}\b", drawn), (g.label, drawn)


def run_lead(store: Store, size: tuple[int, int], steps: Any) -> None:
    app = LeadApp(store, "lee")

    async def main() -> None:
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await pilot.pause()
            await steps(pilot, app)

    asyncio.run(main())


@pytest.mark.parametrize("size,least", [((80, 16), 7), ((88, 18), 9), ((88, 21), 12)])
def test_the_assessor_reads_the_document_on_a_short_screen(
        tmp_path: Path, size: tuple[int, int], least: int) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        assert text_rows(app) >= least, "\n".join(lines(app))
        assert_keys_shown(app)
        s = screen(app)
        # The statement is one line; the marker says how much more there is, and t ...
        pane = s.query_one(TopicPane)
        assert pane.region.height == 1
        assert "more lines of the topic · t shows it all" in "\n".join(lines(app))
        await pilot.press("t")  # ... shows it: most of the screen
        await pilot.pause()
        assert pane.region.height > 1 and s.query_one(DocView).region.height >= 2
        assert "t back to the document" in "\n".join(lines(app))
        await pilot.press("t")
        await pilot.pause()
        assert pane.region.height == 1
        assert_keys_shown(app)  # the one-line legend is back
        assert text_rows(app) >= least

    drive(project(tmp_path), steps, size=size)


@pytest.mark.parametrize("size,least", [((80, 16), 4), ((88, 18), 6), ((88, 21), 9)])
def test_the_lead_reads_the_document_on_a_short_screen(
        tmp_path: Path, size: tuple[int, int], least: int) -> None:
    async def steps(pilot: Any, app: LeadApp) -> None:
        drawn = "\n".join(lines(app))
        assert text_rows(app) >= least, drawn
        assert_keys_shown(app)
        for shown in ("ann", "bob", "final:", "Topic 101: solar panel output",
                      "more lines of the topic"):
            assert shown in drawn, shown
        await pilot.press("t")  # the whole statement, and back
        await pilot.pause()
        drawn = "\n".join(lines(app))
        assert "photovoltaic" in drawn and "t back to the document" in drawn, drawn
        await pilot.press("t")
        await pilot.pause()
        assert text_rows(app) >= least
        assert_keys_shown(app)

    run_lead(project(tmp_path), size, steps)


def test_a_resize_changes_the_layout_both_ways(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        normal = text_rows(app)
        assert "Irrelevant: " in "\n".join(lines(app))  # the definitions, at 120x40
        await pilot.resize_terminal(80, 16)
        await pilot.pause()
        await pilot.pause()
        assert "Irrelevant: " not in "\n".join(lines(app)) and text_rows(app) >= 7
        await pilot.press("question_mark")  # grown back while the help is open
        await pilot.pause()
        await pilot.resize_terminal(120, 40)
        await pilot.pause()
        await pilot.press("escape")
        await pilot.pause()
        await pilot.pause()
        assert "Irrelevant: " in "\n".join(lines(app)) and text_rows(app) == normal

    drive(project(tmp_path), steps, size=(120, 40))


def test_too_small_to_read_the_grade_keys_wait(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        doc = s.item.doc
        await pilot.resize_terminal(80, 10)
        await pilot.pause()
        await pilot.pause()
        drawn = "\n".join(lines(app))
        assert "too small to read the document" in drawn and text_rows(app) == 0, drawn
        clock.t += 5
        for key in ("2", "s", "l"):  # no grade, skip or "later" for a document not read
            await pilot.press(key)
            await pilot.pause()
        assert s.item.doc == doc and s.item.status is None and app.screen is s
        assert store.assessor("ann").item("101", s.item.position).grade is None
        await pilot.resize_terminal(80, 12)  # three lines of text: enough to read
        await pilot.pause()
        await pilot.pause()
        assert "too small" not in "\n".join(lines(app)) and text_rows(app) >= 3
        assert s.query_one(DocView).has_focus  # the arrow keys scroll it again
        clock.t += 5
        await pilot.press("2")
        await pilot.pause()
        assert s.item.doc != doc  # judged, on to the next one
        assert store.assessor("ann").item("101", 2).grade == 2

    drive(store, steps)


def test_a_document_brought_up_while_too_small_is_not_seen_until_shown(
        tmp_path: Path) -> None:
    """→ while the window is too small brings up a document nobody can see: its time on
    screen starts when it is drawn, so a grade at once after growing the window is
    ignored (min_view), as for any document not yet read."""
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        await pilot.resize_terminal(80, 10)
        await pilot.pause()
        await pilot.pause()
        await pilot.press("right")          # the next document, hidden
        await pilot.pause()
        await pilot.pause()
        hidden = s.item.doc
        assert s.drawn_at is None
        clock.t += 5                        # five seconds with it hidden
        await pilot.resize_terminal(80, 24)
        await pilot.press("2")              # at once
        await pilot.pause()
        assert store.assessor("ann").item("101", s.item.position).grade is None
        assert s.item.doc == hidden and "ignored" in "\n".join(lines(app))
        clock.t += 5                        # read now
        await pilot.press("2")
        await pilot.pause()
        assert {j.doc: j.grade for j in store.assessor("ann").judgments("101")}[hidden] == 2

    drive(store, steps)


def test_too_small_no_flag_or_note_either(tmp_path: Path) -> None:
    """A flag or a note writes a new version of the judgment: not for a document the
    window is too small to show."""
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        clock.t += 5
        await pilot.press("2")
        await pilot.pause()
        await pilot.press("b")              # back to the judged one
        await pilot.pause()
        doc = s.item.doc
        await pilot.resize_terminal(80, 10)
        await pilot.pause()
        await pilot.pause()
        for key in ("f", "n"):
            await pilot.press(key)
            await pilot.pause()
        assert app.screen is s              # no note editor opened
        assert [(h.grade, h.flagged) for h in store.assessor("ann").history("101", doc)] \
            == [(2, False)]

    drive(store, steps)


def test_too_small_the_leads_reason_decides_nothing(tmp_path: Path) -> None:
    """Enter in the reason box saves a decided pair's new reason with its grade: not
    while the window is too small to read the pair."""
    store = project(tmp_path)

    adjudicate(store, "lee", "101", "D0", 2, "first")

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.resize_terminal(80, 12)
        await pilot.pause()
        await pilot.pause()
        app.query_one("#reason").focus()
        await pilot.pause()
        await pilot.press(*" more", "enter")
        await pilot.pause()
        assert "too small" in "\n".join(lines(app))

    run_lead(store, (80, 24), steps)
    adj = {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}
    assert adj[("101", "D0")] == {"grade": 2, "lead": "lee", "note": "first"}


def test_too_small_the_lead_decides_nothing(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        drawn = "\n".join(lines(app))
        assert "too small to read the document" in drawn and text_rows(app) == 0, drawn
        assert "lead lee" in drawn and "D0" in drawn  # the head line and the pair
        await pilot.press("2")
        await pilot.pause()
        assert app.case is not None and app.case.final is None
        await pilot.resize_terminal(80, 15)
        await pilot.pause()
        await pilot.pause()
        assert "too small" not in "\n".join(lines(app)) and text_rows(app) >= 3
        await pilot.press("2")
        await pilot.pause()
        assert "saved: final 2" in "\n".join(lines(app))

    run_lead(store, (80, 12), steps)


@pytest.mark.parametrize("theme", ["textual-light", "textual-dark"])
def test_the_short_forms_meet_wcag_aa(tmp_path: Path, theme: str) -> None:
    from textual.geometry import Region

    from test_tui_screens import contrast

    def worst(widget: Any) -> float:
        ratios = []
        for strip in widget.render_lines(Region(0, 0, widget.size.width, widget.size.height)):
            for seg in strip:
                st = seg.style
                if seg.text.strip(" ·") and st and st.color and st.bgcolor:
                    fg, bg = (st.bgcolor, st.color) if st.reverse else (st.color, st.bgcolor)
                    ratios.append(contrast(fg, bg))
        assert ratios, widget
        return min(ratios)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        app.theme = theme
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        assert worst(s.query_one("#scale > .brief")) >= 4.5  # the one-line scale
        await pilot.resize_terminal(80, 10)
        await pilot.pause()
        await pilot.pause()
        assert worst(s.query_one("#too-small")) >= 4.5

    drive(project(tmp_path), steps, size=(80, 16))


@pytest.mark.parametrize("width", [80, 60, 40, 20])
def test_the_one_line_scale_fits_or_wraps_between_grades(width: int) -> None:
    from rich.console import Console

    from relkit.judging.tui.legend import Brief

    console = Console(width=width, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(Brief(TREC_DL))
    rows = console.export_text().rstrip("\n").split("\n")
    assert all(len(row.rstrip()) <= width for row in rows), rows
    if width >= 80:
        assert len(rows) == 1 and "3  Perfectly relevant" in rows[0]  # whole labels
    for g in TREC_DL.grades:  # each key on the row of its label's first word
        assert any(f" {g.value}  {g.label.split()[0]}" in row for row in rows), (g, rows)


def test_the_banner_still_speaks_on_a_short_screen(tmp_path: Path) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        rows = text_rows(app)
        await pilot.press("z")  # nothing to undo yet: a note on the banner
        await pilot.pause()
        await pilot.pause()
        assert "Nothing to undo yet" in "\n".join(lines(app))
        assert text_rows(app) == rows - 1  # its row comes from the document

    drive(project(tmp_path), steps, size=(80, 16))


def doc_rows(app: Any) -> int:
    """Rows of the screen the document has: its title line, the blank line under it and
    the lines of its text (counted on what is drawn, not from the layout)."""
    drawn = lines(app)
    title = sum("Bifacial panels and snow" in row for row in drawn)
    return title + text_rows(app) + (1 if title and text_rows(app) else 0)


def test_at_80x24_the_document_gets_14_rows_and_the_definitions_are_one_key_away(
        tmp_path: Path) -> None:
    """Issue 33: at 80x24 the definitions took 11 of 24 rows and the document 3-6. Now the
    scale is one line of keys and labels, the definitions one key (d) away."""
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        await pilot.pause()
        drawn = "\n".join(lines(app))
        assert doc_rows(app) >= 14, drawn
        assert_keys_shown(app)
        assert "Irrelevant: " not in drawn and "d Defs" in drawn, drawn
        await pilot.press("d")  # the definitions, in full, under the document
        await pilot.pause()
        drawn = "\n".join(lines(app))
        for g in TREC_DL.grades:
            assert f"{g.label}: " in drawn, drawn
        assert text_rows(app) >= 2  # the document is still there
        await pilot.press("d")
        await pilot.pause()
        assert "Irrelevant: " not in "\n".join(lines(app)) and doc_rows(app) >= 14

    drive(project(tmp_path), steps, size=(80, 24))


@pytest.mark.parametrize("size", [(120, 40), (160, 50)])
def test_from_120x40_the_definitions_are_shown_in_full(tmp_path: Path,
                                                       size: tuple[int, int]) -> None:
    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        drawn = "\n".join(lines(app))
        for g in TREC_DL.grades:
            assert f"{g.label}: {g.definition[:20]}" in drawn, drawn
        assert doc_rows(app) >= 14

    drive(project(tmp_path), steps, size=size)


def test_the_lead_reads_10_lines_at_80x24_with_every_assessors_grade(tmp_path: Path) -> None:
    """Issue 33: at 80x24 the lead saw only the document's title."""
    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.press("2")  # the status line takes its row too
        await pilot.pause()
        drawn = "\n".join(lines(app))
        assert "saved: final 2" in drawn
        await pilot.press("up")
        await pilot.pause()
        drawn = "\n".join(lines(app))
        assert text_rows(app) >= 10, drawn
        for who, grade in (("ann", "1 Related"), ("bob", "3 Perfectly relevant")):
            assert re.search(rf"^{who}\s+{grade}", drawn, re.M), (who, drawn)
        assert_keys_shown(app)

    run_lead(store, (80, 24), steps)
