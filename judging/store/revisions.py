"""The schema revisions this relkit knows, read from the migration scripts' text.

Standard library only: :mod:`relkit.judging.store.migrate` (which opens databases with
SQLAlchemy) and :mod:`relkit.judging.store.light` (which reads one with ``sqlite3`` before
SQLAlchemy is imported) check a database's revision against the same :func:`head`.
"""

from __future__ import annotations

import re
from pathlib import Path

MIGRATIONS = Path(__file__).with_name("migrations")

_ASSIGN = re.compile(r"^(down_revision|revision)\b[^=\n]*=\s*(?:['\"]([^'\"]*)['\"]|None)",
                     re.MULTILINE)


def graph() -> dict[str, str | None]:
    """Each revision's parent, read from the version scripts' text (no Alembic import;
    tests/test_migrate_light.py checks it against Alembic's own reading)."""
    out: dict[str, str | None] = {}
    for script in sorted((MIGRATIONS / "versions").glob("[0-9]*.py")):
        found = {m[1]: m[2] or None for m in _ASSIGN.finditer(script.read_text("utf-8"))}
        out[found["revision"] or ""] = found.get("down_revision")
    return out


def head() -> str:
    """The newest schema revision this relkit knows."""
    revisions = graph()
    (rev,) = set(revisions) - set(revisions.values())  # one head: relkit's history is linear
    return rev


def known() -> set[str]:
    """Every schema revision this relkit knows."""
    return set(graph())
