"""The judging TUI driven headless with Textual's Pilot, against a real SQLite store."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.exc import OperationalError

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.dwell import DwellTimer
from relkit.judging.tui.keymap import KeymapError, load
from relkit.judging.tui.safe import clean, query_terms, safe
from tui_helpers import Clock, drive, read_and_press, screen

EVIL = ("[bold]not bold[/bold] [link=http://x]click[/link] \x1b[31mred\x1b[0m "
        "bell\x07 \x1b]0;title\x07 end")


def project(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "t.db")
    docs = [Document(f"d{i}", f"Solar title {i}", f"Text about solar panels {i}.")
            for i in range(5)]
    docs.append(Document("evil", EVIL, EVIL))
    store.create_collection("c", TREC_DL, [Topic("1", "solar panels", "Find panels.",
                                                  "Panels [i]only[/i].")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann", "bob"], overlap=1.0)
    return store


def test_one_key_grades_saves_and_advances(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")  # open topic 1
        s = screen(app)
        assert s.item is not None and s.item.position == 1
        first = s.item.doc
        clock.t += 12.5
        await pilot.press("2")
        assert s.item.position == 2  # moved on only after the commit
        saved = store.assessor("ann").judgments("1")
        assert [(j.doc, j.grade, j.dwell_ms) for j in saved] == [(first, 2, 12500)]

    drive(store, steps)


def test_idle_time_is_not_counted(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        clock.t += 10
        await pilot.press("f", "f")  # activity (flag on, off): 10 s counted
        clock.t += 600  # a coffee break: only idle_after (30 s) counts
        await pilot.press("0")

    drive(store, steps)
    (j,) = store.assessor("ann").judgments("1")
    assert j.dwell_ms == 40_000


@pytest.mark.slow
def test_back_revise_skip_flag_note_and_resume(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "3")   # d0 -> 3
        await read_and_press(pilot, clock, "s", "enter")   # d1 skipped (no reason)
        await pilot.press("f", "n")     # flag d2, open the note dialog
        await pilot.pause()
        await pilot.press(*"see narrative", "enter")
        await pilot.pause()
        await read_and_press(pilot, clock, "1")   # d2 -> 1, flagged, with the note
        await pilot.press("b", "b", "b")  # back to d0
        assert s.item is not None and s.item.position == 1 and s.item.grade == 3
        await read_and_press(pilot, clock, "0")   # revise d0 -> 0, then the next unjudged
        assert s.item.doc == "d3"       # the skipped one is set aside

    drive(store, steps)
    view = store.assessor("ann")
    got = {j.doc: (j.grade, j.status, j.flagged, j.note) for j in view.judgments("1")}
    assert got["d0"] == (0, "judged", False, "")
    assert got["d1"] == (None, "skipped", False, "")
    assert got["d2"] == (1, "judged", True, "see narrative")
    assert [h.grade for h in view.history("1", "d0")] == [3, 0]

    async def resume(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        assert s.item is not None and s.item.doc == "d3"  # first untouched: resumes there

    drive(store, resume)


def test_revise_list_opens_a_judged_document(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await read_and_press(pilot, clock, "2", "3", "r")
        await pilot.pause()
        await pilot.press("enter")  # first judged document in the list: position 1
        await pilot.pause()
        s = screen(app)
        assert s.item is not None and s.item.position == 1 and s.item.grade == 2

    drive(store, steps)


def test_untrusted_text_is_shown_literally(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        s.show(next(i.position for i in s.view.items("1") if i.doc == "evil"))
        await pilot.pause()
        view = s.query_one(DocView)
        shown = view.plain
        styles = [seg.style for line in view._wrapped.lines for seg in line if seg.style]
        assert not any(st.link or st.meta for st in styles)  # no [link=...] took effect
        assert "[bold]not bold[/bold]" in shown and "[link=http://x]click[/link]" in shown
        assert "\x1b" not in shown and "\x07" not in shown and "red" in shown
        statement = str(s.query_one("#statement").render())
        assert "[i]only[/i]" in statement

    drive(store, steps)


def test_other_assessors_grades_never_shown(tmp_path: Path) -> None:
    store = project(tmp_path)
    store.assessor("bob").record(topic="1", doc="d0", grade=3, note="BOB-SECRET")

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        assert s.item is not None and s.item.doc == "d0" and s.item.grade is None
        text = " ".join(str(w.render()) for w in s.query("Static"))
        assert "BOB-SECRET" not in text and "Your grade" not in text

    drive(store, steps)


@pytest.mark.slow   # waits out a real retry delay
def test_unreachable_database_keeps_the_grade_pending(tmp_path: Path) -> None:
    # Fault injection: the first save fails as a dropped connection would.
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        real = s.view.record
        calls = {"n": 0}

        def flaky(*a: Any, **k: Any) -> Any:
            calls["n"] += 1
            if calls["n"] == 1:
                raise OperationalError("INSERT", {}, Exception("server closed the connection"))
            return real(*a, **k)

        s.view.record = flaky  # type: ignore[method-assign]
        await read_and_press(pilot, clock, "2")
        assert s.item is not None and s.item.position == 1  # did not move on
        assert "NOT saved" in str(s.query_one("#banner").render())
        clock.t += 2
        await pilot.press("3")  # ignored while a save is pending
        await pilot.pause(1.3)  # the retry goes through
        assert s.item.position == 2
        assert str(s.query_one("#banner").render()) == ""

    drive(store, steps)
    (j,) = store.assessor("ann").judgments("1")
    assert (j.doc, j.grade) == ("d0", 2)


def test_works_at_80x24_and_larger(tmp_path: Path) -> None:
    store = project(tmp_path)
    for size in ((80, 24), (160, 48)):
        async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
            await pilot.press("enter")
            s = screen(app)
            for wid in ("#doc", "#state", "#scale", "#position"):
                region = s.query_one(wid).region
                assert region.width > 0 and region.height > 0, wid

        drive(store, steps, size)


def test_dwell_timer_caps_idle_gaps() -> None:
    clock = Clock()
    t = DwellTimer(idle_after=5, clock=clock)
    t.start()
    clock.t += 3
    t.touch()
    clock.t += 100
    t.touch()
    clock.t += 1
    assert t.elapsed_ms() == 9000  # 3 + 5 (capped) + 1
    with pytest.raises(ValueError):
        DwellTimer(idle_after=0)


def test_safe_text_helpers() -> None:
    assert clean("a\x1b[1mb\x1b[0m\x00c\r\nd") == "abc\nd"
    assert query_terms("What is the solar panel?") == ["solar", "panel"]
    t = safe("[b]Solar[/b] panels", ["solar"])
    assert t.plain == "[b]Solar[/b] panels" and t.spans


def test_keymap_overrides_and_clashes(tmp_path: Path) -> None:
    f = tmp_path / "keys.toml"
    f.write_text('[keys]\nflag = "x"\n')
    assert load(f, TREC_DL)["flag"].key == "x"
    f.write_text('[keys]\nflag = "2"\n')
    with pytest.raises(KeymapError, match="'2' is bound to both grade 2 and 'flag'"):
        load(f, TREC_DL)
    f.write_text('[keys]\nfly = "x"\n')
    with pytest.raises(KeymapError, match="unknown action 'fly'"):
        load(f, TREC_DL)


def test_a_keymap_binding_d_still_loads_and_the_definitions_move(tmp_path: Path) -> None:
    """Review of issue 33: `d` (the definitions) came after keymaps; one binding `d` to
    another action was refused ("bound to both") and `relkit judge` did not start. The
    keymap wins; the definitions take D, and their help line says why."""
    f = tmp_path / "keys.toml"
    f.write_text('[keys]\nflag = "d"\n')
    got = load(f, TREC_DL)
    assert got["flag"].key == "d" and got["definitions"].key == "D"
    assert "your keymap gives d to flag" in got["definitions"].description
    # bound by the keymap itself: as it says; D taken by it too: refused, as any clash
    f.write_text('[keys]\nflag = "d"\ndefinitions = "x"\n')
    assert load(f, TREC_DL)["definitions"].key == "x"
    f.write_text('[keys]\nflag = "d"\nnote = "D"\n')
    with pytest.raises(KeymapError, match="'d' is bound to both flag and 'definitions'"):
        load(f, TREC_DL)
    assert load(None, TREC_DL)["definitions"].key == "d"


def test_lead_adjudicates_a_disagreement(tmp_path: Path) -> None:
    from relkit.judging.store.reports import disagreements
    from relkit.judging.tui.lead import LeadApp

    store = project(tmp_path)
    store.assessor("ann").record(topic="1", doc="d0", grade=0, note="off topic")
    store.assessor("bob").record(topic="1", doc="d0", grade=3)

    async def main() -> None:
        app = LeadApp(store, "lee")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            assert app.case is not None
            assert [(o.assessor, o.grade, o.note) for o in app.case.opinions] == [
                ("ann", 0, "off topic"), ("bob", 3, "")]
            await pilot.press("2")
            await pilot.pause()

    asyncio.run(main())
    (d,) = disagreements(store)
    assert d.adjudicated == 2


def test_next_document_is_wrapped_before_the_grade_key(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        view = s.query_one(DocView)
        assert s.item is not None and s.ready is not None
        upcoming = store.assessor("ann").next_item("1", s.item.position)
        assert upcoming is not None and s.ready.key == upcoming.doc
        ready = s.ready
        clock.t += 2
        await pilot.press("1")
        assert s.item.doc == upcoming.doc
        assert view._wrapped is ready  # shown from the lines wrapped in advance
        assert upcoming.text.split()[0] in view.plain

    drive(store, steps)


def test_grade_definitions_are_on_the_judging_screen_whole(tmp_path: Path) -> None:
    store = project(tmp_path)
    for size in ((80, 24), (160, 40)):
        async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
            await pilot.press("enter")
            await pilot.pause()
            if app.size.height < 40:  # one line of keys: the definitions one key away
                await pilot.press("d")
                await pilot.pause()
            w = screen(app).query_one("#scale > .full")  # the legend in full (legend.py)
            rows = [strip.text for strip in w.render_lines(w.region.reset_offset)]
            drawn = " ".join(" ".join(rows).split())
            assert "…" not in drawn and len(rows) >= len(TREC_DL.grades)
            for g in TREC_DL.grades:  # wrapped, never cut
                assert f"{g.value} {g.label}: {g.definition}" in drawn

        drive(store, steps, size)


def test_document_rewraps_when_the_terminal_resizes(tmp_path: Path) -> None:
    long = " ".join(f"word{i}" for i in range(400))
    store2 = Store.open(tmp_path / "wide.db")
    store2.create_collection("c", TREC_DL, [Topic("1", "words")],
                             [Document("d1", "T", long)])
    store2.import_pool([("1", "d1")], name="p")
    store2.assign(["ann"])

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        view = screen(app).query_one(DocView)
        narrow = view.plain.count("\n")
        await pilot.resize_terminal(160, 24)
        await pilot.pause()
        wide = view.plain.count("\n")
        assert wide < narrow
        assert view.plain.split() == ["T"] + long.split()  # every word, in order

    drive(store2, steps)
