"""adaptive pools: an assignment's quota and the primary it follows; history by assessor/topic

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-23

An assignment on an adaptive pool gets no items up front: the strategy picks
each next document as judgments arrive (``judging/adaptive.py``), so the
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
    with op.batch_alter_table("assignment") as batch:
        batch.add_column(sa.Column("quota", sa.Integer(), nullable=True))
        batch.add_column(sa.Column("follows_id", sa.Integer(), nullable=True))
        batch.create_foreign_key("fk_assignment_follows", "assignment", ["follows_id"], ["id"])
        batch.create_check_constraint("assignment_quota", "quota IS NULL OR quota >= 0")
    op.create_index("ix_history_assessor_topic", "judgment_history",
                    ["assessor_id", "topic_id", "id"])


def downgrade() -> None:
    op.drop_index("ix_history_assessor_topic", table_name="judgment_history")
    with op.batch_alter_table("assignment") as batch:
        batch.drop_constraint("assignment_quota", type_="check")
        batch.drop_constraint("fk_assignment_follows", type_="foreignkey")
        batch.drop_column("follows_id")
        batch.drop_column("quota")
