"""The judging screen against a real PostgreSQL server made unreachable and restored.

No mock anywhere: the project's database refuses new connections and its open ones
are terminated (what a server restart looks like from the client), under a running
Pilot session; then connections are allowed again.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from sqlalchemy import create_engine, text

from helpers import PG_URL, fresh_pg_database
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.cli import finish
from relkit.judging.tui.judge import JudgeScreen
from relkit.judging.tui.modals import ReviseScreen
from tui_helpers import Clock, drive, screen


@pytest.fixture
def pg() -> Iterator[tuple[str, Callable[[bool], None]]]:
    """A fresh project database on the real server, and ``outage(on)`` to cut it off."""
    if not PG_URL:
        if os.environ.get("RELKIT_REQUIRE_PG"):
            pytest.fail("RELKIT_REQUIRE_PG is set but RELKIT_TEST_PG is not")
        pytest.skip("PostgreSQL not available: set RELKIT_TEST_PG (see .ci/postgres)")
    url, drop = fresh_pg_database(PG_URL)
    name = url.rsplit("/", 1)[1]
    admin = create_engine(PG_URL.replace("postgresql://", "postgresql+psycopg://", 1),
                          isolation_level="AUTOCOMMIT")

    def outage(on: bool) -> None:
        with admin.connect() as conn:
            conn.execute(text(f'ALTER DATABASE "{name}" ALLOW_CONNECTIONS {str(not on)}'))
            if on:
                conn.execute(text("SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
                                  "WHERE datname = :n"), {"n": name})

    store = Store.open(url)
    docs = [Document(f"d{i}", f"T{i}", f"text {i}") for i in range(3)]
    store.create_collection("c", TREC_DL, [Topic("1", "t")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann", "bob"], overlap=1.0)  # bob: for the lead's disagreements
    store.engine.dispose()
    try:
        yield url, outage
    finally:
        outage(False)
        admin.dispose()
        drop()


def _banner(s: JudgeScreen) -> str:
    return str(s.query_one("#banner").render())


def test_outage_keeps_the_grade_pending_until_it_is_saved(pg: Any) -> None:
    url, outage = pg

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        await pilot.pause()
        s = screen(app)
        assert s.item is not None and s.item.position == 1
        outage(True)
        clock.t += 5
        await pilot.press("2")
        assert s.item.position == 1  # not moved on: nothing was committed
        assert "NOT saved" in _banner(s) and "2 Highly relevant" in _banner(s)
        await pilot.pause(1.2)  # a retry fails too: still pending, still here
        assert s.item.position == 1 and s.pending is not None
        # Every key that reads the store waits for the save and says so; none crashes.
        for key, doing in (("r", "Revising"), ("b", "Going back"), ("u", "Jumping"),
                           ("right", "Moving on"), ("escape", "topic list"),
                           ("f", "flag"), ("3", "next judgment")):
            clock.t += 5
            await pilot.press(key)
            await pilot.pause()
            assert app.screen is s, key
            assert "NOT saved" in _banner(s) and doing in _banner(s), key
        assert s.pending is not None and s.pending["grade"] == 2 and not s.pending["flagged"]
        outage(False)
        for _ in range(30):
            await pilot.pause(0.2)
            if s.item.position == 2:
                break
        assert s.item.position == 2 and s.pending is None
        assert _banner(s) == ""
        assert "saved: 2 Highly relevant, d0" in str(s.query_one("#state").render())
        await pilot.press("r")  # the store is back: the revise list opens, with d0 in it
        await pilot.pause()
        assert isinstance(app.screen, ReviseScreen)
        assert [i.doc for i in app.screen.judged] == ["d0"]
        await pilot.press("escape")
        await pilot.pause()
        outage(True)  # nothing pending: a read that fails is a banner, not a crash
        await pilot.press("b")
        await pilot.pause()
        assert app.screen is s and s.item.position == 2
        assert "Database unreachable: going back is not possible now" in _banner(s)
        outage(False)
        await pilot.press("b")
        await pilot.pause()
        assert s.item.position == 1 and "Your grade: 2" in str(s.query_one("#state").render())
        assert _banner(s) == ""

    drive(Store.open(url), steps)
    (j,) = Store.open(url).assessor("ann").judgments("1")
    assert (j.doc, j.grade, j.flagged) == ("d0", 2, False)


def test_quitting_with_an_unsaved_grade_says_so_and_fails(
        pg: Any, capsys: pytest.CaptureFixture[str]) -> None:
    url, outage = pg
    apps: list[JudgeApp] = []

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        apps.append(app)
        await pilot.press("enter")
        await pilot.pause()
        outage(True)
        clock.t += 5
        await pilot.press("2")
        assert screen(app).pending is not None
        await pilot.press("ctrl+q")  # first: a warning, the app stays
        await pilot.pause()
        assert app.is_running and app.screen.pending is not None  # type: ignore[attr-defined]
        await pilot.press("ctrl+q")

    drive(Store.open(url), steps)
    (app,) = apps
    capsys.readouterr()
    assert finish(app) == 1
    err = capsys.readouterr().err
    assert "NOT saved" in err and "2 Highly relevant for document d0 of topic 1" in err
    assert "judgments are saved" not in err
    # The server is back: the same report saves it on the way out.
    outage(False)
    assert app.outbox.record is not None
    assert finish(app) == 0  # nothing lost after all
    assert "saved on the way out" in capsys.readouterr().err
    (j,) = Store.open(url).assessor("ann").judgments("1")
    assert (j.doc, j.grade) == ("d0", 2)


def test_a_crash_exits_nonzero_and_says_what_was_not_saved(
        pg: Any, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    url, outage = pg
    apps: list[JudgeApp] = []

    def boom(self: JudgeScreen) -> None:
        raise RuntimeError("a bug in a key handler")

    monkeypatch.setattr(JudgeScreen, "action_help", boom)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        apps.append(app)
        await pilot.press("enter")
        await pilot.pause()
        outage(True)
        clock.t += 5
        await pilot.press("2")
        await pilot.press("question_mark")
        await pilot.pause()

    with pytest.raises(RuntimeError):
        drive(Store.open(url), steps)
    (app,) = apps
    capsys.readouterr()
    assert finish(app) == 1
    err = capsys.readouterr().err
    assert "NOT saved" in err and "document d0" in err and "judgments are saved" not in err


def test_relkit_judge_exits_nonzero_when_a_grade_is_not_saved(
        pg: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    # The app's run is replaced by its outcome (a terminal is needed for the real one):
    # a grade left pending while the server is away, or a crash.
    from helpers import run_cli

    url, outage = pg

    def quit_pending(self: JudgeApp) -> None:
        self.outbox.put(dict(topic="1", doc="d1", grade=3, status="judged", note="",
                             flagged=False, dwell_ms=1000))
        outage(True)

    monkeypatch.setattr(JudgeApp, "run", quit_pending)
    # run_cli has no terminal; the screen is replaced, so let it through
    monkeypatch.setattr("relkit.judging.tui.cli.need_terminal", lambda: None)
    code, _, err = run_cli(["judge", "--db", url, "--assessor", "ann"])
    assert code == 1
    assert "NOT saved: ann's 3 Perfectly relevant for document d1 of topic 1" in err
    assert "judgments are saved" not in err
    outage(False)

    def crash(self: JudgeApp) -> None:
        self._return_code = 1

    monkeypatch.setattr(JudgeApp, "run", crash)
    code, _, err = run_cli(["judge", "--db", url, "--assessor", "ann"])
    assert code == 1 and "stopped on an error" in err and "judgments are saved" not in err


def _lead_pair(url: str) -> Store:
    store = Store.open(url)
    store.assessor("ann").record(topic="1", doc="d0", grade=0)
    store.assessor("bob").record(topic="1", doc="d0", grade=3)
    return store


async def _until(pilot: Any, done: Callable[[], bool], seconds: float = 8.0) -> None:
    for _ in range(int(seconds / 0.2)):
        if done():
            return
        await pilot.pause(0.2)


def test_lead_final_grade_is_kept_retried_and_saved_once(pg: Any) -> None:
    """Issue 33: a final grade refused during an outage was dropped (the lead had to
    press it again, and quitting said nothing); now it waits in the outbox and is saved
    once, by itself, when the database returns."""
    import asyncio

    from relkit.judging.store.decisions import decision_history
    from relkit.judging.tui.lead import LeadApp

    url, outage = pg
    store = _lead_pair(url)

    async def main() -> None:
        app = LeadApp(store, "lee")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            outage(True)
            await pilot.press("2")
            await pilot.pause()
            status = lambda: str(app.query_one("#status").render())  # noqa: E731
            assert "final 2 Highly relevant for 1/d0 is NOT saved yet" in status()
            assert app.outbox.record is not None and app.outbox.record["grade"] == 2
            await pilot.pause(1.3)  # a retry fails too: still kept, still said
            assert app.outbox.record is not None and app.outbox.attempts >= 2
            await pilot.press("3")  # another decision waits for this one
            await pilot.pause()
            assert app.outbox.record["grade"] == 2 and "Not now" in status()
            outage(False)  # no key: the retry saves it
            await _until(pilot, lambda: app.outbox.record is None)
            assert app.outbox.record is None
            await _until(pilot, lambda: "saved" in status())
            assert "saved once the database was back: final 2" in status(), status()

    asyncio.run(main())
    history = decision_history(Store.open(url), "1", "d0")
    assert [h.grade for h in history] == [2]  # saved once


def test_lead_quitting_with_an_unsaved_final_grade_warns_and_exits_1(
        pg: Any, capsys: pytest.CaptureFixture[str]) -> None:
    import asyncio

    from relkit.judging.store.decisions import decision_history
    from relkit.judging.tui.cli import finish_lead
    from relkit.judging.tui.lead import LeadApp

    url, outage = pg
    app = LeadApp(_lead_pair(url), "lee")

    async def main() -> None:
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            outage(True)
            await pilot.press("2")
            await pilot.pause()
            await pilot.press("q")  # first: a warning, the app stays
            await pilot.pause()
            assert app.is_running and app.outbox.record is not None
            await pilot.press("q")

    asyncio.run(main())
    capsys.readouterr()
    assert finish_lead(app) == 1
    err = capsys.readouterr().err
    assert "NOT saved: lee's final 2 Highly relevant for 1/d0" in err, err
    outage(False)  # back: the same report saves it on the way out
    assert finish_lead(app) == 0
    assert "saved on the way out: final 2" in capsys.readouterr().err
    assert [h.grade for h in decision_history(Store.open(url), "1", "d0")] == [2]


def test_relkit_judge_lead_exits_1_when_a_final_grade_is_not_saved(
        pg: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    from helpers import run_cli
    from relkit.judging.store.adjudication import register_leads
    from relkit.judging.tui.lead import LeadApp

    url, outage = pg
    register_leads(_lead_pair(url), ["lee"])

    def quit_pending(self: LeadApp) -> None:
        self.outbox.put(dict(topic="1", doc="d0", grade=3, note="bob is right",
                             shown=(None, "")))
        outage(True)

    monkeypatch.setattr(LeadApp, "run", quit_pending)
    monkeypatch.setattr("relkit.judging.tui.cli.need_terminal", lambda: None)
    code, _, err = run_cli(["judge", "--db", url, "--lead", "lee"])
    assert code == 1, err
    assert "NOT saved: lee's final 3 Perfectly relevant for 1/d0 (reason: bob is right)" in err
