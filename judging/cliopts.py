"""What every database-opening command shares, kept light.

The ``--db`` option, the diagnostics helper and the two ways a command opens the
database live here, not beside the store, so a command that merely declares ``--db``
(``agree``, ``demo``, ``judge``) does not pay for importing SQLAlchemy until it really
opens a database.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import IO, TYPE_CHECKING

import typer

if TYPE_CHECKING:
    from relkit.judging.store.assign import Store

DB_HELP = "Database: a SQLite file or a postgresql:// URL (default: $RELKIT_DB or ./relkit.db)"
DbOpt = typer.Option(None, "--db", envvar="RELKIT_DB", help=DB_HELP)


def say(msg: str) -> None:
    """One diagnostic line on stderr (data goes to stdout)."""
    sys.stderr.write(msg + "\n")


def open_output(path: Path, option: str = "-o") -> IO[str]:
    """``path`` opened for writing text, or one line saying why it cannot be
    (:func:`relkit.metrics.core.outfile.open_output`)."""
    from relkit.metrics.core.outfile import open_output as opened

    return opened(path, option)


def open_store(db: str | None, create: bool = False) -> Store:
    """Open for writing: created (``init``) or upgraded (saying so on stderr) as needed."""
    # The database stack is imported here, by the commands that open one: `relkit pool -o`
    # and `relkit --help` never pay for SQLAlchemy.
    from relkit.judging.store.assign import Store

    return Store.open(db, create=create, notify=say)


def read_store(db: str | None) -> Store:
    """Open read-only: nothing is created, migrated or written."""
    from relkit.judging.store.assign import Store

    return Store.open(db, readonly=True)
