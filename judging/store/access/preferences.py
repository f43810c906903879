"""Row-level security on the preference tables (migration 0008, ``relkit team init``).

The same rule as judgments: an assessor reads their own answers and history, writes
their own answer on a pair of documents they were given (both items of their
assignment to that topic), revises only the answer's own columns, and appends to their
own history (each row to their own preference of the same topic and pair); leads
read everything; nobody updates or deletes history (no grant, and the triggers of
migration 0008).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relkit.judging.store.access.quoting import quote as _q

if TYPE_CHECKING:
    from sqlalchemy import Connection

TABLES = ("preference", "preference_history")
# The preference columns a revision sets (relkit.judging.store.preferences).
REVISED = ("left_id", "right_id", "answer", "note", "flagged", "version", "source",
           "updated_at")


def preference_statements(conn: Connection, schema: str, assessors: str,
                          leads: str) -> list[str]:
    """The grants and policies, as statements (idempotent: old relkit policies dropped)."""
    sch, a, lead = _q(conn, schema), _q(conn, assessors), _q(conn, leads)
    me = f"(SELECT {sch}.relkit_assessor())"

    def t(name: str) -> str:
        return f"{sch}.{_q(conn, name)}"

    def item(doc: str) -> str:
        return (f"EXISTS (SELECT 1 FROM {sch}.assignment x JOIN {sch}.assignment_item i "
                f"ON i.assignment_id = x.id WHERE x.assessor_id = {me} "
                f"AND x.topic_id = preference.topic_id AND i.document_id = preference.{doc})")

    given = f"assessor_id = {me} AND {item('left_id')} AND {item('right_id')}"
    # A history row belongs to the person's own preference row of the same topic and
    # pair (either side), so history cannot be appended to another row's answers.
    own_row = (f"assessor_id = {me} AND EXISTS (SELECT 1 FROM {t('preference')} p "
               "WHERE p.id = preference_history.preference_id "
               f"AND p.assessor_id = {me} AND p.topic_id = preference_history.topic_id "
               "AND p.low_id = LEAST(preference_history.left_id, preference_history.right_id) "
               "AND p.high_id = GREATEST(preference_history.left_id, "
               "preference_history.right_id))")
    out = [f"REVOKE ALL ON {t('preference')}, {t('preference_history')} FROM {a}, {lead}",
           f"GRANT SELECT ON {t('preference')}, {t('preference_history')} TO {a}, {lead}",
           f"GRANT INSERT, UPDATE ({', '.join(REVISED)}) ON {t('preference')} TO {a}",
           f"GRANT INSERT ON {t('preference_history')} TO {a}",
           f"GRANT USAGE ON SEQUENCE {t('preference_id_seq')}, "
           f"{t('preference_history_id_seq')} TO {a}"]
    rules = {"preference": [("select", "SELECT", f"assessor_id = {me}", None),
                            ("insert", "INSERT", "", given),
                            ("update", "UPDATE", f"assessor_id = {me}", given)],
             "preference_history": [("select", "SELECT", f"assessor_id = {me}", None),
                                    ("insert", "INSERT", "", own_row)]}
    for table, policies in rules.items():
        out.append(f"ALTER TABLE {t(table)} ENABLE ROW LEVEL SECURITY")
        for name in ("select", "insert", "update"):
            out.append(f"DROP POLICY IF EXISTS relkit_assessor_{name} ON {t(table)}")
        out.append(f"DROP POLICY IF EXISTS relkit_lead_select ON {t(table)}")
        for name, command, using, check in policies:
            clause = (f" USING ({using})" if using else "") + (
                f" WITH CHECK ({check})" if check else "")
            out.append(f"CREATE POLICY relkit_assessor_{name} ON {t(table)} FOR {command} "
                       f"TO {a}{clause}")
        out.append(f"CREATE POLICY relkit_lead_select ON {t(table)} FOR SELECT TO {lead} "
                   "USING (true)")
    return out


def install_preference_guard(conn: Connection, schema: str, logins: list[str]) -> None:
    """A person's write of a preference must go with its history row, or it is refused
    at commit (as :func:`relkit.judging.store.access.history_guard.install_guard` for
    judgments): each preference a person inserted or updated must be at version 1
    (insert) or its old version + 1 (update), with a history row of that version
    recording the same sides, answer, note, flag, source and time. Installed by
    ``relkit team init``; a team database upgraded to revision 0008 gets it with the
    next ``relkit team init``."""
    from sqlalchemy import text

    from relkit.judging.store.access.quoting import literal

    sch = _q(conn, schema)
    persons = (f"current_user = ANY (ARRAY[{', '.join(literal(x) for x in logins)}]::name[])"
               if logins else "false")
    conn.execute(text(
        f"CREATE OR REPLACE FUNCTION {sch}.relkit_preference_with_history() RETURNS trigger "
        f"LANGUAGE plpgsql SET search_path = {sch}, pg_temp AS $$ "
        "DECLARE was_version integer := 0; "
        "BEGIN "
        "IF TG_OP = 'UPDATE' THEN was_version := OLD.version; END IF; "
        "IF NEW.version <> was_version + 1 OR NOT EXISTS (SELECT 1 FROM "
        f"{sch}.preference_history h WHERE h.preference_id = NEW.id "
        "AND h.version = NEW.version AND h.assessor_id = NEW.assessor_id "
        "AND h.topic_id = NEW.topic_id AND h.left_id = NEW.left_id "
        "AND h.right_id = NEW.right_id AND h.answer IS NOT DISTINCT FROM NEW.answer "
        "AND h.note = NEW.note AND h.flagged = NEW.flagged AND h.source = NEW.source "
        "AND h.recorded_at = NEW.updated_at) THEN "
        "RAISE EXCEPTION 'preference % (version %) changed without its history row: a "
        "preference changes only with a new version and the history row recording it', "
        "NEW.id, NEW.version USING ERRCODE = 'integrity_constraint_violation'; "
        "END IF; RETURN NULL; END $$"))
    conn.execute(text(f"DROP TRIGGER IF EXISTS relkit_preference_with_history ON "
                      f"{sch}.preference"))
    conn.execute(text(
        "CREATE CONSTRAINT TRIGGER relkit_preference_with_history AFTER INSERT OR UPDATE ON "
        f"{sch}.preference DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ({persons}) "
        f"EXECUTE FUNCTION {sch}.relkit_preference_with_history()"))
