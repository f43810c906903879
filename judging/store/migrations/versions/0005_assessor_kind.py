"""assessor kind: a human or an automatic judge (an LLM, a classifier)

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-24

An automatic assessor's judgments are imported (``relkit import judgments
--kind automatic``), never made on the judging screen; exports and the lead's
majority count only humans unless asked, and ``relkit judges`` reports each
automatic assessor against the humans. Every existing assessor is a human.
An automatic assessor is never a lead (it does not settle what others judged).
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = "0005"
down_revision = "0004"
branch_labels = None
depends_on = None

_KIND = "kind IN ('human', 'automatic')"
_LEAD = "kind = 'human' OR role = 'assessor'"


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # Not batch mode: copying `assessor` would drop a table that judgments, assignments
        # and adjudications reference (see 0004). ADD COLUMN takes a NOT NULL column with a
        # constant default, and CHECKs (SQLite lets a column's CHECK name other columns).
        # (A SQLite downgrade keeps the column: then it is there already.)
        have = {c["name"] for c in sa.inspect(op.get_bind()).get_columns("assessor")}
        if "kind" not in have:
            op.execute("ALTER TABLE assessor ADD COLUMN kind VARCHAR NOT NULL DEFAULT 'human' "
                       f"CONSTRAINT assessor_kind CHECK ({_KIND}) "
                       f"CONSTRAINT assessor_kind_role CHECK ({_LEAD})")
    else:
        op.add_column("assessor", sa.Column("kind", sa.String(), nullable=False,
                                            server_default="human"))
        op.create_check_constraint("assessor_kind", "assessor", _KIND)
        op.create_check_constraint("assessor_kind_role", "assessor", _LEAD)


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        # SQLite cannot DROP a column that carries a CHECK, nor copy a referenced table
        # inside the migration's transaction (see 0004). The column stays; 0004 code never
        # reads it, and its default makes every new assessor a human, as 0004 meant.
        return
    op.drop_constraint("assessor_kind_role", "assessor", type_="check")
    op.drop_constraint("assessor_kind", "assessor", type_="check")
    op.drop_column("assessor", "kind")
