"""The lead's adjudication screen (Pilot, SQLite; the outage case is in test_tui_outage).

Issue 16, item 5: the topic with highlighting, the scale with definitions, every
assessor's grade, note, flag and dwell side by side, a reason saved with the final
grade, on to the next undecided pair, filters and a review queue of everything
flagged or noted; only a registered lead may open it.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from textual.widgets import Input, OptionList

from helpers import run_cli
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.adjudication import Filter, cases, register_leads
from relkit.judging.store.assign import Store
from relkit.judging.store.reports import adjudicate, disagreements, dump
from relkit.judging.tui.docview import DocView
from relkit.judging.tui.lead import LeadApp
from relkit.judging.tui.topicpane import TopicPane


def project(tmp_path: Path) -> Store:
    """Two topics; ann+bob share topic 1, cy+ann topic 2 (overlap 1.0, three assessors).

    Cases: 1/d0 disagreement with a note, 1/d1 agreed but flagged, 1/d3 skipped
    with a reason (a note), 2/d0 disagreement. 1/d2 (agreed, nothing said) is none.
    """
    store = Store.open(tmp_path / "l.db")
    docs = [Document(f"d{i}", f"Title {i}", f"Text {i} about solar panels.") for i in range(4)]
    store.create_collection("c", TREC_DL, [
        Topic("1", "solar panels", "Find panels.", "NARRATIVE-WORDS here."),
        Topic("2", "heat pumps", "Find pumps.")], docs)
    store.import_pool([(t, d.id) for t in ("1", "2") for d in docs], name="p")
    store.assign(["ann", "bob", "cy"], overlap=1.0)
    ann, bob, cy = (store.assessor(n) for n in ("ann", "bob", "cy"))
    ann.record(topic="1", doc="d0", grade=0, dwell_ms=4200)
    bob.record(topic="1", doc="d0", grade=3, note="bob on d0", dwell_ms=12500)
    ann.record(topic="1", doc="d1", grade=2, flagged=True)
    bob.record(topic="1", doc="d1", grade=2)
    ann.record(topic="1", doc="d2", grade=1)
    bob.record(topic="1", doc="d2", grade=1)
    ann.record(topic="1", doc="d3", status="skipped", note="text is cut off")
    cy.record(topic="2", doc="d0", grade=1)
    ann.record(topic="2", doc="d0", grade=2)
    register_leads(store, ["lee"])
    return store


def text(widget: Any) -> str:
    """What a Static shows, as plain text (tables included)."""
    console = Console(width=78, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(widget.content)
    return console.export_text()


def listed(app: LeadApp) -> list[str]:
    return [f"{c.topic}/{c.doc}" for c in app.shown]


def run(store: Store, steps: Any, size: tuple[int, int] = (80, 24)) -> None:
    async def main() -> None:
        app = LeadApp(store, "lee")
        async with app.run_test(size=size) as pilot:
            await pilot.pause()
            await steps(pilot, app)

    asyncio.run(main())


def test_lead_sees_topic_scale_and_every_opinion_side_by_side(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        assert listed(app) == ["1/d0", "1/d1", "1/d3", "2/d0"]  # not 1/d2: nothing to settle
        opinions = text(app.query_one("#opinions"))
        ann, bob = opinions.splitlines()[:2]
        assert ann.split()[:5] == ["ann", "0", "Irrelevant", "4.2", "s"]
        assert bob.split()[:5] == ["bob", "3", "Perfectly", "relevant", "12.5"]
        assert "note: bob on d0" in bob
        # The topic pane of the judging screen, and its highlighted document.
        pane = app.query_one(TopicPane)
        assert "NARRATIVE-WORDS" in pane.plain
        doc = app.query_one(DocView)
        assert "Text 0 about solar panels." in doc.plain
        styled = {seg.text.strip().lower() for line in doc._wrapped.lines for seg in line
                  if seg.style and seg.style.bgcolor is not None or
                  seg.style and seg.style.reverse}
        assert {"solar", "panels"} <= styled, styled
        # The scale with its definitions.
        scale = text(app.query_one("#scale > .full"))  # the legend in full (legend.py)
        for g in TREC_DL.grades:
            assert g.label in scale
        assert TREC_DL.grades[0].definition.split()[0] in scale
        await pilot.press("down")  # 1/d1: agreed, but ann flagged it
        await pilot.pause()
        assert "⚑ flagged" in text(app.query_one("#opinions")).splitlines()[0]
        await pilot.press("down")  # 1/d3: skipped, with its reason
        await pilot.pause()
        assert "skipped" in text(app.query_one("#opinions"))
        assert "note: text is cut off" in text(app.query_one("#opinions"))

    run(store, steps)


def test_reason_is_saved_with_the_final_grade_and_the_list_moves_on(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.press("e")  # the reason field
        assert isinstance(app.focused, Input)
        await pilot.press(*"narrative says 2", "enter")
        await pilot.pause()
        await pilot.press("2")  # the final grade, saved with the reason
        await pilot.pause()
        status = str(app.query_one("#status").render())
        assert "saved: final 2 Highly relevant for 1/d0 (reason: narrative says 2)" in status
        ol = app.query_one("#pairs", OptionList)
        assert ol.highlighted == 1 and app.case is not None and app.case.doc == "d1"
        assert app.query_one("#reason", Input).value == ""  # d1 has no reason yet
        await pilot.press("1")  # no reason: fine
        await pilot.pause()
        assert app.case.doc == "d3"
        await pilot.press("up", "up")  # back to 1/d0: its reason, edited and saved by Enter
        await pilot.pause()
        assert app.query_one("#reason", Input).value == "narrative says 2"
        await pilot.press("e", "ctrl+u", *"per the narrative", "enter")
        await pilot.pause()

    run(store, steps)
    adj = {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}
    assert adj[("1", "d0")] == {"grade": 2, "lead": "lee", "note": "per the narrative"}
    assert adj[("1", "d1")] == {"grade": 1, "lead": "lee", "note": ""}
    assert {d.doc: d.adjudicated for d in disagreements(store) if d.topic == "1"} == {"d0": 2}


def test_the_same_grade_given_in_another_session_is_saved_with_the_reason_typed(
        tmp_path: Path) -> None:
    # Refused as unseen too; the status says the key saves it (no dialog: the grade is
    # the pair's, only the reason typed differs).
    from relkit.judging.store.decisions import adjudicate

    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        adjudicate(store, "lee", "1", "d0", 1, "bob is right")  # the lead's other tab
        await pilot.press("e", *"mine", "enter")
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause()
        status = " ".join(str(app.query_one("#status").render()).split())
        assert "is NOT saved: meanwhile lee gave 1/d0 the final grade 1" in status, status
        assert status.endswith("Press 1 again to save it."), status
        await pilot.press("1")
        await pilot.pause()
        assert "saved: final 1 Related for 1/d0 (reason: mine)" in str(
            app.query_one("#status").render())
        assert {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}[
            ("1", "d0")] == {"grade": 1, "lead": "lee", "note": "mine"}

    run(store, steps)


def test_a_final_grade_given_in_another_session_is_not_replaced_unseen(
        tmp_path: Path) -> None:
    # Over a final grade the screen never showed, the key is refused, the other one is
    # shown, and the same key again asks to replace it (the typed reason offered).
    from relkit.judging.store.decisions import adjudicate

    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        assert app.case is not None and app.case.doc == "d0" and app.case.final is None
        adjudicate(store, "lee", "1", "d0", 3, "bob is right")  # the lead's other tab
        await pilot.press("e", *"mine", "enter")
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause()
        status = " ".join(str(app.query_one("#status").render()).split())
        assert ("Final 1 Related for 1/d0 is NOT saved: meanwhile lee gave 1/d0 the final "
                "grade 3 (reason: bob is right) in another session; it is shown now. Press 1 "
                "again to change it (asks for the reason).") in status, status
        assert app.case.doc == "d0" and app.case.final == 3
        assert "3 Perfectly relevant by lee" in text(app.query_one("#final"))
        assert app.query_one("#reason", Input).value == "mine"
        assert {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}[
            ("1", "d0")] == {"grade": 3, "lead": "lee", "note": "bob is right"}
        await pilot.press("1")  # seen now: a change, confirmed with the reason typed
        await pilot.pause()
        assert app.screen.query_one(Input).value == "mine"
        await pilot.press("enter")
        await pilot.pause()
        assert "saved: final 1 Related for 1/d0 (reason: mine)" in str(
            app.query_one("#status").render())

    run(store, steps)
    adj = {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}
    assert adj[("1", "d0")] == {"grade": 1, "lead": "lee", "note": "mine"}


def test_filters_and_the_review_queue(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.press("v")  # the review queue: everything flagged or noted
        assert listed(app) == ["1/d0", "1/d1", "1/d3"]
        assert "review queue" in str(app.query_one("#head").render())
        await pilot.press("f")  # flagged only
        assert listed(app) == ["1/d1"]
        await pilot.press("f")  # again: every kind
        await pilot.press("d")  # disagreements
        assert listed(app) == ["1/d0", "2/d0"]
        await pilot.press("d", "n")  # noted (a skip's reason counts)
        assert listed(app) == ["1/d0", "1/d3"]
        await pilot.press("x")
        await pilot.press("g")  # one topic
        await pilot.pause()
        await pilot.press("2", "enter")
        await pilot.pause()
        assert listed(app) == ["2/d0"]
        await pilot.press("g")
        await pilot.pause()
        await pilot.press("ctrl+u", "9", "enter")  # no such topic: refused, filter kept
        await pilot.pause()
        assert listed(app) == ["2/d0"] and "topic 9" in str(app.query_one("#status").render())
        await pilot.press("x", "p")  # a pair of assessors: (every), ann+bob, ann+cy
        await pilot.pause()
        await pilot.press("down", "down", "enter")
        await pilot.pause()
        assert listed(app) == ["2/d0"] and "ann + cy" in str(app.query_one("#head").render())
        await pilot.press("x", "0")  # every pair again, 2/d0 still chosen: decided
        await pilot.pause()
        await pilot.press("u")  # undecided only
        assert listed(app) == ["1/d0", "1/d1", "1/d3"]
        assert "3 of 3 undecided" in str(app.query_one("#head").render())

    run(store, steps)


def test_filter_logic() -> None:
    from relkit.judging.store.adjudication import Case, Opinion

    a = Opinion("ann", 0, "judged", "", False, 0)
    b = Opinion("bob", 3, "judged", "why", False, 0)
    c = Case("1", "d0", (a, b), None, "", None)
    assert c.disagreement and c.noted and not c.flagged and not c.decided
    assert Filter("review").keeps(c) and not Filter("flagged").keeps(c)
    assert Filter(pair=("ann", "bob")).keeps(c) and not Filter(pair=("ann", "cy")).keeps(c)
    assert not Filter(topic="2").keeps(c) and Filter(undecided=True).keeps(c)


def test_cases_include_decided_pairs(tmp_path: Path) -> None:
    from relkit.judging.store.reports import adjudicate

    store = project(tmp_path)
    adjudicate(store, "lee", "1", "d2", 1, "checked")  # agreed, but decided anyway
    got = {(c.topic, c.doc): c for c in cases(store)}
    assert got[("1", "d2")].final == 1 and got[("1", "d2")].reason == "checked"


# -- who may open it ------------------------------------------------------------------
@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The leads whose screen `relkit judge --lead` opened (the screen itself not run)."""
    seen: list[str] = []
    # Tests have no terminal; the refusal without one is tested in test_tui_text.py.
    monkeypatch.setattr("relkit.judging.tui.cli.need_terminal", lambda: None)
    monkeypatch.setattr(LeadApp, "run", lambda self, *a, **k: seen.append(self.lead))
    return seen


