"""`relkit judge`'s first screen read with sqlite3 equals what the store reads.

The light reader (judging/store/light.py) and the command's checks on it
(judging/tui/start.py) draw the topic list before the store is imported; whatever
they give must be exactly what the store gives, and whatever they cannot settle must
be left to the store's path (``None``).
"""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from relkit.judging.store.assign import Store
from relkit.judging.store.light import LightReader, sqlite_file
from relkit.judging.store.models import TopicOut
from relkit.judging.tui.start import first_screen
from store_helpers import make_project, old_database


def as_store(topics: list[TopicOut]) -> list[TopicOut]:
    assert all(type(t) is TopicOut for t in topics)  # the store's own values
    return topics


def same_as_store(db: Path, assessor: str) -> None:
    first = first_screen(str(db), assessor)
    assert first is not None
    store = Store.open(db, readonly=True)
    try:
        view = store.assessor(assessor)
        assert first.assessor == assessor
        assert first.scale == view.scale() == store.scale()
        assert as_store(first.topics) == view.topics()
        # the same types, not only equal values (a grade count is an int, not a str)
        for light, real in zip(first.topics, view.topics(), strict=True):
            for a, b in zip(vars(light).values(), vars(real).values(), strict=True):
                assert type(a) is type(b)
        reader = LightReader.open(db)
        assert reader is not None
        for role in (None, "assessor", "lead"):
            for kind in (None, "human", "automatic"):
                assert reader.assessors(role, kind) == store.assessors(role, kind)
        reader.close()
    finally:
        store.close()


def judge_some(store: Store, assessor: str) -> None:
    view = store.assessor(assessor)
    for t in view.topics():
        items = view.items(t.key)
        for i, item in enumerate(items[:5]):
            if i == 3:
                view.record(topic=t.key, doc=item.doc, status="skipped")
            elif i == 4:
                view.record(topic=t.key, doc=item.doc, status="later")
            else:
                view.record(topic=t.key, doc=item.doc, grade=i % 4, flagged=i == 1,
                            note="n" if i == 2 else "")


def test_the_same_topics_scale_and_assessors_as_the_store(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db), overlap=0.5)
    judge_some(store, "ann")
    store.add_assessor("lee", role="lead")
    store.add_assessor("gpt", kind="automatic")
    store.close()
    for who in ("ann", "bob"):
        same_as_store(db, who)
    # nothing judged yet and something judged: both topics' counts, asides and progress
    first = first_screen(str(db), "ann")
    assert first is not None and any(t.skipped and t.later for t in first.topics)


def test_the_shipped_sample_with_judgments(tmp_path: Path) -> None:
    from relkit.judging.demo import build

    db = tmp_path / "demo.db"
    build(str(db), 10, 0.3, 1)
    store = Store.open(db, create=False)
    judge_some(store, "bob")
    store.close()
    same_as_store(db, "ann")
    same_as_store(db, "bob")


@pytest.mark.slow
def test_one_hundred_thousand_items(tmp_path: Path) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "bench"))
    try:
        from tui_bench import build
    finally:
        sys.path.pop(0)
    db = tmp_path / "big.db"
    store = build(db, 100_000, 3)
    view = store.assessor("ann")
    for item in view.items("1")[:40]:
        view.record(topic="1", doc=item.doc, grade=item.position % 4)
    store.close()
    same_as_store(db, "ann")
    first = first_screen(str(db), None)  # the only assessor
    assert first is not None and first.topics[0].total == 100_000
    assert first.topics[0].done == 40


