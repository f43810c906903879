"""final grades get an append-only history; no history table can be truncated

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-25

A lead's final grade and reason were replaced in place: one stray key on a decided
pair lost the decision before it. ``adjudication_history`` keeps one row per change
(who, when, the grade replaced, the new grade, the reason); ``adjudication`` stays the
current decision, which is the pair's latest history row. Each existing decision gets
its row now (``old_grade`` NULL, ``recorded_at`` its last change): what it replaced
before this revision was never recorded.

Both history tables refuse UPDATE and DELETE to everyone (as 0002 made
``judgment_history``), and on PostgreSQL TRUNCATE too: a row trigger never fires on
TRUNCATE, so until now the tables' owner could empty the history in one statement.
SQLite has no TRUNCATE; its ``DELETE FROM t`` without WHERE runs the delete trigger
(SQLite skips its truncate shortcut on a table with triggers).

A team database (``relkit team init`` ran) gets the new table's row-level security,
lead policies and grants here (and the assessors' SELECT, which shows them no row), so
leads keep deciding right after the upgrade; the deferred guard tying
a lead's change of a decision to its history row comes with the next ``relkit team
init`` (``relkit db check`` says when it is missing).
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0007"
down_revision = "0006"
branch_labels = None
depends_on = None

HISTORY = ("judgment_history", "adjudication_history")


def upgrade() -> None:
    op.create_table(
        "adjudication_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("collection_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("document_id", sa.Integer(), nullable=False),
        sa.Column("lead_id", sa.Integer(), nullable=False),
        sa.Column("old_grade", sa.Integer(), nullable=True),
        sa.Column("grade", sa.Integer(), nullable=False),
        sa.Column("note", sqlmodel.sql.sqltypes.AutoString(), nullable=False),
        sa.Column("recorded_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.ForeignKeyConstraint(["collection_id", "grade"],
                                ["scale_grade.collection_id", "scale_grade.value"]),
        sa.ForeignKeyConstraint(["collection_id"], ["collection.id"]),
        sa.ForeignKeyConstraint(["document_id"], ["document.id"]),
        sa.ForeignKeyConstraint(["lead_id"], ["assessor.id"]),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_adjudication_history_pair", "adjudication_history",
                    ["topic_id", "document_id", "id"])
    op.execute("INSERT INTO adjudication_history (collection_id, topic_id, document_id, "
               "lead_id, old_grade, grade, note, recorded_at) SELECT collection_id, topic_id, "
               "document_id, lead_id, NULL, grade, note, updated_at FROM adjudication "
               "ORDER BY id")
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(f"CREATE TRIGGER adjudication_history_no_{verb.lower()} BEFORE {verb} "
                       "ON adjudication_history BEGIN SELECT RAISE(ABORT, "
                       "'adjudication_history is append-only'); END")
        return
    # 0002's function, now naming the table it guards (and refusing TRUNCATE as well).
    op.execute("CREATE OR REPLACE FUNCTION relkit_history_append_only() RETURNS trigger AS $$ "
               "BEGIN RAISE EXCEPTION '% is append-only', TG_TABLE_NAME; END $$ "
               "LANGUAGE plpgsql")
    op.execute("CREATE TRIGGER adjudication_history_append_only BEFORE UPDATE OR DELETE ON "
               "adjudication_history FOR EACH ROW EXECUTE FUNCTION "
               "relkit_history_append_only()")
    for table in HISTORY:
        op.execute(f"CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table} "
                   "FOR EACH STATEMENT EXECUTE FUNCTION relkit_history_append_only()")
    _team_leads()


def _team_leads() -> None:
    """On a team database, what ``relkit team init`` gives on the new table.

    The leads read it all and append as themselves; the assessors may select from it
    but row-level security (no policy of theirs) shows them no row, as after ``team
    init``: a full dump through an assessor's login reads an empty history rather than
    failing. The leads' grants on ``adjudication`` stay the earlier team init's until
    the next one (docs/team.md).
    """
    bind = op.get_bind()
    if not bind.execute(sa.text("SELECT to_regprocedure('relkit_role_prefix()') IS NOT NULL")
                        ).scalar_one():
        return
    prefix = bind.execute(sa.text("SELECT relkit_role_prefix()")).scalar_one()
    q = bind.dialect.identifier_preparer.quote
    leads = q(prefix + "relkit_leads")
    assessors = q(prefix + "relkit_assessors")
    me = "(SELECT relkit_assessor())"
    for stmt in ("ALTER TABLE adjudication_history ENABLE ROW LEVEL SECURITY",
                 f"GRANT SELECT, INSERT ON adjudication_history TO {leads}",
                 f"GRANT SELECT ON adjudication_history TO {assessors}",
                 f"GRANT USAGE ON SEQUENCE adjudication_history_id_seq TO {leads}",
                 "CREATE POLICY relkit_lead_select ON adjudication_history FOR SELECT "
                 f"TO {leads} USING (true)",
                 "CREATE POLICY relkit_lead_insert ON adjudication_history FOR INSERT "
                 f"TO {leads} WITH CHECK (lead_id = {me})"):
        op.execute(stmt)


def downgrade() -> None:
    pg = op.get_bind().dialect.name != "sqlite"
    if pg:
        op.execute("DROP TRIGGER judgment_history_no_truncate ON judgment_history")
        op.execute("CREATE OR REPLACE FUNCTION relkit_history_append_only() RETURNS trigger "
                   "AS $$ BEGIN RAISE EXCEPTION 'judgment_history is append-only'; END $$ "
                   "LANGUAGE plpgsql")
        # Team databases: the guard team init put on the decisions.
        op.execute("DROP TRIGGER IF EXISTS relkit_decision_with_history ON adjudication")
    op.drop_index("ix_adjudication_history_pair", table_name="adjudication_history")
    op.drop_table("adjudication_history")  # its triggers and policies go with it
    if pg:
        op.execute("DROP FUNCTION IF EXISTS relkit_decision_with_history()")
        op.execute("DROP FUNCTION IF EXISTS relkit_history_with_decision()")
