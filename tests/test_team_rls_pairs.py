"""A person's login judges only the documents they were given.

Row-level security already holds ann to her own judgments; these tests hold her to her
own *pairs*: with psql (the real client, her own login) she cannot add a judgment, with
its history row, for a document of her topic that is not in her assignment, nor for a
topic she was not assigned; nor give herself an item outside an adaptive pool's
candidates. The same write for a document she was given goes through, so the refusals
are the rule's, not the statement's.

Against the real PostgreSQL server of the store tests (skipped without RELKIT_TEST_PG).
"""

from __future__ import annotations

from sqlalchemy import text

from helpers import fresh_pg_database
from relkit.judging.store.access.policies import init_team
from relkit.judging.store.assign import Store
from test_team_rls import (
    Team,
    _drop_roles,
    _need_pg,
    team,  # noqa: F401 (the fixture)
)


def _judge_sql(person_id: int, topic_id: int, doc_id: int) -> str:
    """One transaction: a judgment and its history row, as relkit writes them."""
    return (
        "BEGIN; INSERT INTO judgment (collection_id, assessor_id, topic_id, document_id, "
        "grade, status, note, flagged, dwell_ms, version, source, created_at, updated_at) "
        f"VALUES (1, {person_id}, {topic_id}, {doc_id}, 3, 'judged', '', false, 0, 1, 'api', "
        "now(), now()); "
        "INSERT INTO judgment_history (judgment_id, version, assessor_id, topic_id, "
        "document_id, grade, status, note, flagged, dwell_ms, source, recorded_at) "
        "SELECT id, 1, assessor_id, topic_id, document_id, grade, status, note, flagged, "
        f"dwell_ms, source, updated_at FROM judgment WHERE assessor_id = {person_id} AND "
        f"topic_id = {topic_id} AND document_id = {doc_id}; COMMIT")


def _ints(db: Team, sql: str) -> tuple[int, ...]:
    row = str(db.owner_scalar(sql))
    return tuple(int(x) for x in row.split(","))


def test_psql_ann_judges_only_the_pairs_she_was_given(team: Team) -> None:  # noqa: F811
    (ann,) = _ints(team, "SELECT id FROM assessor WHERE name = 'ann'")
    mine = ("SELECT x.topic_id || ',' || i.document_id FROM assignment x JOIN assignment_item "
            f"i ON i.assignment_id = x.id WHERE x.assessor_id = {ann} ")
    topic, given = _ints(team, mine + "ORDER BY i.id LIMIT 1")
    # a document of the same topic that is not in her assignment
    (other,) = _ints(team, f"SELECT d.id FROM document d WHERE d.id NOT IN (SELECT "
                     f"i.document_id FROM assignment x JOIN assignment_item i ON "
                     f"i.assignment_id = x.id WHERE x.assessor_id = {ann} AND x.topic_id = "
                     f"{topic}) ORDER BY d.id LIMIT 1")
    # a topic she was not assigned (added by the owner), with the document she was given
    with team.store.engine.begin() as conn:
        conn.execute(text("INSERT INTO topic (collection_id, key) VALUES (1, 'not-hers')"))
    (unassigned,) = _ints(team, "SELECT id FROM topic WHERE key = 'not-hers'")
    elsewhere = (unassigned, given)
    for t, d in ((topic, other), elsewhere):
        got = team.psql("ann", _judge_sql(ann, t, d))
        assert got.returncode != 0, (t, d, got.stdout)
        assert "row-level security" in got.stderr, got.stderr
    assert team.owner_scalar(f"SELECT count(*) FROM judgment WHERE assessor_id = {ann}") == 0
    got = team.psql("ann", _judge_sql(ann, topic, given))
    assert got.returncode == 0, got.stderr
    assert team.owner_scalar(f"SELECT count(*) FROM judgment_history WHERE assessor_id = "
                             f"{ann}") == 1
    # nor can she give herself the other document: a static assignment gets no items
    got = team.psql("ann", "INSERT INTO assignment_item (assignment_id, position, "
                    f"document_id, done) SELECT id, 999, {other}, false FROM assignment "
                    f"WHERE assessor_id = {ann} AND topic_id = {topic}")
    assert got.returncode != 0 and "row-level security" in got.stderr, got


