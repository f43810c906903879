"""Skip and judge-later differ (issue 16, item 8).

*Judge later* moves a document to the end of the topic's queue (also across a
restart); *skip* sets it aside for good, with an optional reason kept as the
note, reachable from the revise list; ``relkit status`` counts skipped items
apart from done and pending.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from textual.widgets import OptionList

from helpers import run_cli
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.tui.app import JudgeApp
from relkit.judging.tui.modals import SkipScreen
from tui_helpers import Clock, drive, read_and_press, screen


def project(tmp_path: Path, n: int = 4) -> Store:
    store = Store.open(tmp_path / "s.db")
    docs = [Document(f"d{i}", f"Title {i}", f"Text {i}.") for i in range(n)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar panels")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann"])
    return store


def test_later_goes_to_the_end_of_the_topic_also_after_a_restart(tmp_path: Path) -> None:
    store = project(tmp_path)
    store.assessor("ann").record(topic="1", doc="d0", status="later")
    store.assessor("ann").record(topic="1", doc="d1", status="later")
    view = store.assessor("ann")  # a fresh view: what a resumed session sees
    # Resuming starts with the untouched documents, not with the ones put off.
    assert view.next_item("1").doc == "d2"  # type: ignore[union-attr]
    view.record(topic="1", doc="d2", grade=1)
    view.record(topic="1", doc="d3", grade=1)
    # Then the put-off ones, in the order they were put off.
    assert view.next_item("1", after=4).doc == "d0"  # type: ignore[union-attr]
    view.record(topic="1", doc="d0", status="later")  # put off again: behind d1 now
    assert view.next_item("1").doc == "d1"  # type: ignore[union-attr]


def test_skip_asks_for_a_reason_and_sets_the_document_aside(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def steps(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        await read_and_press(pilot, clock, "s")           # d0: the reason dialog
        assert isinstance(app.screen, SkipScreen)
        await pilot.press(*"not in English", "enter")
        await pilot.pause()
        s = screen(app)
        assert s.item is not None and s.item.doc == "d1"
        await read_and_press(pilot, clock, "s")
        await pilot.press("escape")                         # cancelled: d1 stays
        await pilot.pause()
        assert screen(app).item.doc == "d1"  # type: ignore[union-attr]
        await read_and_press(pilot, clock, "l")           # d1: to the end
        assert s.item.doc == "d2"
        await read_and_press(pilot, clock, "2", "3")      # d2, d3
        assert s.item.doc == "d1"  # the put-off one comes back; the skipped one does not
        await read_and_press(pilot, clock, "1")
        assert s.complete
        state = str(s.query_one("#state").render())
        assert "3 of 4 judged, 1 skipped (r to revisit)" in state
        await pilot.press("r")                              # the revise list reaches d0
        await pilot.pause()
        ol = app.screen.query_one("#judged-list", OptionList)
        labels = [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]
        assert any("d0  ✎ skipped: not in English" in x for x in labels), labels

    drive(store, steps)
    got = {j.doc: (j.grade, j.status, j.note) for j in store.assessor("ann").judgments("1")}
    assert got["d0"] == (None, "skipped", "not in English")
    assert got["d1"] == (1, "judged", "")

    async def resume(pilot: Any, app: JudgeApp, clock: Clock) -> None:
        await pilot.press("enter")
        s = screen(app)
        assert s.complete  # the skipped d0 is not pending: nothing left to judge

    drive(store, resume)


def test_status_counts_skipped_apart_from_done_and_pending(tmp_path: Path) -> None:
    store = project(tmp_path, n=5)
    ann = store.assessor("ann")
    ann.record(topic="1", doc="d0", grade=2)
    ann.record(topic="1", doc="d1", status="skipped", note="broken text")
    ann.record(topic="1", doc="d2", status="later")
    db = str(tmp_path / "s.db")
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, err
    (a,) = json.loads(out)["assessors"]
    # 5 items: 1 done, 1 skipped, 3 pending (d2 put off, d3 and d4 untouched).
    assert (a["items"], a["done"], a["skipped"], a["pending"], a["later"]) == (5, 1, 1, 3, 1)
    (t,) = json.loads(out)["topics"]
    assert (t["done"], t["skipped"]) == (1, 1)
    code, out, err = run_cli(["status", "--db", db])
    assert code == 0, err
    head, row = out.splitlines()[:2]
    assert head.split()[:7] == ["assessor", "topics", "items", "done", "skipped", "pending",
                                "later"]
    assert row.split()[:7] == ["ann", "1", "5", "1", "1", "3", "1"]
