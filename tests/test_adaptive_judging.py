"""Adaptive pools through the judging store and the TUI.

The oracle for every sequence is :meth:`relkit.pooling.adaptive.AdaptivePool.run` (or
its next/record/skip) on the same candidates, seed and grades: what an assessor
is shown through the store must be exactly what the strategy picks when fed the
judgments in the order they were made.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select

from helpers import run_cli
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store import adaptive
from relkit.judging.store.assign import Store
from relkit.judging.store.models import StoreError
from relkit.judging.store.tables import AssignmentItemRow, AssignmentRow, PoolRow
from relkit.metrics.data import Run
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError

DOCS = [f"d{i:02d}" for i in range(40)]
TOPICS = ("1", "007")
VARIANTS = [("mtf", {}), ("bandit", {"policy": "maxmean"}), ("bandit", {"policy": "thompson"}),
            ("hedge", {}), ("rbp-adaptive", {"method": "c"})]


def run_texts(seed: int = 3, n_runs: int = 5, length: int = 15) -> dict[str, str]:
    rng = random.Random(seed)
    runs = {}
    for r in range(n_runs):
        lines = []
        for t in TOPICS:
            for k, d in enumerate(rng.sample(DOCS, length), 1):
                lines.append(f"{t} Q0 {d} {k} {100 - k} r{r}")
        runs[f"r{r}"] = "\n".join(lines) + "\n"
    return runs


def make_runs() -> dict[str, Run]:
    return {name: Run.read(text) for name, text in run_texts().items()}


def grades(seed: int = 11) -> dict[tuple[str, str], int]:
    rng = random.Random(seed)
    return {(t, d): rng.choice([0, 0, 0, 1, 2, 3]) for t in TOPICS for d in DOCS}


GRADES = grades()


def oracle(topic: str) -> Callable[[str], int]:
    return lambda d: GRADES[(topic, d)]


def project(url: str, strategy: str = "bandit", params: dict[str, Any] | None = None, *,
            budget: int | None = 10, total: int | None = None, seed: int = 5,
            assessors: tuple[str, ...] = ("ann",), overlap: float = 0.0,
            depth: int = 10) -> tuple[Store, Candidates]:
    store = Store.open(url)
    store.create_collection("c", TREC_DL, [Topic(t, f"topic {t}") for t in TOPICS],
                            [Document(d, f"Title {d}", f"Text of {d}.") for d in DOCS])
    cands = Candidates.from_runs(make_runs(), depth)
    adaptive.import_pool(store, cands, adaptive.Definition(strategy, params or {}, seed,
                                                           budget, total), name="ad")
    store.assign(list(assessors), overlap=overlap, seed=1)
    return store, cands


def reference(cands: Candidates, strategy: str, params: dict[str, Any], topic: str,
              budget: int, seed: int = 5) -> list[str]:
    # TREC DL: grades >= 2 are relevant (its threshold), 3 is full gain.
    pool = AdaptivePool(strategy, cands, params, seed=seed, level=2, max_grade=3)
    return [j.doc for j in pool.run(topic, oracle(topic), budget)]


def judge_all(store: Store, who: str, topic: str, stop: int | None = None) -> list[str]:
    view = store.assessor(who)
    shown: list[str] = []
    while stop is None or len(shown) < stop:
        item = view.next_item(topic)
        if item is None:
            break
        # Idempotent: the TUI asks again (to pre-wrap) before any judgment.
        again = view.next_item(topic, item.position)
        assert again is not None and again.doc == item.doc
        shown.append(item.doc)
        view.record(topic=topic, doc=item.doc, grade=GRADES[(topic, item.doc)])
    return shown


@pytest.mark.parametrize(("strategy", "params"), VARIANTS)
def test_sequence_equals_adaptive_pool_run(db_url: str, strategy: str,
                                           params: dict[str, Any]) -> None:
    store, cands = project(db_url, strategy, params, assessors=("ann",))
    for t in TOPICS:
        shown = judge_all(store, "ann", t)
        assert shown == reference(cands, strategy, params, t, 10)
        assert len(shown) == 10  # the budget, then nothing more is offered
        assert store.assessor("ann").progress(t) == (10, 10)
    assert [x.total for x in store.assessor("ann").topics()] == [10, 10]


def test_the_sequence_depends_on_the_judgments_and_the_seed(db_url: str) -> None:
    store, cands = project(db_url, "bandit", {"policy": "thompson"})
    shown = judge_all(store, "ann", "1")
    flipped = AdaptivePool("bandit", cands, {"policy": "thompson"}, seed=5, level=2,
                           max_grade=3).run("1", lambda d: 3 - GRADES[("1", d)], 10)
    other_seed = reference(cands, "bandit", {"policy": "thompson"}, "1", 10, seed=6)
    assert shown != [j.doc for j in flipped] and shown != other_seed


def test_interruption_resumes_the_same_sequence(db_url: str) -> None:
    store, cands = project(db_url, "hedge")
    first = judge_all(store, "ann", "1", stop=4)
    store.close()
    reopened = Store.open(db_url)  # a new process: every cache is cold
    rest = judge_all(reopened, "ann", "1")
    assert first + rest == reference(cands, "hedge", {}, "1", 10)


def test_skip_sets_aside_and_revisions_do_not_resteer(db_url: str) -> None:
    store, cands = project(db_url, "bandit", {"policy": "thompson"})
    view = store.assessor("ann")
    ref = AdaptivePool("bandit", cands, {"policy": "thompson"}, seed=5, level=2, max_grade=3)
    shown = []
    for step in range(10):
        item = view.next_item("1")
        assert item is not None
        assert item.doc == ref.next("1") and item.position == step + 1
        shown.append(item.doc)
        if step == 2:
            view.record(topic="1", doc=item.doc, status="skipped")
            ref.skip("1", item.doc)
        else:
            view.record(topic="1", doc=item.doc, grade=GRADES[("1", item.doc)])
            ref.record("1", item.doc, GRADES[("1", item.doc)])
        if step == 4:  # revise an earlier grade: the qrels change, the picks do not
            view.record(topic="1", doc=shown[0], grade=3 - GRADES[("1", shown[0])])
    # Budget picked: the skipped document stays set aside (the revise list reaches it).
    assert view.next_item("1") is None
    assert view.item("1", 3).doc == shown[2] and view.item("1", 3).status == "skipped"
    view.record(topic="1", doc=shown[2], grade=0)
    assert view.next_item("1") is None
    # A fresh view (cold cache) replays the same history to the same state.
    assert store.assessor("ann").next_item("1") is None
    assert [i.doc for i in view.items("1")] == shown


def test_cached_view_sees_judgments_made_elsewhere(db_url: str) -> None:
    store, cands = project(db_url, "mtf")
    a, b = store.assessor("ann"), store.assessor("ann")  # two sessions of one assessor
    shown = []
    for step in range(10):
        view = a if step % 3 else b
        item = view.next_item("007")
        assert item is not None
        shown.append(item.doc)
        view.record(topic="007", doc=item.doc, grade=GRADES[("007", item.doc)])
    assert shown == reference(cands, "mtf", {}, "007", 10)


def test_overlap_assessor_follows_the_primary(db_url: str) -> None:
    store, cands = project(db_url, "hedge", assessors=("ann", "bob"), overlap=0.5)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    primary = {t.key for t in ann.topics() if t.total == 10}
    t = sorted(primary)[0]
    assert [x.total for x in bob.topics() if x.key == t] == [5]
    assert bob.next_item(t) is None  # nothing shown to the primary yet
    shown = judge_all(store, "ann", t)
    assert shown == reference(cands, "hedge", {}, t, 10)
    seen = []
    while (item := bob.next_item(t)) is not None:
        seen.append(item.doc)
        bob.record(topic=t, doc=item.doc, grade=0)
    assert len(seen) == 5 and set(seen) <= set(shown)
    assert seen == [d for d in shown if d in seen]  # in the primary's order
    # bob's judgments did not steer ann's strategy (a fresh replay agrees).
    assert store.assessor("ann").next_item(t) is None


def test_total_budget_is_split_across_topics(db_url: str) -> None:
    store, _ = project(db_url, "mtf", budget=None, total=15)
    totals = {t.key: t.total for t in store.assessor("ann").topics()}
    assert totals == {"1": 8, "007": 7}  # natural order gets the leftover first
    assert len(judge_all(store, "ann", "007")) == 7


def test_definition_is_stored_with_the_pool(db_url: str) -> None:
    store, cands = project(db_url, "bandit", {"policy": "thompson"}, seed=9)
    with store.read() as s:
        row = s.execute(select(PoolRow)).scalars().one()
        quotas = sorted(a.quota for a in s.execute(select(AssignmentRow)).scalars())
        d = adaptive.Definition.of_pool(row)
        rebuilt = adaptive.candidates(s, row.id, 1, "1")  # type: ignore[arg-type]
    assert row.strategy == "bandit" and quotas == [10, 10]
    assert d == adaptive.Definition("bandit", {"policy": "thompson", "rate": 0.9}, 9, 10, None,
                                    2, 3)
    assert rebuilt.lists["1"] == cands.lists["1"]  # the runs, rebuilt from provenance


def test_refusals(db_url: str) -> None:
    store, _ = project(db_url, "mtf")
    with pytest.raises(StoreError, match="gold pairs"):
        store.assign(["bob"], topics=["1"], gold={("1", "d00"): 1})
    with pytest.raises(StoreError, match="strategy's order"):
        store.assign(["bob"], topics=["1"], ordering="random")
    with pytest.raises(PoolingError, match="static strategy"):
        adaptive.Definition("depth", {}, 0, 5).validated()
    with pytest.raises(PoolingError, match="needs a budget"):
        adaptive.Definition("mtf", {}, 0).validated()
    with pytest.raises(PoolingError, match="'budget' parameter .* got 0"):
        adaptive.Definition("mtf", {}, 0, 0).validated()
    with pytest.raises(PoolingError, match="did you mean 'maxmean'|must be one of"):
        adaptive.Definition("bandit", {"policy": "maxmin"}, 0, 5).validated()
    # Same candidates with another seed is another pool; the same definition twice is not.
    cands = Candidates.from_runs(make_runs(), 10)
    adaptive.import_pool(store, cands, adaptive.Definition("mtf", {}, 6, 10), name="ad2")
    with pytest.raises(StoreError, match="already imported"):
        adaptive.import_pool(store, cands, adaptive.Definition("mtf", {}, 6, 10), name="ad3")


def test_cli_pool_into_assign_and_judge(tmp_path: Path) -> None:
    runs = make_runs()
    paths = []
    for name, text in run_texts().items():
        p = tmp_path / f"{name}.txt"
        p.write_text(text)
        paths.append(str(p))
    (tmp_path / "topics.tsv").write_text("".join(f"{t}\ttopic {t}\n" for t in TOPICS))
    (tmp_path / "docs.jsonl").write_text("".join(
        json.dumps({"_id": d, "title": d, "text": f"Text of {d}."}) + "\n" for d in DOCS))
    db = str(tmp_path / "p.db")
    code, _, err = run_cli(["init", "--topics", str(tmp_path / "topics.tsv"), "--docs",
                            str(tmp_path / "docs.jsonl"), "--db", db])
    assert code == 0, err
    code, out, err = run_cli(["pool", *paths, "--strategy", "bandit", "--depth", "10",
                              "--budget", "6", "-o", str(tmp_path / "x.tsv")])
    assert code == 1 and "is adaptive" in err and "--db" in err
    code, out, err = run_cli(["pool", *paths, "--strategy", "bandit", "--depth", "10",
                              "--param", "policy=thompson", "--seed", "5", "--budget", "6",
                              "--into", db])
    assert code == 0, err
    assert "imported adaptive pool 'bandit-6-10'" in err and out == ""
    code, _, err = run_cli(["assign", "ann", "--db", db])
    assert code == 0, err
    store = Store.open(db)
    cands = Candidates.from_runs(runs, 10)
    assert judge_all(store, "ann", "1") == reference(cands, "bandit", {"policy": "thompson"},
                                                      "1", 6)
    with store.read() as s:
        params = json.loads(s.execute(select(PoolRow.params_json)).scalar_one())
    assert params["depth"] == 10 and sorted(params["runs"]) == sorted(runs)
    assert all(len(v["sha256"]) == 64 for v in params["runs"].values())


# -- the TUI ---------------------------------------------------------------------------------
@pytest.mark.slow
def test_tui_shows_the_strategy_sequence_and_resumes_it(tmp_path: Path) -> None:
    from tui_helpers import drive, screen

    store, cands = project(str(tmp_path / "t.db"), "bandit", {"policy": "thompson"})
    shown: list[str] = []

    async def judge(pilot: Any, app: Any, clock: Any, n: int) -> None:
        await pilot.press("enter")  # topic 1 (natural order: 1 before 007)
        s = screen(app)
        for _ in range(n):
            if s.complete:
                break
            assert s.item is not None and s.item.total == 10
            assert s.item.position == len(shown) + 1
            shown.append(s.item.doc)
            clock.t += 2  # read it: a grade counts on a document seen for 200 ms
            await pilot.press(str(GRADES[("1", s.item.doc)]))
            await pilot.pause()

    async def first(pilot: Any, app: Any, clock: Any) -> None:
        await judge(pilot, app, clock, 4)

    async def second(pilot: Any, app: Any, clock: Any) -> None:
        await judge(pilot, app, clock, 100)
        s = screen(app)
        assert s.complete and "Topic complete: 10 of 10" in str(s.query_one("#state").render())

    drive(store, first)   # quit after four judgments ...
    drive(store, second)  # ... a new app (cold caches) continues the same sequence
    assert shown == reference(cands, "bandit", {"policy": "thompson"}, "1", 10)
    judged = store.assessor("ann").judgments("1")
    assert [j.doc for j in judged] == shown and all(j.source == "tui" for j in judged)


def test_tui_back_forward_and_skip_on_an_adaptive_pool(tmp_path: Path) -> None:
    from tui_helpers import drive, screen

    store, cands = project(str(tmp_path / "t.db"), "mtf")
    ref = AdaptivePool("mtf", cands, {}, seed=5, level=2, max_grade=3)

    async def steps(pilot: Any, app: Any, clock: Any) -> None:
        await pilot.press("enter")
        s = screen(app)
        assert s.item is not None and s.item.doc == ref.next("1")
        first = s.item.doc
        clock.t += 2
        await pilot.press("s")      # skipped (no reason given): set aside, the strategy
        await pilot.pause()         # moves on
        await pilot.press("enter")
        await pilot.pause()
        ref.skip("1", first)
        assert s.item.position == 2 and s.item.doc == ref.next("1")
        second = s.item.doc
        await pilot.press("b")      # back to the skipped one
        assert s.item.position == 1 and s.item.doc == first and s.item.status == "skipped"
        await pilot.press("right")    # forward: the pending pick, not a new one
        assert s.item.position == 2 and s.item.doc == second
        await pilot.press("right")    # nothing picked past it yet: still the pending pick
        assert s.item.position == 2 and s.item.doc == second

    drive(store, steps)


# -- schema ------------------------------------------------------------------------------------
def test_migration_0004_round_trips_with_data(db_url: str) -> None:
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import text
    from sqlmodel import SQLModel

    from relkit.judging.store.connection import writer
    from relkit.judging.store.migrate import _config, current, upgrade
    from store_helpers import make_project

    store = make_project(db_url)
    who = next(n for n in ("ann", "bob") if "1" in {t.key for t in store.assessor(n).topics()})
    first = store.assessor(who).next_item("1")
    assert first is not None
    store.assessor(who).record(topic="1", doc=first.doc, grade=2)
    cfg = _config()
    with writer(store.engine).begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0003")
    assert current(store.engine) == "0003"
    with store.engine.connect() as conn:
        cols = {c["name"] for c in __import__("sqlalchemy").inspect(conn).get_columns(
            "assignment")}
        # SQLite keeps the two nullable columns on downgrade (see the migration).
        assert ("quota" in cols) == (conn.dialect.name == "sqlite")
        n_items = conn.execute(text("SELECT count(*) FROM assignment_item")).scalar()
    upgrade(store.engine)
    reopened = Store.open(db_url)
    assert [j.doc for j in reopened.assessor(who).judgments("1")] == [first.doc]
    with reopened.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM assignment_item")).scalar() == n_items
        assert conn.execute(text("SELECT count(*) FROM assignment WHERE quota IS NOT NULL "
                                 "OR follows_id IS NOT NULL")).scalar() == 0
        # The migrations build exactly the schema the models declare.
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                SQLModel.metadata)
    assert diff == []


def test_assign_reports_quotas_and_status_lists_the_assessor(tmp_path: Path) -> None:
    """Tester: ``assign`` on an adaptive pool said "N items" though no item exists yet
    (they are picked as the assessor judges), and ``status`` left the assessor out."""
    paths = []
    for name, text in run_texts().items():
        p = tmp_path / f"{name}.txt"
        p.write_text(text)
        paths.append(str(p))
    (tmp_path / "topics.tsv").write_text("".join(f"{t}\ttopic {t}\n" for t in TOPICS))
    (tmp_path / "docs.jsonl").write_text("".join(
        json.dumps({"_id": d, "title": d, "text": f"Text of {d}."}) + "\n" for d in DOCS))
    db = str(tmp_path / "p.db")
    assert run_cli(["init", "--topics", str(tmp_path / "topics.tsv"), "--docs",
                    str(tmp_path / "docs.jsonl"), "--db", db])[0] == 0
    code, _, err = run_cli(["pool", *paths, "--strategy", "bandit", "--depth", "10",
                            "--budget", "6", "--into", db])
    assert code == 0, err
    code, _, err = run_cli(["assign", "ann", "--db", db])
    assert code == 0, err
    n = len(TOPICS)
    assert f"{n} assignments, a quota of {6 * n} judgments for 1 assessor (" in err
    assert "items" not in err.splitlines()[0]
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, err
    (ann,) = json.loads(out)["assessors"]
    assert (ann["assessor"], ann["topics"], ann["items"], ann["done"], ann["pending"]) == \
        ("ann", n, 6 * n, 0, 6 * n)
    store = Store.open(db)
    judge_all(store, "ann", TOPICS[0], stop=2)
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    (ann,) = json.loads(out)["assessors"]
    assert (ann["items"], ann["done"], ann["pending"]) == (6 * n, 2, 6 * n - 2)


def test_a_grade_costs_one_durable_commit_and_a_lost_item_is_picked_again(
        tmp_path: Path) -> None:
    """The key path (issue 36): a grade and the next pick on an adaptive pool fsync once,
    as on a static pool: the judgment commits with synchronous=FULL, the picked item
    (derived from the history) without waiting for the disk. If it were lost (an OS
    crash before the next judgment's commit), the same document is picked again at the
    same position."""
    from sqlalchemy import delete, event

    store, _ = project(f"sqlite:///{tmp_path / 'a.db'}", "mtf", {})
    durable: list[int] = []

    @event.listens_for(store.writer, "commit")
    def _commit(conn: Any) -> None:   # the level the commit runs at (2: FULL, 1: NORMAL)
        level = conn.connection.dbapi_connection.execute("PRAGMA synchronous").fetchone()[0]
        durable.append(level)

    view = store.assessor("ann")
    item = view.next_item("1")
    assert item is not None
    for _ in range(4):
        durable.clear()
        view.record(topic="1", doc=item.doc, grade=GRADES[("1", item.doc)])
        item = view.next_item("1", item.position)
        assert item is not None
        assert durable.count(2) == 1, durable      # the judgment, fsynced
        assert durable.count(1) == 1, durable      # the item it led to, not waited for
    with store.writer.connect() as conn, conn.begin():  # the row an OS crash could lose
        conn.execute(delete(AssignmentItemRow).where(
            AssignmentItemRow.position == item.position))
    again = store.assessor("ann").next_item("1")
    assert again is not None and (again.doc, again.position) == (item.doc, item.position)


def test_the_item_commits_fully_on_a_connection_without_wal(tmp_path: Path) -> None:
    """synchronous=NORMAL is safe only in WAL mode: a connection whose journal did not
    switch to WAL (a file system without shared memory) commits the item with FULL,
    and every connection is back at FULL after an item's commit."""
    from sqlalchemy import event

    from relkit.judging.store.connection import WAL

    store, _ = project(f"sqlite:///{tmp_path / 'a.db'}", "mtf", {})
    levels: list[int] = []

    @event.listens_for(store.writer, "commit")
    def _commit(conn: Any) -> None:
        levels.append(conn.connection.dbapi_connection.execute(
            "PRAGMA synchronous").fetchone()[0])

    with store.writer.connect() as conn:
        assert conn.connection.info[WAL] is True       # what a normal file gets
    view = store.assessor("ann")
    item = view.next_item("1")
    assert item is not None
    for wal in (False, True):
        with store.writer.connect() as conn:  # one pooled connection: the writer's
            conn.connection.info[WAL] = wal
        levels.clear()
        view.record(topic="1", doc=item.doc, grade=GRADES[("1", item.doc)])
        item = view.next_item("1", item.position)
        assert item is not None
        assert levels == ([2, 2] if not wal else [2, 1]), (wal, levels)
        with store.writer.connect() as conn:
            raw = conn.connection.dbapi_connection
            assert raw.execute("PRAGMA synchronous").fetchone()[0] == 2
