"""judgment history is append-only: triggers refuse UPDATE and DELETE

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22

The history is the audit trail of every grade an assessor gave; the store only
ever inserts into it, and these triggers make the database refuse anything
else, whoever connects to it.
"""

from __future__ import annotations

from alembic import op

revision = "0002"
down_revision = "0001"
branch_labels = None
depends_on = None

MESSAGE = "judgment_history is append-only"


def upgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("UPDATE", "DELETE"):
            op.execute(f"CREATE TRIGGER judgment_history_no_{verb.lower()} BEFORE {verb} "
                       f"ON judgment_history BEGIN SELECT RAISE(ABORT, '{MESSAGE}'); END")
        return
    op.execute("CREATE FUNCTION relkit_history_append_only() RETURNS trigger AS $$ "
               f"BEGIN RAISE EXCEPTION '{MESSAGE}'; END $$ LANGUAGE plpgsql")
    op.execute("CREATE TRIGGER judgment_history_append_only BEFORE UPDATE OR DELETE "
               "ON judgment_history FOR EACH ROW EXECUTE FUNCTION relkit_history_append_only()")


def downgrade() -> None:
    if op.get_bind().dialect.name == "sqlite":
        for verb in ("update", "delete"):
            op.execute(f"DROP TRIGGER judgment_history_no_{verb}")
        return
    op.execute("DROP TRIGGER judgment_history_append_only ON judgment_history")
    op.execute("DROP FUNCTION relkit_history_append_only()")
