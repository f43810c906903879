"""The lead's adjudication screen (Pilot, SQLite; the outage case is in test_tui_outage)."""

from __future__ import annotations

import asyncio
from pathlib import Path

from textual.widgets import OptionList

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.reports import disagreements
from relkit.judging.store import Store
from relkit.judging.tui.lead import LeadApp


def project(tmp_path: Path) -> Store:
    store = Store.open(tmp_path / "l.db")
    docs = [Document(f"d{i}", f"Title {i}", f"Text {i}.") for i in range(3)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar panels", "Find panels.",
                                                  "NARRATIVE-WORDS here.")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann", "bob"], overlap=1.0)
    for doc in ("d0", "d1", "d2"):
        store.assessor("ann").record(topic="1", doc=doc, grade=0)
        store.assessor("bob").record(topic="1", doc=doc, grade=3, note=f"bob on {doc}")
    return store


def test_lead_sees_the_topic_and_the_scale_and_gets_an_acknowledgement(tmp_path: Path) -> None:
    store = project(tmp_path)

    async def main() -> None:
        app = LeadApp(store, "lee")
        async with app.run_test(size=(80, 24)) as pilot:
            await pilot.pause()
            head = str(app.query_one("#head").render())
            for g in TREC_DL.grades:
                assert f"{g.value}  {g.label}" in head
            detail = str(app.query_one("#detail-text").render())
            assert detail.index("bob: 3") < detail.index("Topic 1: solar panels")
            assert "NARRATIVE-WORDS" in detail and "Text 0." in detail
            await pilot.press("2")
            await pilot.pause()
            assert "saved: final 2 Highly relevant for 1/d0" in str(
                app.query_one("#status").render())
            ol = app.query_one("#pairs", OptionList)
            assert ol.highlighted == 1  # on to the next pair to settle
            await pilot.press("1")
            await pilot.pause()

    asyncio.run(main())
    finals = {d.doc: d.adjudicated for d in disagreements(store)}
    assert finals == {"d0": 2, "d1": 1, "d2": None}
