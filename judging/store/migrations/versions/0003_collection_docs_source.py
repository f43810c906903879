"""collection remembers its documents file, so pools can copy texts in later

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0003"
down_revision = "0002"
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table("collection") as batch:
        batch.add_column(sa.Column("docs_source", sa.Text(), nullable=True))
        batch.add_column(sa.Column("docs_format", sa.Text(), nullable=True))


def downgrade() -> None:
    with op.batch_alter_table("collection") as batch:
        batch.drop_column("docs_format")
        batch.drop_column("docs_source")
