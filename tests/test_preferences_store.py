"""Preference judgments in the store (issue 38): answers, history, undo, progress, bad
pairs, the migration to 0008 with data, and row-level security on PostgreSQL."""

from __future__ import annotations

import pytest
from sqlalchemy import text

from relkit.judging.store.assign import Store
from relkit.judging.store.connection import make_engine
from relkit.judging.store.migrate import current, head, upgrade
from relkit.judging.store.models import StoreError
from relkit.judging.store.preferences import PreferenceView, current_answers, topic_progress
from store_helpers import make_project, old_database, snapshot
from test_team_rls import Team, team  # noqa: F401  (the team fixture)


def test_an_answer_is_kept_with_its_history_and_undone(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0)
    ann = PreferenceView(store, "ann")
    topic = "1"
    docs = ann.documents(topic)
    assert len(docs) == 8
    first = ann.record(topic, docs[0], docs[1], "left", note="clearer")
    assert (first.answer, first.version) == ("left", 1)
    # The same pair shown the other way round is the same pair: a revision.
    second = ann.record(topic, docs[1], docs[0], "equal", flagged=True)
    assert second.version == 2
    (now,) = ann.answers(topic)
    assert (now.left, now.right, now.answer, now.flagged) == (docs[1], docs[0], "equal", True)
    ann.undo(topic, docs[1], docs[0])
    assert [p.answer for p in ann.answers(topic)] == [None]
    assert current_answers(store) == []  # an undone pair is not an answer
    assert [(p.answer, p.version, p.note) for p in ann.history(topic)] == [
        ("left", 1, "clearer"), ("equal", 2, ""), (None, 3, "")]
    ann.record(topic, docs[2], docs[3], "neither")
    assert ann.progress(topic) == (1, 28)  # 8 documents: 28 pairs
    progress = topic_progress(store)
    assert progress["ann", "1"] == (1, 28)
    assert progress["bob", "007"] == (0, 28)


def test_history_is_append_only(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0)
    ann = PreferenceView(store, "ann")
    ann.record("1", "d00", "d01", "right")
    for sql in ("UPDATE preference_history SET answer = 'left'", "DELETE FROM preference_history"):
        with pytest.raises(Exception, match="append-only"), store.writer.begin() as conn:
            conn.execute(text(sql))
    assert [p.answer for p in ann.history("1")] == ["right"]


@pytest.mark.parametrize(("left", "right", "message"), [
    ("d00", "d00", "a pair needs two different documents; got 'd00' twice"),
    ("d00", "nope", "document 'nope' is not in the collection"),
    ("d00", "d11", "document 'd11' of topic '1' is not assigned to 'ann'"),
])
def test_bad_pairs_are_refused_in_one_line(db_url: str, left: str, right: str,
                                           message: str) -> None:
    store = make_project(db_url, overlap=1.0)
    before = snapshot(store)
    with pytest.raises(StoreError) as exc:
        PreferenceView(store, "ann").record("1", left, right, "left")
    assert str(exc.value).startswith(message)
    assert "\n" not in str(exc.value)
    assert snapshot(store) == before


def test_an_unknown_answer_is_refused(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0)
    with pytest.raises(StoreError, match="answer 'better' is not one of left, right, equal"):
        PreferenceView(store, "ann").record("1", "d00", "d01", "better")


def test_a_database_at_0007_upgrades_with_its_data(db_url: str) -> None:
    old_database(db_url, "0007")
    engine = make_engine(db_url)
    assert current(engine) == "0007"
    engine.dispose()
    store = Store.open(db_url)  # upgrades to head
    assert current(store.engine) == head() == "0008"
    with store.engine.connect() as conn:
        assert conn.execute(text("SELECT key FROM topic")).scalar() == "007"
        assert conn.execute(text("SELECT count(*) FROM preference")).scalar() == 0
    upgrade(store.engine)  # idempotent
    assert current(store.engine) == "0008"


def _downgrade(store: Store, revision: str) -> None:
    from alembic import command

    from relkit.judging.store.migrate import _config

    cfg = _config()
    with store.writer.begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, revision)


