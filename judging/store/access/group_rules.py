"""What the team's two groups may do: their table grants, the SQL functions the policies
call, and the row-level security policies themselves.

:func:`~relkit.judging.store.access.policies.init_team` creates the roles and the
logins and decides when to run these; the statements are here, in one place, so a reader
checking what an assessor or a lead may read and write finds all of it together (the
module doc of :mod:`.policies` says it in words).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import text

from relkit.judging.store.access.quoting import literal as _literal
from relkit.judging.store.access.quoting import quote as _q

if TYPE_CHECKING:
    from sqlalchemy import Connection


# Readable by every team role, whole: no person's data in them.
SHARED = ("alembic_version", "collection", "scale_grade", "assessor")
# Row-level security on these.
GUARDED = ("topic", "document", "pool", "pool_entry", "assignment", "assignment_item",
           "judgment", "judgment_history", "gold", "adjudication", "adjudication_history")
# The judgment columns a revision sets (relkit.judging.store.recording._upsert_statement).
REVISED = ("grade", "status", "note", "flagged", "dwell_ms", "version", "source", "updated_at")
# The adjudication columns a changed decision sets (relkit.judging.store.decisions.adjudicate).
DECIDED = ("grade", "lead_id", "note", "updated_at")


def _grants(conn: Connection, schema: str, database: str, ga: str, gl: str) -> None:
    sch, a, lead = _q(conn, schema), _q(conn, ga), _q(conn, gl)
    both = f"{a}, {lead}"

    def t(name: str) -> str:
        return f"{sch}.{_q(conn, name)}"

    def seq(table: str) -> str:
        return f"{sch}.{_q(conn, table + '_id_seq')}"

    for stmt in (
        f"GRANT CONNECT ON DATABASE {_q(conn, database)} TO {both}",
        f"GRANT USAGE ON SCHEMA {sch} TO {both}",
        # Start from nothing on relkit's tables, so a re-run takes back what it no longer gives.
        f"REVOKE ALL ON {', '.join(t(n) for n in SHARED + GUARDED)} FROM {both}",
        f"GRANT SELECT ON {', '.join(t(n) for n in SHARED + GUARDED)} TO {both}",
        # The assessor's writes: exactly those of AssessorView.record and the adaptive picker.
        # On revision, only the columns AssessorView.record's upsert sets (never who,
        # which pair, or when it was first judged); history_guard's trigger ties each
        # change to its history row.
        f"GRANT INSERT, UPDATE ({', '.join(REVISED)}) ON {t('judgment')} TO {a}",
        f"GRANT INSERT ON {t('judgment_history')} TO {a}",
        f"GRANT INSERT, UPDATE (done) ON {t('assignment_item')} TO {a}",
        f"GRANT USAGE ON SEQUENCE {seq('judgment')}, {seq('judgment_history')}, "
        f"{seq('assignment_item')} TO {a}",
        # The lead's: final decisions, each with its history row (never an edit of one).
        f"GRANT INSERT, UPDATE ({', '.join(DECIDED)}) ON {t('adjudication')} TO {lead}",
        f"GRANT INSERT ON {t('adjudication_history')} TO {lead}",
        f"GRANT USAGE ON SEQUENCE {seq('adjudication')}, {seq('adjudication_history')} "
        f"TO {lead}",
    ):
        conn.execute(text(stmt))


def _functions(conn: Connection, schema: str, prefix: str) -> None:
    sch = _q(conn, schema)
    conn.execute(text(f"CREATE OR REPLACE FUNCTION {sch}.relkit_role_prefix() RETURNS text "
                      f"LANGUAGE sql IMMUTABLE AS $$ SELECT {_literal(prefix)}::text $$"))
    # Invoker's rights: current_user is the person querying (inside a SECURITY DEFINER
    # function it would be the owner).
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_assessor() RETURNS integer "
        f"LANGUAGE sql STABLE AS $$ SELECT id FROM {sch}.assessor WHERE kind = 'human' "
        f"AND {sch}.relkit_role_prefix() || name = current_user::text $$"))
    # Owner's rights, so a policy on `assignment` need not query `assignment` under its own
    # policy (PostgreSQL refuses that recursion). They return ids only.
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_assignments(who integer) "
        # ROWS: a person has a few assignments, not the 1000 rows PostgreSQL assumes of a
        # set-returning function (which would mislead the planner on every policy).
        f"RETURNS SETOF integer LANGUAGE sql STABLE SECURITY DEFINER ROWS 10 "
        f"SET search_path = {sch}, pg_temp AS $$ "
        f"SELECT id FROM {sch}.assignment WHERE assessor_id = who "
        f"UNION SELECT follows_id FROM {sch}.assignment "
        f"WHERE assessor_id = who AND follows_id IS NOT NULL $$"))


def _policies(conn: Connection, schema: str, ga: str, gl: str) -> None:
    sch, a, lead = _q(conn, schema), _q(conn, ga), _q(conn, gl)
    me = f"(SELECT {sch}.relkit_assessor())"
    mine = f"(SELECT {sch}.relkit_assignments({me}))"
    own_assignments = f"(SELECT x.id FROM {sch}.assignment x WHERE x.assessor_id = {me})"
    given = (f"assessor_id = {me} AND EXISTS (SELECT 1 FROM {sch}.assignment x "
             f"JOIN {sch}.assignment_item i ON i.assignment_id = x.id "
             f"WHERE x.assessor_id = {me} AND x.topic_id = judgment.topic_id "
             "AND i.document_id = judgment.document_id)")
    rules: dict[str, list[tuple[str, str, str, str | None]]] = {
        # table: [(policy, command, USING, WITH CHECK)] for the assessors' group
        "assignment": [("select", "SELECT", f"id IN {mine}", None)],
        "assignment_item": [
            ("select", "SELECT", f"assignment_id IN {mine}", None),
            # Only an adaptive assignment's picker adds items, and only its pool's
            # candidates: an item is what makes a document one the person may judge.
            ("insert", "INSERT", "",
             # (At a position within the quota: the picker's n-th pick is position n,
             # and an overlap assessor samples the primary's positions up to it.)
             f"EXISTS (SELECT 1 FROM {sch}.assignment x JOIN {sch}.pool_entry e ON "
             "e.pool_id = x.pool_id AND e.topic_id = x.topic_id WHERE x.id = "
             f"assignment_item.assignment_id AND x.assessor_id = {me} AND x.quota IS NOT "
             "NULL AND assignment_item.position BETWEEN 1 AND x.quota "
             "AND e.document_id = assignment_item.document_id)"),
            ("update", "UPDATE", f"assignment_id IN {own_assignments}",
             f"assignment_id IN {own_assignments}")],
        "topic": [("select", "SELECT", f"id IN (SELECT x.topic_id FROM {sch}.assignment x "
                                       f"WHERE x.assessor_id = {me})", None)],
        "pool": [("select", "SELECT", f"id IN (SELECT x.pool_id FROM {sch}.assignment x "
                                      f"WHERE x.assessor_id = {me})", None)],
        "pool_entry": [("select", "SELECT", f"EXISTS (SELECT 1 FROM {sch}.assignment x "
                        f"WHERE x.assessor_id = {me} AND x.quota IS NOT NULL "
                        "AND x.pool_id = pool_entry.pool_id "
                        "AND x.topic_id = pool_entry.topic_id)", None)],
        # Probed per row through the (assignment, document) unique index, not a set of
        # every document of the assessor's assignments built per query.
        "document": [("select", "SELECT",
                      f"EXISTS (SELECT 1 FROM {sch}.assignment_item i WHERE i.document_id = "
                      f"document.id AND i.assignment_id IN {mine}) OR EXISTS (SELECT 1 FROM "
                      f"{sch}.pool_entry e JOIN {sch}.assignment x ON x.pool_id = e.pool_id "
                      "AND x.topic_id = e.topic_id WHERE e.document_id = document.id AND "
                      f"x.assessor_id = {me} AND x.quota IS NOT NULL)", None)],
        # Her own, and only of a document she was given (an item of her assignment to
        # that topic), when first written and when revised (an imported judgment of a
        # pair she was not given, or one whose item went, stays as it is). The pair
        # itself cannot change: the UPDATE grant leaves out topic and document.
        "judgment": [("select", "SELECT", f"assessor_id = {me}", None),
                     ("insert", "INSERT", "", given),
                     ("update", "UPDATE", f"assessor_id = {me}", given)],
        "judgment_history": [("select", "SELECT", f"assessor_id = {me}", None),
                             ("insert", "INSERT", "", f"assessor_id = {me}")],
        "gold": [],
        "adjudication": [],
        "adjudication_history": [],
    }
    for table in GUARDED:
        t = f"{sch}.{_q(conn, table)}"
        conn.execute(text(f"ALTER TABLE {t} ENABLE ROW LEVEL SECURITY"))
        # Re-runs replace relkit's policies; a policy someone else added stays.
        for (name,) in conn.execute(text(
                "SELECT policyname FROM pg_policies WHERE schemaname = :s AND tablename = :t "
                "AND policyname LIKE 'relkit\\_%'"), {"s": schema, "t": table}).all():
            conn.execute(text(f"DROP POLICY {_q(conn, name)} ON {t}"))
        for name, command, using, check in rules[table]:
            clause = (f" USING ({using})" if using else "") + (
                f" WITH CHECK ({check})" if check else "")
            conn.execute(text(f"CREATE POLICY relkit_assessor_{name} ON {t} FOR {command} "
                              f"TO {a}{clause}"))
        conn.execute(text(f"CREATE POLICY relkit_lead_select ON {t} FOR SELECT TO {lead} "
                          "USING (true)"))
    t = f"{sch}.adjudication"
    conn.execute(text(f"CREATE POLICY relkit_lead_insert ON {t} FOR INSERT TO {lead} "
                      f"WITH CHECK (lead_id = {me})"))
    conn.execute(text(f"CREATE POLICY relkit_lead_update ON {t} FOR UPDATE TO {lead} "
                      f"USING (true) WITH CHECK (lead_id = {me})"))
    conn.execute(text(f"CREATE POLICY relkit_lead_insert ON {sch}.adjudication_history FOR "
                      f"INSERT TO {lead} WITH CHECK (lead_id = {me})"))