def test_what_it_cannot_settle_is_left_to_the_store(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    store = Store.open(db)
    store.add_assessor("lee", role="lead")
    store.add_assessor("gpt", kind="automatic")
    store.close()
    assert first_screen(str(db), None) is None  # two assessors: name yourself
    assert first_screen(str(db), "zed") is None  # unknown
    assert first_screen(str(db), "lee") is None  # a lead
    assert first_screen(str(db), "gpt") is None  # automatic
    assert first_screen("postgresql://u@h/db", "ann") is None
    assert first_screen(str(tmp_path / "missing.db"), "ann") is None
    (tmp_path / "empty.db").touch()
    assert first_screen(str(tmp_path / "empty.db"), "ann") is None  # (`relkit init` first)
    (tmp_path / "text.db").write_text("not a database\n" * 100)
    assert first_screen(str(tmp_path / "text.db"), "ann") is None
    # an older schema (the store upgrades it, with a backup, and says so)
    old_database(f"sqlite:///{tmp_path / 'old.db'}")
    assert first_screen(str(tmp_path / "old.db"), "ann") is None
    # a missing table
    shutil.copy(db, tmp_path / "broken.db")
    with sqlite3.connect(tmp_path / "broken.db") as conn:
        conn.execute("DROP TABLE judgment_history")
        conn.execute("DROP TABLE judgment")
    conn.close()
    assert first_screen(str(tmp_path / "broken.db"), "ann") is None
    # $RELKIT_USER: as `who` reads it
    monkeypatch.setenv("RELKIT_USER", "bob")
    first = first_screen(str(db), None)
    assert first is not None and first.assessor == "bob"
    assert first_screen(str(db), "ann") is None  # bob cannot judge as ann
    monkeypatch.setenv("RELKIT_USER", "lee")
    assert first_screen(str(db), None) is None  # a lead's login: the lead's screen
    monkeypatch.setenv("RELKIT_USER", "nobody")
    assert first_screen(str(db), "ann") is None


def test_an_empty_project_and_the_default_path(tmp_path: Path,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    from relkit.corpora.types import TREC_DL, Topic

    db = tmp_path / "relkit.db"
    store = Store.open(db)
    store.create_collection("c", TREC_DL, [Topic("1", "t")])
    store.add_assessor("ann")
    store.close()
    same_as_store(db, "ann")  # no assignment: no topics
    monkeypatch.chdir(tmp_path)
    first = first_screen(None, None)
    assert first is not None and first.topics == [] and first.assessor == "ann"
    monkeypatch.setenv("RELKIT_DB", str(db))
    monkeypatch.chdir(Path(__file__).parent)
    assert sqlite_file(None) == str(db)


def test_reading_never_writes(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    before = {p.name: p.read_bytes() for p in tmp_path.iterdir()}
    first_screen(str(db), "ann")
    assert {p.name: p.read_bytes() for p in tmp_path.iterdir() if p.name in before} == before
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        reader = LightReader.open(db)
        assert reader is not None
        reader.conn.execute("DELETE FROM judgment")


def test_the_constants_it_copies_are_the_stores() -> None:
    from relkit.judging.store import connection, light
    from relkit.judging.store.access import identity
    from relkit.judging.tui import start

    assert (light.DEFAULT_DB, light.ENV_VAR) == (connection.DEFAULT_DB, connection.ENV_VAR)
    assert start.ENV_USER == identity.ENV_USER


def test_the_first_screen_imports_no_store(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    # What `relkit judge` does before the app's first frame: the checks, the topics, the app.
    code = ("import sys\n"
            "from relkit.judging.tui.start import first_screen, StoreLoader\n"
            "from relkit.judging.tui.app import Settings, make_app\n"
            f"first = first_screen({str(db)!r}, 'ann')\n"
            "app = make_app(StoreLoader(first, lambda: 1 / 0), first.assessor, Settings())\n"
            "print(len(first.topics), ' '.join(sorted({m.split('.')[0] for m in sys.modules})))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert out[0] == "1"  # ann's topics
    assert not set(out[1:]) & {"sqlalchemy", "sqlmodel", "pydantic", "alembic"}


def test_the_topic_counts_come_from_one_snapshot(tmp_path: Path) -> None:
    """Every SELECT of the topic list runs in one read transaction, as the store's does:
    a session committing between two of them could not make a line's counts disagree."""
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    reader = LightReader.open(db)
    assert reader is not None
    aid = reader.conn.execute("SELECT id FROM assessor WHERE name = 'ann'").fetchone()[0]
    seen: list[tuple[str, bool]] = []
    reader.conn.set_trace_callback(
        lambda sql: seen.append((sql.split()[0].upper(), reader.conn.in_transaction)))
    assert reader.topics(aid)
    reader.conn.set_trace_callback(None)
    assert seen[0][0] == "BEGIN" and seen[-1][0] == "ROLLBACK"
    assert all(inside for verb, inside in seen if verb == "SELECT")
    assert not reader.conn.in_transaction
    reader.close()