def test_a_project_with_judgments_at_0007_upgrades_and_takes_preferences(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d00", grade=1)
    _downgrade(store, "0007")
    assert current(store.engine) == "0007"
    upgrade(store.engine)
    assert current(store.engine) == "0008"
    assert [(j.doc, j.grade) for j in store.assessor("ann").judgments()] == [("d00", 1)]
    PreferenceView(store, "ann").record("1", "d00", "d01", "left")
    assert [(p.left, p.answer) for p in current_answers(store)] == [("d00", "left")]


# -- row-level security (PostgreSQL, after `relkit team init`) ----------------------------


def _rls_checks(team: Team) -> None:  # noqa: F811
    bob_view = PreferenceView(team.store, "bob")
    bob_view.record(bob_view.view.topics()[0].key, *_two(team, "bob"), "left")
    bob = int(team.owner_scalar("SELECT id FROM assessor WHERE name = 'bob'"))  # type: ignore[arg-type]
    for table in ("preference", "preference_history"):
        got = team.psql("ann", f"SELECT count(*) FROM {table} WHERE assessor_id = {bob}")
        assert got.returncode == 0, got.stderr
        assert got.stdout.strip() == "0", table
    pair = str(team.owner_scalar("SELECT topic_id || ',' || left_id || ',' || right_id "
                                 "FROM preference LIMIT 1")).split(",")
    t, lo, hi = pair[0], min(map(int, pair[1:])), max(map(int, pair[1:]))
    got = team.psql("ann", "INSERT INTO preference (collection_id, assessor_id, topic_id, "
                    "left_id, right_id, low_id, high_id, answer, note, flagged, version, "
                    f"source, created_at, updated_at) VALUES (1, {bob}, {t}, {lo}, {hi}, "
                    f"{lo}, {hi}, 'right', '', false, 1, 'api', now(), now())")
    assert got.returncode != 0 and "row-level security" in got.stderr, got.stderr
    got = team.psql("ann", f"INSERT INTO preference_history (preference_id, version, "
                    "assessor_id, topic_id, left_id, right_id, answer, note, flagged, source, "
                    f"recorded_at) VALUES (1, 9, {bob}, 1, 1, 2, 'left', '', false, 'api', "
                    "now())")
    assert got.returncode != 0 and "row-level security" in got.stderr, got.stderr
    for sql in ("UPDATE preference_history SET answer = 'right'",
                "DELETE FROM preference_history", "TRUNCATE preference_history",
                "DELETE FROM preference"):
        got = team.psql("ann", sql)
        assert got.returncode != 0 and "permission denied" in got.stderr, (sql, got.stderr)
    # Through relkit with her own login: her own answer on her own documents only.
    ann = Store.open(team.url("ann"), create=False)
    try:
        view = PreferenceView(ann, "ann")
        topic = view.view.topics()[0].key
        left, right = view.documents(topic)[:2]
        view.record(topic, left, right, "right")
        assert [(p.assessor, p.answer) for p in current_answers(ann)] == [("ann", "right")]
    finally:
        ann.close()
    got = team.psql("carol", "SELECT count(*) FROM preference")  # a lead reads all
    assert got.returncode == 0 and got.stdout.strip() == "2", got.stderr


def _two(team: Team, who: str) -> tuple[str, str]:  # noqa: F811
    view = PreferenceView(team.store, who)
    topic = view.view.topics()[0].key
    left, right = view.documents(topic)[:2]
    return left, right


def test_team_preferences_are_each_persons_own(team: Team) -> None:  # noqa: F811
    _rls_checks(team)
    # Her own answer changed through psql without its history row: refused at commit.
    got = team.psql("ann", "UPDATE preference SET answer = 'left'")
    assert got.returncode != 0 and "changed without its history row" in got.stderr, got.stderr
    assert team.owner_scalar("SELECT answer FROM preference p JOIN assessor a ON "
                             "a.id = p.assessor_id WHERE a.name = 'ann'") == "right"


def test_team_policies_come_with_the_upgrade_to_0008(team: Team) -> None:  # noqa: F811
    _downgrade(team.store, "0007")
    upgrade(team.store.engine)  # a team database: the migration gives the policies
    _rls_checks(team)
