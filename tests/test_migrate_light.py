"""The schema revision is read without Alembic, and reads what Alembic reads."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from relkit.judging.store.assign import Store
from relkit.judging.store.migrate import _config, _graph, current, head, known, upgrade


def test_revisions_read_from_the_scripts_equal_alembics() -> None:
    from alembic.script import ScriptDirectory

    scripts = ScriptDirectory.from_config(_config())
    assert head() == scripts.get_current_head()
    assert known() == {s.revision for s in scripts.walk_revisions()}
    assert _graph() == {s.revision: s.down_revision for s in scripts.walk_revisions()}


def test_current_revision_equals_alembics(tmp_path: Path) -> None:
    from alembic.runtime.migration import MigrationContext
    from sqlalchemy import create_engine

    engine = create_engine(f"sqlite:///{tmp_path / 'a.db'}")
    assert current(engine) is None
    for rev in ("0002", "head"):
        upgrade(engine, rev)
        with engine.connect() as conn:
            assert current(engine) == MigrationContext.configure(conn).get_current_revision()
    assert current(engine) == head()


def test_opening_a_current_database_does_not_import_alembic(tmp_path: Path) -> None:
    Store.open(tmp_path / "s.db")  # created (and migrated) here
    code = ("import sys; from relkit.judging.store.assign import Store; "
            f"Store.open({str(tmp_path / 's.db')!r}, create=False).assessors(); "
            "print(sorted(m for m in sys.modules if m.split('.')[0] == 'alembic'))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout
    assert out.strip() == "[]"
