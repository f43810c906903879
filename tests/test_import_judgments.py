"""`relkit import judgments`: batched, all or nothing, and imported judgments count.

The project (tests/store_helpers.py) pools d00-d07 for topic 1 and d04-d11 for topic
007; ``assign`` gives each of ann and bob one topic (docno order, positions 1-8).
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from helpers import run_cli
from relkit.judging.judgment_files import JudgmentLine
from relkit.judging.store import imports
from relkit.judging.store.assign import Store
from relkit.judging.store.imports import import_judgments
from relkit.judging.store.reports import status
from store_helpers import make_project, snapshot


def ann_topic(store: Store) -> tuple[str, list[str]]:
    """Ann's topic and its documents in presentation order."""
    view = store.assessor("ann")
    (t,) = [x.key for x in view.topics()]
    return t, [i.doc for i in view.items(t)]


def done_of(store: Store, who: str) -> int:
    return next(a.done for a in status(store).assessors if a.assessor == who)


def test_imported_judgments_mark_assigned_items_done(db_url: str) -> None:
    # The defect: after an import `status` said "done 0" and the judging screen offered
    # the imported documents again.
    store = make_project(db_url)
    t, docs = ann_topic(store)
    lines = [JudgmentLine("ann", t, d, g, "ann.qrels", n)
             for n, (d, g) in enumerate(zip(docs[:3], (2, 0, 3), strict=True), 1)]
    import_judgments(store, lines)
    assert done_of(store, "ann") == 3 and done_of(store, "bob") == 0
    view = store.assessor("ann")
    assert view.progress(t) == (3, 8)
    assert next(x.done for x in view.topics() if x.key == t) == 3
    nxt = view.next_item(t)
    assert nxt is not None and nxt.position == 4 and nxt.doc == docs[3]
    # Wrapping round from the end skips them too.
    nxt = view.next_item(t, after=8)
    assert nxt is not None and nxt.position == 4
    assert [(i.doc, i.grade) for i in view.items(t)[:3]] == list(zip(docs[:3], (2, 0, 3),
                                                                    strict=True))


def test_summary_revisions_history_and_unassigned(db_url: str) -> None:
    store = make_project(db_url)
    t, docs = ann_topic(store)
    view = store.assessor("ann")
    view.record(topic=t, doc=docs[0], grade=1, dwell_ms=500, note="mine")
    view.record(topic=t, doc=docs[1], status="skipped")
    lines = [JudgmentLine("ann", t, docs[0], 3, "a", 1),     # revises a done item
             JudgmentLine("ann", t, docs[1], 2, "a", 2),     # revises a skipped one: now done
             JudgmentLine("ann", t, docs[2], 0, "a", 3),     # new, assigned
             JudgmentLine("carol", t, docs[2], 1, "c", 1)]   # carol has no assignment
    got = import_judgments(store, lines)
    assert (got.judgments, got.new, got.revised, got.items_done, got.unassigned) == (4, 2, 2, 2, 1)
    assert done_of(store, "ann") == 3
    hist = view.history(t, docs[0])
    assert [(h.grade, h.version, h.source, h.dwell_ms) for h in hist] == [
        (1, 1, "api", 500), (3, 2, "import", 0)]
    cur = {j.doc: j for j in view.judgments(t)}
    # The current row keeps what an import does not carry (note, dwell time).
    assert (cur[docs[0]].grade, cur[docs[0]].version, cur[docs[0]].note,
            cur[docs[0]].dwell_ms) == (3, 2, "mine", 500)
    assert (cur[docs[1]].grade, cur[docs[1]].status, cur[docs[1]].version) == (2, "judged", 2)
    # Time stamps read back as the judging screen's do (written straight to the driver).
    assert all(isinstance(x, datetime) for j in cur.values() for x in (j.created_at,
                                                                     j.updated_at))
    assert cur[docs[0]].updated_at >= cur[docs[0]].created_at
    assert isinstance(hist[1].created_at, datetime) and hist[1].created_at >= hist[0].created_at
    # Importing the same file again revises everything, marks nothing new.
    again = import_judgments(store, lines)
    assert (again.new, again.revised, again.items_done, again.unassigned) == (0, 4, 0, 1)
    assert [h.version for h in view.history(t, docs[2])] == [1, 2]


