"""sign-in tokens for `relkit serve`: one salted hash per token, never the secret

Revision ID: 0006
Revises: 0005
Create Date: 2026-11-24

``relkit token issue NAME`` (or ``relkit assign ... --token``) prints a secret once
and stores its scrypt hash with a per-token salt; the browser signs in with it.
A revoked token keeps its row (``revoked_at``) so the server's log still names it.
A new table only: nothing existing changes, so SQLite needs no batch copy.
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

revision = "0006"
down_revision = "0005"
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        "access_token",
        sa.Column("id", sa.Integer(), nullable=False),
        sa.Column("key", sa.String(), nullable=False),
        sa.Column("assessor_id", sa.Integer(), nullable=False),
        sa.Column("salt", sa.String(), nullable=False),
        sa.Column("digest", sa.String(), nullable=False),
        sa.Column("created_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=False),
        sa.Column("revoked_at", sqlmodel.sql.sqltypes.UTCDateTime(), nullable=True),
        sa.ForeignKeyConstraint(["assessor_id"], ["assessor.id"]),
        sa.PrimaryKeyConstraint("id"),
        sa.UniqueConstraint("key"),
    )
    op.create_index("ix_access_token_assessor_id", "access_token", ["assessor_id"])


def downgrade() -> None:
    op.drop_index("ix_access_token_assessor_id", table_name="access_token")
    op.drop_table("access_token")