def test_psql_adaptive_items_come_only_from_the_pools_candidates() -> None:
    from test_adaptive_judging import project as adaptive_project

    admin = _need_pg()
    url, drop = fresh_pg_database(admin)
    owner, _ = adaptive_project(url, "hedge", assessors=("ann", "bob"), overlap=0.5)
    prefix = init_team(owner).prefix
    crew = Team(url, prefix, owner)
    try:
        ann = Store.open(crew.url("ann"), create=False)
        try:   # the picker's own write goes through (her first candidate's item)
            view = ann.assessor("ann")
            t = sorted(x.key for x in view.topics() if x.total == 10)[0]
            assert view.next_item(t) is not None
        finally:
            ann.close()
        (aid,) = _ints(crew, "SELECT x.id FROM assignment x JOIN "
                         "assessor p ON p.id = x.assessor_id JOIN topic t ON t.id = "
                         f"x.topic_id WHERE p.name = 'ann' AND t.key = '{t}'")
        (outside,) = _ints(crew, "SELECT d.id FROM document d WHERE d.id NOT IN (SELECT "
                           f"e.document_id FROM pool_entry e JOIN assignment x ON x.pool_id = "
                           f"e.pool_id AND x.topic_id = e.topic_id WHERE x.id = {aid}) "
                           "ORDER BY d.id LIMIT 1")
        (candidate,) = _ints(crew, "SELECT e.document_id FROM pool_entry e JOIN assignment x "
                             "ON x.pool_id = e.pool_id AND x.topic_id = e.topic_id WHERE x.id "
                             f"= {aid} AND e.document_id NOT IN (SELECT document_id FROM "
                             f"assignment_item WHERE assignment_id = {aid}) LIMIT 1")
        got = crew.psql("ann", "INSERT INTO assignment_item (assignment_id, position, "
                        f"document_id, done) VALUES ({aid}, 2, {outside}, false)")
        assert got.returncode != 0 and "row-level security" in got.stderr, got
        # nor a candidate of her choosing at a position beyond the quota (the picker's
        # n-th pick is position n)
        got = crew.psql("ann", "INSERT INTO assignment_item (assignment_id, position, "
                        f"document_id, done) VALUES ({aid}, 901, {candidate}, false)")
        assert got.returncode != 0 and "row-level security" in got.stderr, got
        got = crew.psql("ann", "INSERT INTO assignment_item (assignment_id, position, "
                        f"document_id, done) SELECT {aid}, max(position) + 1, {candidate}, "
                        f"false FROM assignment_item WHERE assignment_id = {aid}")
        assert got.returncode == 0, got.stderr
    finally:
        owner.close()
        drop()
        _drop_roles(admin, prefix)


def test_psql_ann_cannot_revise_a_judgment_of_a_pair_she_was_not_given(
        team: Team) -> None:  # noqa: F811
    """An imported judgment (the owner's) of a pair not in her items stays as it is,
    even with a history row that matches her revision."""
    (ann,) = _ints(team, "SELECT id FROM assessor WHERE name = 'ann'")
    (topic,) = _ints(team, f"SELECT topic_id FROM assignment WHERE assessor_id = {ann} "
                     "ORDER BY id LIMIT 1")
    (other,) = _ints(team, f"SELECT d.id FROM document d WHERE d.id NOT IN (SELECT "
                     f"i.document_id FROM assignment x JOIN assignment_item i ON "
                     f"i.assignment_id = x.id WHERE x.assessor_id = {ann} AND x.topic_id = "
                     f"{topic}) ORDER BY d.id LIMIT 1")
    with team.store.engine.begin() as conn:   # as an import would leave it
        conn.execute(text(_judge_sql(ann, topic, other).replace("BEGIN; ", "")
                          .replace("; COMMIT", "")))
    (jid,) = _ints(team, f"SELECT id FROM judgment WHERE assessor_id = {ann}")
    got = team.psql("ann", f"BEGIN; UPDATE judgment SET grade = 0, version = 2, source = "
                    f"'tui', updated_at = clock_timestamp() WHERE id = {jid}; "
                    "INSERT INTO judgment_history (judgment_id, version, assessor_id, "
                    "topic_id, document_id, grade, status, note, flagged, dwell_ms, source, "
                    "recorded_at) SELECT id, 2, assessor_id, topic_id, document_id, grade, "
                    "status, note, flagged, 0, source, updated_at FROM judgment WHERE id = "
                    f"{jid}; COMMIT")
    assert got.returncode != 0 and "row-level security" in got.stderr, got
    assert team.owner_scalar(f"SELECT grade || '/' || version FROM judgment WHERE id = {jid}"
                             ) == "3/1"
