"""What every database-opening command shares, kept light.

The ``--db`` option and the diagnostics helper live here, not beside the store, so a
command that merely declares ``--db`` (``agree``, ``demo``, ``judge``) does not pay for
importing SQLAlchemy until it really opens a database.
"""

from __future__ import annotations

import sys

import typer

DB_HELP = "Database: a SQLite file or a postgresql:// URL (default: $RELKIT_DB or ./relkit.db)"
DbOpt = typer.Option(None, "--db", envvar="RELKIT_DB", help=DB_HELP)


def say(msg: str) -> None:
    """One diagnostic line on stderr (data goes to stdout)."""
    sys.stderr.write(msg + "\n")
