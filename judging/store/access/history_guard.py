"""The history guard: a person's write of a judgment must go with its history row.

Part of ``relkit team init`` on PostgreSQL (:mod:`relkit.judging.store.access.policies`):
two deferred constraint triggers, one on ``judgment`` and one on ``judgment_history``,
that hold the people's logins (not the owner) to relkit's way of writing a judgment.
``relkit db check`` looks for them by name.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlalchemy import text

from relkit.judging.store.access.quoting import literal, quote

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection


def install_guard(conn: Connection, schema: str, logins: list[str]) -> None:
    """A person's write of a judgment must go with its history row, or it is refused.

    Row-level security lets ann update her own judgment; without this, ``UPDATE
    judgment SET grade = 1`` through psql would change her grade and leave the history
    (and every export) disagreeing with it. At commit (a deferred constraint trigger:
    relkit writes the judgment first, its history row next, in one transaction) each
    judgment a person inserted or updated must be at version 1 (insert) or its old
    version + 1 (update), with a history row of that version recording the same grade,
    status, note, flag, source and time, and the dwell added. Only the people's
    ``logins`` are held (named in the triggers' WHEN, which a re-run after `relkit
    assign` brings up to date): the owner's imports write their history in bulk, and a
    WHEN that called ``relkit_assessor()`` cost them ~9 us a row (a 500k-row insert:
    0.42 → 4.78 s), where comparing ``current_user`` with a list of eight names cost at
    most ~0.3 us (231-342 ms without a trigger, 333-362 ms with it, PostgreSQL 15).
    """
    sch = quote(conn, schema)
    persons = (f"current_user = ANY (ARRAY[{', '.join(literal(x) for x in logins)}]::name[])"
               if logins else "false")
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_judgment_with_history() RETURNS trigger "
        f"LANGUAGE plpgsql SET search_path = {sch}, pg_temp AS $$ "
        "DECLARE was_version integer := 0; was_dwell integer := 0; "
        "BEGIN "
        "IF TG_OP = 'UPDATE' THEN was_version := OLD.version; was_dwell := OLD.dwell_ms; "
        "END IF; "
        "IF NEW.version <> was_version + 1 OR NOT EXISTS (SELECT 1 FROM "
        f"{sch}.judgment_history h WHERE h.judgment_id = NEW.id "
        "AND h.version = NEW.version AND h.assessor_id = NEW.assessor_id "
        "AND h.topic_id = NEW.topic_id AND h.document_id = NEW.document_id "
        "AND h.grade IS NOT DISTINCT FROM NEW.grade AND h.status = NEW.status "
        "AND h.note = NEW.note AND h.flagged = NEW.flagged AND h.source = NEW.source "
        "AND h.recorded_at = NEW.updated_at AND h.dwell_ms = NEW.dwell_ms - was_dwell) THEN "
        "RAISE EXCEPTION 'judgment % (version %) changed without its history row: a "
        "judgment changes only with a new version and the history row recording it', "
        "NEW.id, NEW.version USING ERRCODE = 'integrity_constraint_violation'; "
        "END IF; RETURN NULL; END $$"))
    conn.execute(text(f"DROP TRIGGER IF EXISTS relkit_judgment_with_history ON {sch}.judgment"))
    conn.execute(text(
        "CREATE CONSTRAINT TRIGGER relkit_judgment_with_history AFTER INSERT OR UPDATE ON "
        f"{sch}.judgment DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        f"WHEN ({persons}) "
        f"EXECUTE FUNCTION {sch}.relkit_judgment_with_history()"))
    # And the other way: a person's history row must record the judgment as it now is
    # (its current version, the only row of that version; the trigger above holds the
    # judgment to a new version per write), not add a grade to the past.
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_history_with_judgment() RETURNS trigger "
        f"LANGUAGE plpgsql SET search_path = {sch}, pg_temp AS $$ BEGIN "
        f"IF NOT EXISTS (SELECT 1 FROM {sch}.judgment j WHERE j.id = NEW.judgment_id "
        "AND j.version = NEW.version AND j.assessor_id = NEW.assessor_id "
        "AND j.updated_at = NEW.recorded_at) "
        f"OR (SELECT count(*) FROM {sch}.judgment_history h WHERE h.judgment_id = "
        "NEW.judgment_id AND h.version = NEW.version) <> 1 THEN "
        "RAISE EXCEPTION 'history row of judgment % (version %) records no write of that "
        "judgment in this transaction: history is appended only with the judgment it "
        "records', NEW.judgment_id, NEW.version "
        "USING ERRCODE = 'integrity_constraint_violation'; "
        "END IF; RETURN NULL; END $$"))
    conn.execute(text(f"DROP TRIGGER IF EXISTS relkit_history_with_judgment ON "
                      f"{sch}.judgment_history"))
    conn.execute(text(
        "CREATE CONSTRAINT TRIGGER relkit_history_with_judgment AFTER INSERT ON "
        f"{sch}.judgment_history DEFERRABLE INITIALLY DEFERRED FOR EACH ROW "
        f"WHEN ({persons}) "
        f"EXECUTE FUNCTION {sch}.relkit_history_with_judgment()"))
