"""Alembic environment: run migrations on the connection relkit hands over.

relkit never runs Alembic from an ini file: :func:`relkit.judging.store.migrate.upgrade`
builds the config and passes an open connection in ``config.attributes``.
"""

from __future__ import annotations

from alembic import context
from sqlmodel import SQLModel

import relkit.judging.store.tables  # noqa: F401  (registers the tables on SQLModel.metadata)

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only `alembic` run by hand
    raise RuntimeError("run relkit's migrations through relkit.judging.store.migrate.upgrade()")

context.configure(
    connection=connection,
    target_metadata=SQLModel.metadata,
    # SQLite cannot ALTER most things: batch mode copies the table instead.
    render_as_batch=connection.dialect.name == "sqlite",
    compare_type=True,
)
with context.begin_transaction():
    context.run_migrations()
