"""Two sessions of one assessor on one judgment (two browser tabs, two terminals): the
version a save expects is checked in the write itself, on both backends."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor

import pytest

from relkit.judging.store.assign import Store
from relkit.judging.store.models import ChangedMeanwhile
from relkit.judging.store.reports import adjudicate, dump
from store_helpers import make_project


def test_a_save_over_an_unseen_judgment_is_kept_and_said(db_url: str) -> None:
    store = make_project(db_url)
    tab1, tab2 = store.assessor("ann"), Store.open(db_url).assessor("ann")
    topic = tab1.topics()[0].key
    shown1, shown2 = tab1.item(topic, 1), tab2.item(topic, 1)
    assert shown1.version == shown2.version == 0  # both show "not judged yet"
    first = tab1.record(source="tui", topic=topic, doc=shown1.doc, grade=1,
                        expected_version=shown1.version)
    assert (first.version, first.meanwhile) == (1, None)
    second = tab2.record(source="tui", topic=topic, doc=shown2.doc, grade=3, note="late",
                         expected_version=shown2.version)
    assert (second.grade, second.version) == (3, 2)
    other = second.meanwhile
    assert other is not None  # what the second tab never showed, for it to say so
    assert (other.grade, other.status, other.version, other.source) == (1, "judged", 1, "tui")
    # Both kept; the second one is the current judgment; nothing applied twice.
    assert [(h.grade, h.version) for h in tab1.history(topic, shown1.doc)] == [(1, 1), (3, 2)]
    (now,) = [j for j in tab1.judgments(topic) if j.doc == shown1.doc]
    assert (now.grade, now.version, now.note) == (3, 2, "late")
    assert tab1.item(topic, 1).version == 2


def test_a_save_over_the_version_shown_says_nothing(db_url: str) -> None:
    store = make_project(db_url)
    view = store.assessor("ann")
    topic = view.topics()[0].key
    item = view.item(topic, 1)
    saved = view.record(source="tui", topic=topic, doc=item.doc, grade=2,
                        expected_version=item.version)
    again = view.item(topic, 1)
    assert (again.version, again.grade) == (1, 2)
    revised = view.record(source="tui", topic=topic, doc=item.doc, grade=0,
                          expected_version=again.version)
    assert (saved.meanwhile, revised.meanwhile, revised.version) == (None, None, 2)
    # A caller that says nothing about what it showed (an import, the API) is not checked.
    blind = view.record(topic=topic, doc=item.doc, grade=1)
    assert (blind.meanwhile, blind.version) == (None, 3)
    # The revise list's rows carry the version too (the screen reads the item again).
    assert [i.version for i in view.judged(topic)] == [3]


def test_several_writes_meanwhile_name_the_last(db_url: str) -> None:
    store = make_project(db_url)
    view = store.assessor("ann")
    topic = view.topics()[0].key
    doc = view.item(topic, 1).doc
    view.record(source="tui", topic=topic, doc=doc, grade=1)
    view.record(source="tui", topic=topic, doc=doc, grade=None, status="skipped", note="why")
    late = view.record(source="tui", topic=topic, doc=doc, grade=2, expected_version=0)
    assert late.meanwhile is not None
    assert (late.meanwhile.status, late.meanwhile.note, late.meanwhile.version) == (
        "skipped", "why", 2)


def test_racing_sessions_each_see_the_write_before_theirs(db_url: str) -> None:
    # Six sessions that all showed "not judged" save at once: each write is one version,
    # and every one but the first is told of the one it replaced (the check is the
    # upsert's own version, so no write slips in between a check and a save).
    make_project(db_url)
    views = [Store.open(db_url).assessor("ann") for _ in range(6)]
    topic = views[0].topics()[0].key
    doc = views[0].item(topic, 1).doc

    def save(i: int) -> tuple[int, int | None]:
        out = views[i].record(source="tui", topic=topic, doc=doc, grade=i % 4,
                              expected_version=0)
        return out.version, None if out.meanwhile is None else out.meanwhile.version

    with ThreadPoolExecutor(6) as pool:
        got = sorted(pool.map(save, range(6)))
    assert got == [(1, None)] + [(v, v - 1) for v in range(2, 7)]
    assert [h.version for h in views[0].history(topic, doc)] == [1, 2, 3, 4, 5, 6]


def test_a_final_grade_over_one_never_shown_is_refused(db_url: str) -> None:
    # Two sessions do not replace each other's final grade unseen (it would stay in the
    # history, but the lead decided against another one).
    store = make_project(db_url)

    def final() -> object:
        return {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}[("1", "d00")]

    adjudicate(store, "lee", "1", "d00", 2, "first", shown=(None, ""))  # undecided, as shown
    with pytest.raises(ChangedMeanwhile, match=r"meanwhile lee gave 1/d00 the final grade 2 "
                       r"\(reason: first\) in another session"):
        adjudicate(store, "lee", "1", "d00", 0, "", shown=(None, ""))
    assert final() == {"grade": 2, "lead": "lee", "note": "first"}
    adjudicate(store, "lee", "1", "d00", 0, "second", shown=(2, "first"))  # seen: replaced
    assert final() == {"grade": 0, "lead": "lee", "note": "second"}
    adjudicate(store, "lee", "1", "d00", 1, "third")  # no shown: not checked (the CLI)
    assert final() == {"grade": 1, "lead": "lee", "note": "third"}


def test_a_final_grade_the_pair_already_holds_is_no_conflict(db_url: str) -> None:
    """The lead's retry after a commit whose answer was lost (or the same key in two
    tabs) finds its own decision: saved, not refused as another session's."""
    store = make_project(db_url)
    adjudicate(store, "lee", "1", "d00", 2, "ok", shown=(None, ""))
    adjudicate(store, "lee", "1", "d00", 2, "ok", shown=(None, ""))   # the retry
    final = {(r["topic"], r["doc"]): r["adjudication"] for r in dump(store)}[("1", "d00")]
    assert final == {"grade": 2, "lead": "lee", "note": "ok"}
    with pytest.raises(ChangedMeanwhile):   # a different decision still is one
        adjudicate(store, "lee", "1", "d00", 3, "ok", shown=(None, ""))