def test_only_a_registered_lead_may_open_the_screen(tmp_path: Path,
                                                    opened: list[str]) -> None:
    store = project(tmp_path)
    db = str(tmp_path / "l.db")
    code, _, err = run_cli(["judge", "--db", db, "--lead", "ann"])
    assert code == 2 and opened == []
    (line,) = [x for x in err.splitlines() if x.strip()]
    assert "ann is an assessor, not a lead" in line and "Traceback" not in err
    code, _, err = run_cli(["judge", "--db", db, "--lead", "zed"])
    assert code == 2 and opened == [] and "no lead named 'zed'" in err
    assert "the leads are lee" in err
    code, _, err = run_cli(["judge", "--db", db, "--lead", "lee"])
    assert code == 0 and opened == ["lee"]
    # Registering: a new lead is fine, an assessor is refused with nothing changed.
    code, _, err = run_cli(["assign", "--db", db, "--lead", "mo"])
    assert code == 0 and "leads registered: mo" in err
    code, _, err = run_cli(["assign", "--db", db, "--lead", "bob", "--lead", "pat"])
    assert code == 1 and "bob: already an assessor" in err
    assert store.assessors(role="lead") == ["lee", "mo"]
    code, _, err = run_cli(["assign", "--db", db, "mo", "--topic", "1"])
    assert code == 1 and "mo: a lead here" in err
    code, _, err = run_cli(["judge", "--db", db, "--lead", "mo"])
    assert code == 0 and opened == ["lee", "mo"]
    # Nor does an assessor settle a pair from the command line.
    code, _, err = run_cli(["adjudicate", "1", "d0", "2", "--lead", "ann", "--db", db])
    assert code == 1 and "ann is an assessor, not a lead" in err
    assert all(c.final is None for c in cases(store))


