"""The lead's screen: a decided pair's final grade changes only when confirmed, with the
reason for the change, and the old decision stays in the history (issue 32).

A stray digit on a decided pair used to replace its grade at once and keep the old
reason, leaving no trace of the decision before. (Pilot, SQLite; project() is the
lead screen tests' own.)
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import Input

from relkit.judging.store.decisions import adjudicate, decision_history
from relkit.judging.tui.lead import LeadApp
from relkit.judging.tui.lead_modals import ChangeDecisionScreen
from test_tui_lead import project, run, text


def _held(store: Any) -> list[tuple[int | None, int, str]]:
    return [(h.old_grade, h.grade, h.note) for h in decision_history(store, "1", "d0")]


def test_a_digit_on_a_decided_pair_asks_and_esc_changes_nothing(tmp_path: Path) -> None:
    store = project(tmp_path)
    adjudicate(store, "lee", "1", "d0", 2, "narrative says 2")

    async def steps(pilot: Any, app: LeadApp) -> None:
        assert app.case is not None and (app.case.doc, app.case.final) == ("d0", 2)
        await pilot.press("0")                               # the stray digit
        await pilot.pause()
        assert isinstance(app.screen, ChangeDecisionScreen)
        dialog = " ".join(str(w.render()) for w in app.screen.query("Static"))
        assert "1/d0 from 2 Highly relevant to 0 Irrelevant" in dialog
        assert "narrative says 2" in dialog                  # the reason it replaces
        assert app.screen.query_one(Input).value == ""       # a new reason, not the old
        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, ChangeDecisionScreen)
        assert _held(store) == [(None, 2, "narrative says 2")]
        assert "keeps its final grade 2" in text(app.query_one("#status"))
        assert app.case.final == 2
        await pilot.press("0")
        await pilot.pause()
        await pilot.press("enter")                           # no reason: not saved
        await pilot.pause()
        assert isinstance(app.screen, ChangeDecisionScreen)
        assert "needs its reason" in str(app.screen.query_one("#change-needs").render())
        assert _held(store) == [(None, 2, "narrative says 2")]
        await pilot.press(*"ann is right", "enter")
        await pilot.pause()
        assert not isinstance(app.screen, ChangeDecisionScreen)
        assert "saved: final 0 Irrelevant for 1/d0 (reason: ann is right)" in text(
            app.query_one("#status"))

    run(store, steps)
    assert _held(store) == [(None, 2, "narrative says 2"), (2, 0, "ann is right")]


def test_the_same_decision_again_is_no_change_on_screen(tmp_path: Path) -> None:
    store = project(tmp_path)
    adjudicate(store, "lee", "1", "d0", 2, "narrative says 2")

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.press("2")                               # the grade it holds
        await pilot.pause()
        assert not isinstance(app.screen, ChangeDecisionScreen)
        assert "Unchanged: 1/d0 has the final grade 2 already" in text(
            app.query_one("#status"))
        # a new reason for the same grade is a change: saved (Enter in the reason field)
        await pilot.press("e", "ctrl+u", *"per the narrative", "enter")
        await pilot.pause()

    run(store, steps)
    assert _held(store) == [(None, 2, "narrative says 2"), (2, 2, "per the narrative")]


def test_a_reason_typed_before_the_digit_is_offered_in_the_dialog(tmp_path: Path) -> None:
    store = project(tmp_path)
    adjudicate(store, "lee", "1", "d0", 2, "narrative says 2")

    async def steps(pilot: Any, app: LeadApp) -> None:
        # typed, then Esc back to the list (Enter would save it with grade 2 at once)
        await pilot.press("e", "ctrl+u", *"bob measured it", "escape", "3")
        await pilot.pause()
        assert isinstance(app.screen, ChangeDecisionScreen)
        assert app.screen.query_one(Input).value == "bob measured it"
        await pilot.press("enter")
        await pilot.pause()

    run(store, steps)
    assert _held(store) == [(None, 2, "narrative says 2"), (2, 3, "bob measured it")]


def test_the_dialog_shows_the_pairs_decisions_so_far(tmp_path: Path) -> None:
    """The history was kept but a lead changing a grade could not see it (only the
    JSONL dump showed it): the dialog lists the latest changes, newest last."""
    store = project(tmp_path)
    adjudicate(store, "lee", "1", "d0", 2, "narrative says 2")
    for i, g in enumerate([3, 1, 2, 0, 3]):
        adjudicate(store, "kim", "1", "d0", g, f"round {i}")

    async def steps(pilot: Any, app: LeadApp) -> None:
        await pilot.press("1")
        await pilot.pause()
        assert isinstance(app.screen, ChangeDecisionScreen)
        shown = str(app.screen.query_one("#change-history").render())
        assert "(2 earlier not shown)" in shown
        lines = [line.strip() for line in shown.splitlines()[1:]]
        assert [line.split(" ", 2)[2] for line in lines] == [
            "kim: 3 -> 1 (round 1)", "kim: 1 -> 2 (round 2)", "kim: 2 -> 0 (round 3)",
            "kim: 0 -> 3 (round 4)"]
        await pilot.press("escape")

    run(store, steps)
