"""One current answer per assessor and pair (review 4, finding 5): a preference row's pair
key (low_id, high_id) must be its shown documents, a history row must belong to the
person's own row of the same pair, and ``relkit db check`` compares every preference
with its latest history row. On SQLite, on PostgreSQL, and on a team database through
an assessor's own psql login."""

from __future__ import annotations

import pytest
from sqlalchemy import text
from sqlalchemy.exc import IntegrityError

from helpers import run_cli
from relkit.judging.store.assign import Store
from relkit.judging.store.preferences import PreferenceView, current_answers
from store_helpers import make_project
from test_team_rls import Team, team  # noqa: F401  (the team fixture)

# A copy of a preference row with another pair key (and the history row to go with it).
FORGE = ("INSERT INTO preference (collection_id, assessor_id, topic_id, left_id, right_id, "
         "low_id, high_id, answer, note, flagged, version, source, created_at, updated_at) "
         "SELECT collection_id, assessor_id, topic_id, left_id, right_id, {low}, {high}, "
         "'left', note, flagged, 1, source, {now}, {now} FROM preference WHERE id = {pid}")
FORGE_HISTORY = ("INSERT INTO preference_history (preference_id, version, assessor_id, "
                 "topic_id, left_id, right_id, answer, note, flagged, source, recorded_at) "
                 "SELECT p.id, 1, p.assessor_id, p.topic_id, p.left_id, p.right_id, p.answer, "
                 "p.note, p.flagged, p.source, p.updated_at FROM preference p "
                 "WHERE p.id <> {pid}")


def _answered(store: Store) -> int:
    PreferenceView(store, "ann").record("1", "d01", "d02", "right")
    with store.engine.connect() as conn:
        return int(conn.execute(text("SELECT id FROM preference")).scalar_one())


@pytest.mark.parametrize("key", ["nowhere", "other documents"])
def test_a_second_row_on_the_same_pair_is_refused(db_url: str, key: str) -> None:
    store = make_project(db_url, overlap=1.0)
    pid = _answered(store)
    with store.engine.connect() as conn:
        ids = dict(conn.execute(text("SELECT key, id FROM document")).all())
    low, high = ((1000000, 1000001) if key == "nowhere"
                 else sorted((ids["d03"], ids["d04"])))
    with pytest.raises(IntegrityError), store.writer.begin() as conn:
        conn.execute(text(FORGE.format(low=low, high=high, now="CURRENT_TIMESTAMP", pid=pid)))
    assert [(p.left, p.right, p.answer) for p in current_answers(store)] == [
        ("d01", "d02", "right")]


def test_db_check_compares_each_preference_with_its_history(db_url: str) -> None:
    store = make_project(db_url, overlap=1.0)
    _answered(store)
    code, out, err = run_cli(["db", "check", "--db", db_url])
    assert code == 0 and "ok    preference history" in out, out + err
    with store.writer.begin() as conn:   # the owner, past relkit
        conn.execute(text("UPDATE preference SET answer = 'left'"))
    code, out, err = run_cli(["db", "check", "--db", db_url])
    line = next((x for x in out.splitlines() if "preference history" in x), out + err)
    assert code == 1 and line.startswith("FAIL") and "1 preference differs" in line, line


def test_db_check_finds_two_rows_on_one_pair(tmp_path: object) -> None:
    """A row past the constraints (SQLite can be told to ignore CHECKs): its history row
    matches it, but it holds the same pair as another row of the same assessor."""
    db = str(tmp_path) + "/judging.db"  # type: ignore[operator]
    store = make_project(db, overlap=1.0)
    pid = _answered(store)
    with store.engine.connect() as conn:
        low, high = sorted(conn.execute(text(
            "SELECT id FROM document WHERE key IN ('d03', 'd04')")).scalars())
    with store.writer.begin() as conn:
        conn.execute(text("PRAGMA ignore_check_constraints = ON"))
        conn.execute(text(FORGE.format(low=low, high=high,
                                       now="'2026-11-28 00:00:00.000000'", pid=pid)))
        conn.execute(text(FORGE_HISTORY.format(pid=pid)))
    store.close()
    code, out, err = run_cli(["db", "check", "--db", db])
    line = next((x for x in out.splitlines() if "preference history" in x), out + err)
    assert code == 1 and line.startswith("FAIL"), line
    assert "1 preference holds a pair another row of the same assessor holds" in line, line


def test_team_an_assessor_cannot_forge_a_second_answer(team: Team) -> None:  # noqa: F811
    ann = Store.open(team.url("ann"), create=False)
    try:
        view = PreferenceView(ann, "ann")
        topic = view.view.topics()[0].key
        docs = view.documents(topic)
        view.record(topic, docs[0], docs[1], "right")
    finally:
        ann.close()
    pid = int(team.owner_scalar("SELECT id FROM preference"))  # type: ignore[arg-type]
    # Her own row copied with another pair key, with its history row, in one transaction.
    got = team.psql("ann", FORGE.format(low=1000000, high=1000001, now="now()", pid=pid)
                    + "; " + FORGE_HISTORY.format(pid=pid))
    assert got.returncode != 0 and "preference_pair_sides" in got.stderr, got.stderr
    # A history row on her own preference, but for another pair of her documents.
    got = team.psql("ann", "INSERT INTO preference_history (preference_id, version, "
                    "assessor_id, topic_id, left_id, right_id, answer, note, flagged, source, "
                    "recorded_at) SELECT p.id, 2, p.assessor_id, p.topic_id, d.id, e.id, "
                    "'left', '', false, 'api', now() FROM preference p, document d, "
                    f"document e WHERE d.key = '{docs[2]}' AND e.key = '{docs[3]}'")
    assert got.returncode != 0 and "row-level security" in got.stderr, got.stderr
    assert team.owner_scalar("SELECT count(*) FROM preference") == 1
    assert team.owner_scalar("SELECT count(*) FROM preference_history") == 1