def test_undecided_only_moves_on_in_place_and_ends_empty(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.press("u", "down")  # undecided only; 1/d1
        await pilot.press("2")  # decided: it leaves the list, the next moves up into its place
        await pilot.pause()
        assert listed(app) == ["1/d0", "1/d3", "2/d0"]
        assert app.case is not None and (app.case.topic, app.case.doc) == ("1", "d3")
        await pilot.press("0", "0", "0")  # 1/d3, then 2/d0, then (wrapping) 1/d0
        await pilot.pause()
        assert listed(app) == [] and app.case is None
        assert "every pair shown has a final grade" in str(app.query_one("#status").render())
        assert "x clears the filters" in text(app.query_one("#opinions"))
        # Nothing stale: no topic, no document, no reason field for a pair that is gone.
        assert not app.query(TopicPane) and app.query_one(DocView).plain == ""
        assert not app.query_one("#decision").display

    run(store, steps)


def test_lead_screen_runs_full_collections_only_when_idle(tmp_path: Path) -> None:
    # `relkit judge --lead` and `relkit serve` run the lead's app as the assessor's:
    # the cycle collector's full passes wait for a second without input.
    import gc

    threshold = gc.get_threshold()
    seen: list[tuple[int, int, int]] = []

    async def main() -> None:
        app = LeadApp(project(tmp_path), "lee", idle_gc=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            await pilot.pause()
            assert app.heap is not None and app.heap.running
            seen.append(gc.get_threshold())
            await pilot.press("down")
            assert app.heap.clock() - app.heap.last_input < 1.0  # the key was seen

    try:
        asyncio.run(main())
    finally:
        gc.unfreeze()
    assert seen[0][2] > threshold[2] and gc.get_threshold() == threshold


def test_a_refused_final_grade_keeps_its_pair_on_screen_under_a_filter(
        tmp_path: Path) -> None:
    """"Undecided only", and another session decides the pair shown: the refusal keeps
    that pair on screen (the filter would drop it), so the key it asks for decides it,
    not the next pair."""
    store = project(tmp_path)

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.press("u")
        await pilot.pause()
        assert app.case is not None and (app.case.topic, app.case.doc) == ("1", "d0")
        adjudicate(store, "lee", "1", "d0", 3, "bob is right")  # another session
        await pilot.press("e", *"mine", "enter")
        await pilot.pause()
        await pilot.press("1")
        await pilot.pause()
        assert "NOT saved" in text(app.query_one("#status"))
        assert app.case is not None and (app.case.topic, app.case.doc) == ("1", "d0")
        assert app.case.final == 3
        await pilot.press("1")                                  # as the status line asks
        await pilot.pause()
        await pilot.press("enter")                              # the change, confirmed
        await pilot.pause()

    run(store, steps)
    adj = {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}
    assert adj[("1", "d0")] == {"grade": 1, "lead": "lee", "note": "mine"}
    assert [k for k, v in adj.items() if v] == [("1", "d0")]   # no other pair decided
