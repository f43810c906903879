"""adaptive pools: an assignment's quota and the primary it follows; history by assessor/topic

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

An assignment on an adaptive pool gets no items up front: the strategy picks
each next document as judgments arrive (``judging/store/adaptive.py``), so the
assignment records how many it will pick (``quota``), and an overlap
assessor's assignment names the primary's assignment it samples from
(``follows_id``). NULL in both: a static assignment, as before. The index lets
the next-item call fetch an assessor's new judgments of a topic by range.
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0004"
down_revision = "0003"
branch_labels = None
depends_on = None


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # Not batch mode: copying `assignment` would drop a table that assignment_item
        # references, which SQLite refuses once assignments exist. ADD COLUMN may carry
        # a REFERENCES clause and a CHECK when the default is NULL.
        # (A SQLite downgrade keeps the columns: then they are there already.)
        have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("assignment")}
        if "quota" not in have:
            op.execute("ALTER TABLE assignment ADD COLUMN quota INTEGER "
                       "CONSTRAINT assignment_quota CHECK (quota IS NULL OR quota >= 0)")
        if "follows_id" not in have:
            op.execute("ALTER TABLE assignment ADD COLUMN follows_id INTEGER "
                       "CONSTRAINT fk_assignment_follows REFERENCES assignment (id)")
    else:
        op.add_column("assignment", sa.Column("quota", sa.Integer(), nullable=True))
        op.add_column("assignment", sa.Column("follows_id", sa.Integer(), nullable=True))
        op.create_foreign_key("fk_assignment_follows", "assignment", "assignment",
                              ["follows_id"], ["id"])
        op.create_check_constraint("assignment_quota", "assignment",
                                   "quota IS NULL OR quota >= 0")
    op.create_index("ix_history_assessor_topic", "judgment_history",
                    ["assessor_id", "topic_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_history_assessor_topic", table_name="judgment_history")
    if op.get_bind().dialect.name == "sqlite":
        # SQLite can neither DROP a column that carries a constraint nor copy a table
        # that others reference while foreign keys are on (they cannot be turned off
        # inside the migration's transaction). The two nullable columns stay: 0003
        # code names its columns and never reads them.
        return
    op.drop_constraint("assignment_quota", "assignment", type_="check")
    op.drop_constraint("fk_assignment_follows", "assignment", type_="foreignkey")
    op.drop_column("assignment", "follows_id")
    op.drop_column("assignment", "quota")
