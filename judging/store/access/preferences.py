"""Row-level security on the preference tables (migration 0008, ``relkit team init``).

The same rule as judgments: an assessor reads their own answers and history, writes
their own answer on a pair of documents they were given (both items of their
assignment to that topic), revises only the answer's own columns, and appends to their
own history; leads read everything; nobody updates or deletes history (no grant, and
the triggers of migration 0008).
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
                                    ("insert", "INSERT", "", f"assessor_id = {me}")]}
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
