"""preference judgments: ``preference`` (current answers) and its append-only history

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-28

An assessor's answer on a pair of a topic's documents (issue 38): which of the two
shown documents is better (``left``/``right``), ``equal``, or ``neither`` relevant.
``preference`` holds the current answer per assessor and unordered pair (``low_id`` <
``high_id``; ``answer`` NULL once undone), ``preference_history`` one row per write, and
refuses UPDATE, DELETE and (PostgreSQL) TRUNCATE to everyone, as ``judgment_history``.

A team database (``relkit team init`` ran) gets the new tables' row-level security
here: an assessor reads and writes only their own answers of a topic assigned to them,
and appends to their own history; leads read everything. ``relkit team init`` gives
the same policies (relkit.judging.store.access.policies).
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0008"
down_revision = "0007"
branch_labels = None
depends_on = None

ANSWERS = "answer IS NULL OR answer IN ('left', 'right', 'equal', 'neither')"
# The pair key is the shown pair, unordered: without this a second row on the same pair
# (other low_id/high_id) would pass the unique constraint and give two current answers.
PAIR_SIDES = ("(left_id = low_id AND right_id = high_id) OR "
              "(left_id = high_id AND right_id = low_id)")


def upgrade() -> None:
    text = sqlmodel.sql.sqltypes.AutoString
    stamp = sqlmodel.sql.sqltypes.UTCDateTime
    op.create_table(
        "preference",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("collection_id", sa.Integer(), nullable=False),
        sa.Column("assessor_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("left_id", sa.Integer(), nullable=False),
        sa.Column("right_id", sa.Integer(), nullable=False),
        sa.Column("low_id", sa.Integer(), nullable=False),
        sa.Column("high_id", sa.Integer(), nullable=False),
        sa.Column("answer", text(), nullable=True),
        sa.Column("note", text(), nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("source", text(), nullable=False),
        sa.Column("created_at", stamp(), nullable=False),
        sa.Column("updated_at", stamp(), nullable=False),
        sa.CheckConstraint(ANSWERS, name="preference_answer"),
        sa.CheckConstraint("left_id <> right_id", name="preference_two_documents"),
        sa.CheckConstraint("low_id < high_id", name="preference_pair_order"),
        sa.CheckConstraint(PAIR_SIDES, name="preference_pair_sides"),
        sa.ForeignKeyConstraint(["assessor_id"], ["assessor.id"]),
        sa.ForeignKeyConstraint(["collection_id"], ["collection.id"]),
        sa.ForeignKeyConstraint(["left_id"], ["document.id"]),
        sa.ForeignKeyConstraint(["right_id"], ["document.id"]),
        sa.ForeignKeyConstraint(["low_id"], ["document.id"]),
        sa.ForeignKeyConstraint(["high_id"], ["document.id"]),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("assessor_id", "topic_id", "low_id", "high_id"),
    )
    op.create_index("ix_preference_topic", "preference", ["topic_id", "assessor_id"])
    op.create_table(
        "preference_history",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("preference_id", sa.Integer(), nullable=False),
        sa.Column("version", sa.Integer(), nullable=False),
        sa.Column("assessor_id", sa.Integer(), nullable=False),
        sa.Column("topic_id", sa.Integer(), nullable=False),
        sa.Column("left_id", sa.Integer(), nullable=False),
        sa.Column("right_id", sa.Integer(), nullable=False),
        sa.Column("answer", text(), nullable=True),
        sa.Column("note", text(), nullable=False),
        sa.Column("flagged", sa.Boolean(), nullable=False),
        sa.Column("source", text(), nullable=False),
        sa.Column("recorded_at", stamp(), nullable=False),
        sa.CheckConstraint("source IN ('tui', 'api', 'import', 'adjudication')",
                           name="preference_history_source"),
        sa.ForeignKeyConstraint(["assessor_id"], ["assessor.id"]),
        sa.ForeignKeyConstraint(["left_id"], ["document.id"]),
        sa.ForeignKeyConstraint(["right_id"], ["document.id"]),
        sa.ForeignKeyConstraint(["preference_id"], ["preference.id"]),
        sa.ForeignKeyConstraint(["topic_id"], ["topic.id"]),
        sa.PrimaryKeyConstraint("id"),
    )
    op.create_index("ix_preference_history_preference_id", "preference_history",
                    ["preference_id"])
    op.create_index("ix_preference_history_assessor_topic", "preference_history",
                    ["assessor_id", "topic_id", "id"])
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(f"CREATE TRIGGER preference_history_no_{verb.lower()} BEFORE {verb} "
                       "ON preference_history BEGIN SELECT RAISE(ABORT, "
                       "'preference_history is append-only'); END")
        return
    # 0007's function names the table it guards.
    op.execute("CREATE TRIGGER preference_history_append_only BEFORE UPDATE OR DELETE ON "
               "preference_history FOR EACH ROW EXECUTE FUNCTION "
               "relkit_history_append_only()")
    op.execute("CREATE TRIGGER preference_history_no_truncate BEFORE TRUNCATE ON "
               "preference_history FOR EACH STATEMENT EXECUTE FUNCTION "
               "relkit_history_append_only()")
    _team()


def _team() -> None:
    """On a team database, the policies ``relkit team init`` gives the new tables."""
    bind = op.get_bind()
    if not bind.execute(sa.text("SELECT to_regprocedure('relkit_role_prefix()') IS NOT NULL")
                        ).scalar_one():
        return
    from relkit.judging.store.access.policies import preference_statements

    prefix = bind.execute(sa.text("SELECT relkit_role_prefix()")).scalar_one()
    schema = bind.execute(sa.text("SELECT current_schema()")).scalar_one()
    for stmt in preference_statements(bind, schema, prefix + "relkit_assessors",
                                      prefix + "relkit_leads"):
        op.execute(stmt)


def downgrade() -> None:
    op.drop_index("ix_preference_history_assessor_topic", table_name="preference_history")
    op.drop_index("ix_preference_history_preference_id", table_name="preference_history")
    op.drop_table("preference_history")  # its triggers and policies go with it
    op.drop_index("ix_preference_topic", table_name="preference")
    op.drop_table("preference")