def test_two_first_final_grades_at_once_one_is_refused_as_meanwhile(db_url: str) -> None:
    """An undecided pair has no row to lock: the second session's insert meets the
    first's on the unique index, and is answered as a change meanwhile, not as a
    database error. (Forced: the other session's insert is held open until this one
    waits on it.)"""
    import threading
    import time

    from sqlalchemy import text

    store = make_project(db_url)
    if store.engine.dialect.name != "postgresql":
        pytest.skip("SQLite writes one at a time (BEGIN IMMEDIATE): no two inserts meet")
    adjudicate(store, "lee", "1", "d01", 0, "", shown=(None, ""))   # lee exists, a lead
    other = store.engine.connect()
    tx = other.begin()
    ids = other.execute(text(
        "SELECT (SELECT id FROM collection LIMIT 1), (SELECT id FROM topic WHERE key = '1'),"
        " (SELECT id FROM document WHERE key = 'd00'), (SELECT id FROM assessor WHERE "
        "name = 'lee')")).one()
    other.execute(text(
        "INSERT INTO adjudication (collection_id, topic_id, document_id, grade, lead_id, "
        "note, updated_at) VALUES (:c, :t, :d, 3, :l, 'other tab', now())"),
        dict(c=ids[0], t=ids[1], d=ids[2], l=ids[3]))
    got: list[BaseException | None] = []

    def mine() -> None:
        try:
            adjudicate(store, "lee", "1", "d00", 1, "mine", shown=(None, ""))
            got.append(None)
        except BaseException as exc:  # noqa: BLE001 (the test reads it)
            got.append(exc)

    th = threading.Thread(target=mine)
    th.start()
    time.sleep(1.0)            # this session's insert now waits on the other's
    tx.commit()
    other.close()
    th.join(30)
    assert len(got) == 1 and isinstance(got[0], ChangedMeanwhile), got
    assert "final grade 3 (reason: other tab)" in str(got[0])


def test_a_retry_finds_its_own_earlier_try_and_writes_nothing(db_url: str) -> None:
    """A save retried after its first try's answer was lost: the judgment at the shown
    version + 1 with exactly this save's fields is that try, returned as it is."""
    store = make_project(db_url)
    view = store.assessor("ann")
    topic = view.topics()[0].key
    item = view.item(topic, 1)
    first = view.record(source="tui", topic=topic, doc=item.doc, grade=2, dwell_ms=700,
                        expected_version=item.version)
    again = view.record(source="tui", topic=topic, doc=item.doc, grade=2, dwell_ms=700,
                        expected_version=item.version, retry=True)
    assert (again.version, again.grade, again.dwell_ms, again.meanwhile) == (1, 2, 700, None)
    assert [h.version for h in view.history(topic, item.doc)] == [1]
    assert first.updated_at == again.updated_at
    # Not its own (another grade since): written, and said as what it replaced.
    other = view.record(source="tui", topic=topic, doc=item.doc, grade=0, dwell_ms=5,
                        expected_version=item.version, retry=True)
    assert other.version == 2 and other.meanwhile is not None and other.meanwhile.grade == 2
    # A retry of a save shown at a later version is checked the same way.
    late = view.record(source="tui", topic=topic, doc=item.doc, grade=0, dwell_ms=5,
                       expected_version=1, retry=True)
    assert late.version == 2 and [h.version for h in view.history(topic, item.doc)] == [1, 2]
