"""The decision guard: a lead's change of a final grade must go with its history row.

Part of ``relkit team init`` on PostgreSQL (:mod:`relkit.judging.store.access.policies`), as
:mod:`.history_guard` is for judgments: two deferred constraint triggers, on
``adjudication`` and on ``adjudication_history``, holding the leads' logins (not the
owner) to :func:`relkit.judging.store.decisions.adjudicate`'s way of writing a decision.
``relkit db check`` looks for them by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import text

from relkit.judging.store.access.quoting import literal, quote

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection

NAMES = ("relkit_decision_with_history", "relkit_history_with_decision")


def install_decision_guard(conn: Connection, schema: str, leads: list[str]) -> None:
    """A lead's insert or update of ``adjudication`` must be recorded by the pair's
    latest ``adjudication_history`` row (same lead, grade, reason and time), and a
    history row a lead inserts must record the pair's decision as it now is.

    Without it a lead's ``UPDATE adjudication SET grade = 1`` through psql would change
    the final grade and leave no trace. Checked at commit (relkit writes the decision
    first, its history row next, in one transaction). Only the leads' logins are held
    (named in the triggers' WHEN, brought up to date by a re-run after `relkit assign`).

    One change of a pair per transaction: each event is checked at commit against the
    pair's latest history row as it is then, so two changes of one pair in one psql
    transaction, each with its own row, are refused (the first one's row is no longer
    the latest). relkit's :func:`~relkit.judging.store.decisions.adjudicate` commits each
    change on its own.
    """
    sch = quote(conn, schema)
    persons = (f"current_user = ANY (ARRAY[{', '.join(literal(x) for x in leads)}]::name[])"
               if leads else "false")
    # The pair's latest history row: its current decision.
    latest = (f"SELECT h.* INTO cur FROM {sch}.adjudication_history h WHERE h.topic_id = "
              "NEW.topic_id AND h.document_id = NEW.document_id ORDER BY h.id DESC LIMIT 1")
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_decision_with_history() RETURNS trigger "
        f"LANGUAGE plpgsql SET search_path = {sch}, pg_temp AS $$ "
        "DECLARE cur record; BEGIN "
        f"{latest}; "
        "IF NOT FOUND OR cur.grade <> NEW.grade OR cur.note <> NEW.note OR cur.lead_id <> "
        "NEW.lead_id OR cur.recorded_at <> NEW.updated_at OR cur.collection_id <> "
        "NEW.collection_id OR (TG_OP = 'UPDATE' AND (cur.old_grade IS DISTINCT FROM "
        "OLD.grade OR NEW.topic_id <> OLD.topic_id OR NEW.document_id <> OLD.document_id)) "
        "OR (TG_OP = 'INSERT' AND cur.old_grade IS NOT NULL) THEN "
        "RAISE EXCEPTION 'final grade of pair %/% changed without its history row: a "
        "decision changes only with the history row recording it', NEW.topic_id, "
        "NEW.document_id USING ERRCODE = 'integrity_constraint_violation'; "
        "END IF; RETURN NULL; END $$"))
    conn.execute(text(f"DROP TRIGGER IF EXISTS relkit_decision_with_history ON "
                      f"{sch}.adjudication"))
    conn.execute(text(
        "CREATE CONSTRAINT TRIGGER relkit_decision_with_history AFTER INSERT OR UPDATE ON "
        f"{sch}.adjudication DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ({persons}) "
        f"EXECUTE FUNCTION {sch}.relkit_decision_with_history()"))
    # And the other way: no history row added to the past, or for a decision not made.
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_history_with_decision() RETURNS trigger "
        f"LANGUAGE plpgsql SET search_path = {sch}, pg_temp AS $$ "
        "DECLARE cur record; BEGIN "
        f"{latest}; "
        f"IF cur.id <> NEW.id OR NOT EXISTS (SELECT 1 FROM {sch}.adjudication a WHERE "
        "a.topic_id = NEW.topic_id AND a.document_id = NEW.document_id AND a.grade = "
        "NEW.grade AND a.note = NEW.note AND a.lead_id = NEW.lead_id AND a.updated_at = "
        "NEW.recorded_at) THEN "
        "RAISE EXCEPTION 'history row % records no decision made in this transaction: "
        "a final grade''s history is appended only with the decision it records', NEW.id "
        "USING ERRCODE = 'integrity_constraint_violation'; "
        "END IF; RETURN NULL; END $$"))
    conn.execute(text(f"DROP TRIGGER IF EXISTS relkit_history_with_decision ON "
                      f"{sch}.adjudication_history"))
    conn.execute(text(
        "CREATE CONSTRAINT TRIGGER relkit_history_with_decision AFTER INSERT ON "
        f"{sch}.adjudication_history DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        f"WHEN ({persons}) EXECUTE FUNCTION {sch}.relkit_history_with_decision()"))
