"""A cal topic's first batch is trained before the key that opens it (issue 36):
``AssessorView.warm`` makes each adaptive topic's next pick ahead (the judging app calls
it in a thread while the topic list is on screen), and the order stays the library's:
warmed or not, the same seed gives the same documents. No timed assertions: the checks
are on which thread fitted the model and on the documents shown."""

from __future__ import annotations

import asyncio
import json
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from relkit.judging.store.assign import Store
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.cal import plan as cal_plan
from relkit.pooling.cal import worker
from relkit.pooling.cal.strategy import with_collection
from relkit.pooling.candidates import Candidates

WORDS = ["wing flutter", "wing lift", "cats", "dogs", "birds sing", "fish swim",
         "wing tip vortex", "boats"]
DOCS = {f"d{i:02d}": WORDS[(i * 5) % len(WORDS)] for i in range(40)}
TOPICS = {"1": "wing", "2": "cats dogs"}
BUDGET = 8


def _grade(d: str) -> int:
    return int("wing" in DOCS[d])


def _project(tmp_path: Path, *extra: str) -> str:
    (tmp_path / "docs.jsonl").write_text("".join(
        json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in DOCS.items()))
    (tmp_path / "topics.tsv").write_text("".join(f"{k}\t{t}\n" for k, t in TOPICS.items()))
    run = tmp_path / "r.txt"
    run.write_text("".join(f"{t} Q0 {d} {k} {50 - k} r\n" for t in TOPICS
                           for k, d in enumerate(DOCS, 1) if k <= 10))
    db = str(tmp_path / "p.db")
    assert run_cli(["init", "--topics", str(tmp_path / "topics.tsv"), "--docs",
                    str(tmp_path / "docs.jsonl"), "--scale", "binary", "--db", db])[0] == 0
    code, _, err = run_cli(["pool", str(run), "--strategy", "cal", "--from", "collection",
                            "--depth", "10", "--budget", str(BUDGET), "--db", db])
    assert code == 0, err
    assert run_cli(["assign", "ann", *extra, "--db", db])[0] == 0
    return db


def _expected(tmp_path: Path, topic: str) -> list[str]:
    """The library's order on the same text: AdaptivePool, no store, no thread."""
    from relkit.pooling.cal.texts import TextSource
    from relkit.pooling.cli import load_runs

    c = Candidates.from_runs(load_runs([tmp_path / "r.txt"], warn=False), 10, [topic])
    c = with_collection(Candidates(c.lists, c.scores, c.depth,
                                   text=TextSource(DOCS, TOPICS)), DOCS)
    pool = AdaptivePool("cal", c, {"from": "collection"}, seed=0, level=1, max_grade=1)
    return [j.doc for j in pool.run(topic, _grade, BUDGET)]


@pytest.fixture
def fits(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[str]]:
    """The threads that fitted a model (the plans in this process: no training process)."""
    monkeypatch.setattr(worker, "ENABLED", False)
    fit, lock, who = cal_plan.fit_scores, threading.Lock(), []

    def counted(*a: Any, **k: Any) -> Any:
        with lock:
            who.append(threading.current_thread().name)
        return fit(*a, **k)

    monkeypatch.setattr(cal_plan, "fit_scores", counted)
    yield who


def test_a_topics_first_batch_is_trained_before_its_first_key(
        tmp_path: Path, fits: list[str]) -> None:
    db = _project(tmp_path)
    view = Store.open(db).assessor("ann")
    assert view.warm() == ["1", "2"]
    assert fits.count("MainThread") == 2          # each topic's first batch, by warm()
    fits.clear()
    item = view.next_item("1")                    # the key that opens the topic
    assert item is not None and "MainThread" not in fits   # nothing trained on it
    # warmed, the order is the library's; and the same after a restart, warmed or not
    shown = []
    for k in range(BUDGET):
        if k == 3:
            view = Store.open(db).assessor("ann")
            view.warm()
        item = view.next_item("1")
        assert item is not None
        shown.append(item.doc)
        view.record(topic="1", doc=item.doc, grade=_grade(item.doc))
    assert view.next_item("1") is None
    assert shown == _expected(tmp_path, "1")


def test_warming_stops_when_asked_and_writes_nothing(tmp_path: Path,
                                                     fits: list[str]) -> None:
    db = _project(tmp_path, "bob", "--overlap", "0.5")
    assert Store.open(db).assessor("ann").warm(lambda: True) == []
    for name in ("ann", "bob"):   # a topic followed (overlap): the primary's sequence
        view = Store.open(db).assessor(name)
        with view.store.read() as s:
            follows = {k for k, a in view._assignments(s).items() if a.follows_id is not None}
        assert set(view.warm()) == set(TOPICS) - follows
        for topic in TOPICS:      # nothing written
            assert view.progress(topic)[0] == 0 and view.items(topic) == []
    assert follows and fits


def test_the_app_trains_a_topics_first_batch_while_the_list_is_shown(
        tmp_path: Path, fits: list[str]) -> None:
    from relkit.judging.tui.app import Settings, make_app
    from relkit.judging.tui.judge import JudgeScreen

    db = _project(tmp_path)

    async def judge() -> tuple[list[str], str]:
        app = make_app(Store.open(db), "ann", Settings(min_view=0.0))
        async with app.run_test(size=(100, 40)) as pilot:
            await pilot.pause()
            for _ in range(600):       # the warming thread, waited for by the clock
                if app.warming is not None and not app.warming.is_alive():
                    break
                await pilot.pause(0.05)
            before = list(fits)
            await pilot.press("enter")
            await pilot.pause()
            screen = app.screen
            assert isinstance(screen, JudgeScreen) and screen.item is not None
            return fits[len(before):], screen.item.doc

    on_enter, doc = asyncio.run(judge())
    assert "MainThread" not in on_enter and fits.count("relkit-warm") >= 2
    assert doc == _expected(tmp_path, "1")[0]


def test_a_topic_opened_meanwhile_stops_the_warming_before_it_trains(
        tmp_path: Path, fits: list[str]) -> None:
    """The screen's thread waits for the picker's lock while a topic is warmed: once a
    topic has opened (``stop()`` true), the warming trains no batch of the topic it is
    on, so the opened topic waits for no other topic's training (review, wave 8)."""
    db = _project(tmp_path)
    view = Store.open(db).assessor("ann")
    asked: list[int] = []

    def stop() -> bool:      # false when topic 1's warming starts, true from then on
        asked.append(1)
        return len(asked) > 1

    view.warm(stop)
    assert fits == [] and len(asked) >= 2
    item = view.next_item("1")                    # trained on the key, as unwarmed
    assert item is not None and fits[:1] == ["MainThread"]
    assert item.doc == _expected(tmp_path, "1")[0]