def test_batches_match_one_by_one(db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    # Tiny batches: new and revised rows split across many batches, ids matched to rows.
    monkeypatch.setattr(imports, "BATCH", 3)
    monkeypatch.setattr(imports, "IN_CHUNK", 2)
    store = make_project(db_url, overlap=1.0)
    first = [JudgmentLine(who, "1", f"d{i:02d}", (i + k) % 4, "f", i)
             for k, who in enumerate(("ann", "bob")) for i in range(0, 8, 2)]
    import_judgments(store, first)
    seen: list[tuple[int, int]] = []
    second = [JudgmentLine(who, "1", f"d{i:02d}", (i * 3 + k) % 4, "g", i)
              for k, who in enumerate(("ann", "bob")) for i in range(8)]
    got = import_judgments(store, second, progress=lambda d, n: seen.append((d, n)))
    # Reported batch by batch (judgments first, then the history), never backwards.
    assert {n for _, n in seen} == {16} and seen[-1] == (16, 16) and len(seen) >= 10
    assert [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert (got.new, got.revised) == (8, 8)
    for k, who in enumerate(("ann", "bob")):
        view = store.assessor(who)
        cur = {j.doc: (j.grade, j.version) for j in view.judgments("1")}
        assert cur == {f"d{i:02d}": ((i * 3 + k) % 4, 1 + (i % 2 == 0)) for i in range(8)}
        for i in range(8):
            hist = [(h.grade, h.version) for h in view.history("1", f"d{i:02d}")]
            want = ([((i + k) % 4, 1)] if i % 2 == 0 else []) + [cur[f"d{i:02d}"]]
            assert hist == want
        topic = next(x for x in view.topics() if x.key == "1")
        assert topic.done == topic.total == 8
        assert view.next_item("1") is None


def test_a_failure_mid_write_leaves_the_database_unchanged(
        db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(imports, "BATCH", 2)
    store = make_project(db_url)
    before = snapshot(store)
    lines = [JudgmentLine("ann", "1", f"d{i:02d}", 1, "f", i) for i in range(8)]

    def stop(done: int, total: int) -> None:
        if done == 4:  # two batches written inside the transaction
            raise RuntimeError("interrupted")

    with pytest.raises(RuntimeError):
        import_judgments(store, lines, progress=stop)
    assert snapshot(store) == before
    assert done_of(store, "ann") == 0


def write(path: Path, text: str) -> Path:
    path.write_text(text)
    return path


def test_cli_bad_last_line_changes_nothing(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    store = make_project(db)
    before = snapshot(store)
    dump = run_cli(["export", "jsonl", "--db", db])[1]
    good = write(tmp_path / "ann.qrels", "".join(f"1 0 d{i:02d} 1\n" for i in range(8)))
    bad = write(tmp_path / "bob.qrels", "007 0 d04 1\n007 0 d05 2\n007 0 d06 9\n")
    code, out, err = run_cli(["import", "judgments", str(good), str(bad), "--db", db])
    assert code == 1 and out == ""
    assert err.splitlines() == [err.strip()] and f"{bad}:3: grade 9 is not on" in err
    assert "nothing was imported" in err and "Traceback" not in err
    assert snapshot(store) == before
    assert run_cli(["export", "jsonl", "--db", db])[1] == dump
    bad2 = write(tmp_path / "bob.qrels", "007 0 d04 1\n007 0 d05 2\n007 d06 0 zero\n")
    code, _, err = run_cli(["import", "judgments", str(good), str(bad2), "--db", db])
    assert code == 1 and f"{bad2}:3" in err and len(err.splitlines()) == 1
    assert snapshot(store) == before


def test_cli_status_counts_imported_judgments(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    store = make_project(db)
    t, docs = ann_topic(store)
    ann = write(tmp_path / "ann.qrels", "".join(f"{t} 0 {d} 1\n" for d in docs[:5]))
    carol = write(tmp_path / "carol.qrels", f"{t} 0 {docs[0]} 0\n")
    code, out, err = run_cli(["import", "judgments", str(ann), str(carol), "--db", db])
    assert code == 0 and out == ""
    # Not a terminal: no progress bar, only the summary line.
    assert err == ("relkit: imported 6 judgments (6 new, 0 revised); 5 assigned items marked "
                   "done; 1 match no assignment item (kept for agreement and export)\n")
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, err
    data = json.loads(out)
    assert {a["assessor"]: a["done"] for a in data["assessors"]} == {"ann": 5, "bob": 0, "carol": 0}
    code, out, err = run_cli(["import", "judgments", str(ann), "--db", db, "--quiet"])
    assert (code, out, err) == (0, "", "")


def test_judging_screen_skips_imported_documents(tmp_path: Path) -> None:
    from tui_helpers import drive, screen

    store = make_project(str(tmp_path / "t.db"))
    t, docs = ann_topic(store)
    import_judgments(store, [JudgmentLine("ann", t, d, 1, "a", n)
                             for n, d in enumerate(docs[:2], 1)])

    async def steps(pilot: Any, app: Any, clock: Any) -> None:
        await pilot.press("enter")  # open ann's only topic
        s = screen(app)
        assert s.item is not None and (s.item.position, s.item.doc) == (3, docs[2])

    drive(store, steps)


def test_adaptive_assignment_does_not_offer_imported_documents(tmp_path: Path) -> None:
    from test_adaptive_judging import project as adaptive_project

    # The strategy's second pick after a first judged 2, on a twin project.
    twin, _ = adaptive_project(str(tmp_path / "b.db"), "mtf", budget=10)
    tv = twin.assessor("ann")
    one = tv.next_item("1")
    assert one is not None
    tv.record(topic="1", doc=one.doc, grade=2)
    two = tv.next_item("1", one.position)
    assert two is not None and two.doc != one.doc
    store, _ = adaptive_project(str(tmp_path / "a.db"), "mtf", budget=10)
    view = store.assessor("ann")
    first = view.next_item("1")
    assert first is not None and first.doc == one.doc
    offered = [two.doc]
    # The item the strategy picked is marked done; the document it would pick next has
    # no item yet: kept, counted apart, and the strategy does not pick it.
    got = import_judgments(store, [JudgmentLine("ann", "1", first.doc, 2, "a", 1),
                                   JudgmentLine("ann", "1", offered[0], 1, "a", 2)])
    assert (got.items_done, got.unassigned) == (1, 1)
    shown, after = [], 0
    while (item := view.next_item("1", after)) is not None:
        assert item.doc not in (first.doc, offered[0]), item
        shown.append(item.doc)
        view.record(topic="1", doc=item.doc, grade=0)
        after = item.position
    assert len(shown) == 9  # the rest of the budget of 10


def test_cli_says_what_the_reader_did_with_a_gold_column(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    make_project(db)
    table = write(tmp_path / "crowd.csv", "assessor,topic,doc,grade,gold\n"
                  "w1,1,d00,1,2\nw2,1,d00,0,2\nw1,1,d01,0,-1\n")
    code, _, err = run_cli(["import", "judgments", str(table), "--db", db])
    assert code == 0, err
    assert f"relkit: {table}: gold column read as assessor 'gold': 1 pairs" in err
    assert "imported 4 judgments" in err
