"""The judging store on SQLite and PostgreSQL: workflow, constraints, refusals."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.exc import DBAPIError, IntegrityError

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.judgment_files import JudgmentLine
from relkit.judging.store.assign import Store
from relkit.judging.store.imports import import_judgments
from relkit.judging.store.models import StoreError
from relkit.judging.store.reports import (
    adjudicate,
    disagreements,
    dump,
    export_qrels,
    majority,
    mean_rounded,
    status,
)
from store_helpers import DOCS, POOL, make_project, snapshot


def test_assessor_workflow(db_url: str) -> None:
    store = make_project(db_url)
    ann = store.assessor("ann")
    topics = ann.topics()
    assert [t.key for t in topics] and all(t.done == 0 for t in topics)
    t = topics[0].key
    first = ann.next_item(t)
    assert first is not None and first.position == 1 and first.grade is None
    out = ann.record(topic=t, doc=first.doc, grade=2, dwell_ms=1200, note="clear")
    assert (out.grade, out.version, out.dwell_ms) == (2, 1, 1200)
    nxt = ann.next_item(t, after=first.position)
    assert nxt is not None and nxt.position == 2
    # Revise: the current row changes, both versions stay in the history, dwell adds up.
    rev = ann.record(topic=t, doc=first.doc, grade=3, dwell_ms=300)
    assert (rev.grade, rev.version, rev.dwell_ms) == (3, 2, 1500)
    hist = ann.history(t, first.doc)
    assert [(h.grade, h.version, h.dwell_ms) for h in hist] == [(2, 1, 1200), (3, 2, 300)]
    assert ann.item(t, 1).grade == 3 and ann.item(t, 1).note == ""
    # Skip: not done, set aside (it does not come round again); judged later from the
    # revise list.
    ann.record(topic=t, doc=nxt.doc, status="skipped", note="not in English")
    for item in ann.items(t)[2:]:
        ann.record(topic=t, doc=item.doc, grade=0)
    assert ann.next_item(t) is None and ann.skipped(t) == 1
    assert ann.item(t, nxt.position).status == "skipped"
    ann.record(topic=t, doc=nxt.doc, grade=1, flagged=True)
    assert ann.skipped(t) == 0
    assert ann.next_item(t) is None
    done = next(x for x in ann.topics() if x.key == t)
    assert done.done == done.total and sum(done.grade_counts.values()) == done.total


def test_ids_stay_strings_and_topics_sort_naturally(db_url: str) -> None:
    store = make_project(db_url, assessors=("ann",))
    keys = [t.key for t in store.assessor("ann").topics()]
    assert keys == ["1", "007"]  # 1 < 7 numerically; "007" is never turned into 7
    with pytest.raises(StoreError, match="ids are strings"):
        store.assessor("ann").record(topic=7, doc="d01", grade=1)


def test_docno_order_and_seeded_random_order(db_url: str, tmp_path: Path) -> None:
    store = make_project(db_url, assessors=("ann",))
    docs = [i.doc for i in store.assessor("ann").items("1")]
    assert docs == sorted(docs)
    # Random order: seeded per assessor and topic, so the same on every build.
    orders = [[i.doc for i in make_project(str(tmp_path / f"r{k}.db"), assessors=("ann",),
                                           ordering="random").assessor("ann").items("1")]
              for k in range(2)]
    assert orders[0] == orders[1]
    assert sorted(orders[0]) == docs and orders[0] != docs


def test_overlap_gives_pairs_to_two_assessors(db_url: str) -> None:
    store = make_project(db_url, overlap=0.5)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    pairs = {(t.key, i.doc) for v in (ann, bob) for t in v.topics() for i in v.items(t.key)}
    both = [(t.key, i.doc) for t in ann.topics() for i in ann.items(t.key)
            if (t.key, i.doc) in {(u.key, j.doc) for u in bob.topics() for j in bob.items(u.key)}]
    assert pairs == set(POOL)
    assert len(both) == 8  # half of each topic's 8 pairs


def test_assessor_sees_only_their_own(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    item = ann.items("1")[0]
    bob.record(topic="1", doc=item.doc, grade=3, note="bob's note")
    seen = ann.item("1", item.position)
    assert seen.grade is None and seen.note == ""
    assert ann.judgments() == [] and ann.history("1", item.doc) == []
    assert all(t.grade_counts == {} for t in ann.topics())
    # Nothing in the assessor-facing values can carry provenance or priorities.
    fields = {f.name for f in dataclasses.fields(seen)}
    assert not fields & {"provenance", "priority", "run", "rank", "runs"}
    with pytest.raises(StoreError, match="not assigned"):
        store.assessor("ann").record(topic="1", doc="d11", grade=1)


def test_grade_outside_scale_refused_by_api_and_by_database(db_url: str) -> None:
    store = make_project(db_url)
    ann = store.assessor("ann")
    t = ann.topics()[0].key
    doc = ann.items(t)[0].doc
    before = snapshot(store)
    with pytest.raises(StoreError, match="grade 4 is not on the 'trec-dl' scale"):
        ann.record(topic=t, doc=doc, grade=4)
    with pytest.raises(StoreError, match="needs a grade"):
        ann.record(topic=t, doc=doc, status="judged")
    with pytest.raises(StoreError, match="dwell_ms"):
        ann.record(topic=t, doc=doc, grade=1, dwell_ms=-5)
    assert snapshot(store) == before
    # The constraints hold even for a client that bypasses the API.
    with pytest.raises(IntegrityError), store.writer.begin() as conn:
        conn.execute(text(
            "INSERT INTO judgment (collection_id, assessor_id, topic_id, document_id, grade,"
            " status, note, flagged, dwell_ms, version, source, created_at, updated_at)"
            " SELECT 1, a.id, t.id, d.id, 9, 'judged', '', false, 0, 1, 'api',"
            " CURRENT_TIMESTAMP, CURRENT_TIMESTAMP FROM assessor a, topic t, document d"
            " WHERE a.name = 'ann' AND t.key = '1' AND d.key = 'd00'"))
    assert snapshot(store) == before


def test_history_is_append_only(db_url: str) -> None:
    store = make_project(db_url)
    ann = store.assessor("ann")
    t = ann.topics()[0].key
    ann.record(topic=t, doc=ann.items(t)[0].doc, grade=1)
    for sql in ("UPDATE judgment_history SET grade = 0", "DELETE FROM judgment_history"):
        with pytest.raises(DBAPIError, match="append-only"), store.writer.begin() as conn:
            conn.execute(text(sql))
    assert len(ann.history(t, ann.items(t)[0].doc)) == 1


def test_bad_pools_are_refused_whole(db_url: str) -> None:
    store = make_project(db_url)
    before = snapshot(store)
    with pytest.raises(StoreError, match=r"p\.tsv:3: unknown topic '9'"):
        store.import_pool([("1", "d00"), ("1", "d01"), ("9", "d02")], name="x", source="p.tsv")
    with pytest.raises(StoreError, match=r"p\.tsv:2: unknown document 'zz'"):
        store.import_pool([("1", "d00"), ("1", "zz")], name="x", source="p.tsv")
    with pytest.raises(StoreError, match="pooled twice"):
        store.import_pool([("1", "d00"), ("1", "d00")], name="x", source="p.tsv")
    with pytest.raises(StoreError, match="already imported"):
        store.import_pool(list(reversed(POOL)), name="again")
    with pytest.raises(StoreError, match="<pool>:1: topic: Input should be a valid string"):
        store.import_pool([(1, "d00")], name="x")  # type: ignore[list-item]
    assert snapshot(store) == before
    # A lookup (the collection's document store) supplies documents not yet copied in.
    extra = Document("new1", "New", "A new document.")
    summary = store.import_pool([("1", "new1")], name="round2",
                                lookup={"new1": extra}.get)
    assert summary.new_documents == 1


def test_import_judgments_all_or_nothing(db_url: str) -> None:
    store = make_project(db_url)
    before = snapshot(store)
    good = [JudgmentLine("carol", "1", "d00", 2, "c.qrels", 1),
            JudgmentLine("carol", "1", "d01", 0, "c.qrels", 2)]
    with pytest.raises(StoreError, match=r"c\.qrels:3: grade 5 is not on"):
        import_judgments(store, good + [JudgmentLine("carol", "1", "d02", 5, "c.qrels", 3)])
    with pytest.raises(StoreError, match=r"c\.qrels:3: unknown document 'nope'"):
        import_judgments(store, good + [JudgmentLine("carol", "1", "nope", 1, "c.qrels", 3)])
    with pytest.raises(StoreError, match=r"c\.qrels:3: 'carol' judged .* already at c\.qrels:1"):
        import_judgments(store, good + [JudgmentLine("carol", "1", "d00", 1, "c.qrels", 3)])
    assert snapshot(store) == before
    assert import_judgments(store, good).judgments == 2
    assert ("1", "d00", 2) in export_qrels(store, "assessor", assessor="carol")
    n = import_judgments(store, [JudgmentLine("dan", "99", "x1", 1, "d.qrels", 1)],
                         add_missing=True)
    assert n.judgments == 1


def test_export_methods(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0, assessors=("ann", "bob"))
    lines = [JudgmentLine("carol", "1", "d00", 3, "c", 1)]
    import_judgments(store, lines)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    ann.record(topic="1", doc="d00", grade=1)
    bob.record(topic="1", doc="d00", grade=2)
    ann.record(topic="1", doc="d01", grade=1)
    bob.record(topic="1", doc="d01", grade=2)
    ann.record(topic="1", doc="d02", grade=0)
    # d00: {1,2,3} -> majority tie goes low: 1; mean 2.0 -> 2.  d01: {1,2} -> 1; mean 1.5 -> 2.
    maj = {(t, d): g for t, d, g in export_qrels(store, "majority")}
    mean = {(t, d): g for t, d, g in export_qrels(store, "mean")}
    assert (maj[("1", "d00")], maj[("1", "d01")], maj[("1", "d02")]) == (1, 1, 0)
    assert (mean[("1", "d00")], mean[("1", "d01")]) == (2, 2)
    assert maj[("1", "d03")] == -1  # pooled, unjudged
    assert ("1", "d03") not in {(t, d) for t, d, _ in export_qrels(store, unjudged=False)}
    bobs = {(t, d): g for t, d, g in export_qrels(store, "assessor", assessor="bob")}
    assert bobs[("1", "d00")] == 2 and bobs[("1", "d02")] == -1
    prim = {(t, d): g for t, d, g in export_qrels(store, "primary", assessor="bob")}
    assert prim[("1", "d02")] == 0  # bob did not judge d02: the others' majority
    binary = {(t, d): g for t, d, g in export_qrels(store, threshold=2)}
    assert (binary[("1", "d00")], binary[("1", "d03")]) == (0, -1)
    dis = {(x.topic, x.doc) for x in disagreements(store)}
    assert dis == {("1", "d00"), ("1", "d01")}
    adjudicate(store, "lead", "1", "d01", 3, "per narrative")
    adj = {(t, d): g for t, d, g in export_qrels(store, "adjudicated")}
    assert adj[("1", "d01")] == 3 and adj[("1", "d00")] == 1
    with pytest.raises(StoreError, match="needs --assessor"):
        export_qrels(store, "assessor")
    recs = {(r["topic"], r["doc"]): r for r in dump(store)}
    d01 = recs[("1", "d01")]
    assert d01["adjudication"] == {"grade": 3, "lead": "lead", "note": "per narrative"}
    assert {j["assessor"] for j in d01["judgments"]} == {"ann", "bob"}  # type: ignore[union-attr]


def test_majority_and_mean_rules() -> None:
    assert majority([2, 2, 1]) == 2 and majority([3, 1]) == 1
    assert mean_rounded([1, 2]) == 2 and mean_rounded([0, 1, 1, 3]) == 1  # 1.25
    assert mean_rounded([2, 3]) == 3  # half up, not to even


def test_status(db_url: str) -> None:
    store = make_project(db_url)
    ann = store.assessor("ann")
    t = ann.topics()[0].key
    for i, item in enumerate(ann.items(t)[:3]):
        ann.record(topic=t, doc=item.doc, grade=i, dwell_ms=[10_000, 20_000, 30_000][i])
    st = status(store)
    me = next(a for a in st.assessors if a.assessor == "ann")
    assert (me.done, me.items, me.topics) == (3, 8, 1)
    assert me.median_dwell_s == 20.0
    assert me.per_hour == pytest.approx(3 / (60 / 3600))  # 3 judgments in 60 s of work
    top = next(x for x in st.topics if x.topic == t)
    assert top.grade_counts == {0: 1, 1: 1, 2: 1} and top.done == 3


def test_collection_guards(db_url: str) -> None:
    store = Store.open(db_url)
    with pytest.raises(StoreError, match="run `relkit init` first"):
        store.scale()
    store.create_collection("demo", TREC_DL, [Topic("1")], DOCS[:2])
    with pytest.raises(StoreError, match="already exists"):
        store.create_collection("demo", TREC_DL, [Topic("1")])
    with pytest.raises(StoreError, match="given twice"):
        store.create_collection("other", TREC_DL, [Topic("1"), Topic("1")])
    assert store.scale() == TREC_DL
    with pytest.raises(StoreError, match="no pool imported"):
        store.assign(["ann"])
