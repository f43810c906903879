"""What the CLI root says when a typer command raises: one line on stderr and an exit status.

Bad input gets one clear line, never a traceback (``--debug`` shows the traceback):
relkit's own errors, a file that cannot be read or written, a click log DuckDB found
damaged while scanning it, a permission the database refused, and click's usage errors
in click's words naming the command. Anything else is a defect and propagates. The
fast entries (:mod:`relkit.judging.fast_entries`) say the errors they can meet in the
same words.
"""

from __future__ import annotations

import sys


def said(exc: BaseException, debug: bool) -> int:
    """Write ``exc``'s one line to stderr and return the exit status; raise ``exc``
    itself when it is not one the CLI words (or ``debug`` asks for the traceback)."""
    import typer

    from relkit.metrics.errors import RelkitError

    if isinstance(exc, RelkitError):
        if debug:
            raise exc
        sys.stderr.write(f"relkit: error: {exc}\n")
        return int(getattr(exc, "exit_code", 1))  # 2: an option's value (OptionError)
    if isinstance(exc, typer.Exit):
        return exc.exit_code
    if isinstance(exc, (typer.Abort, KeyboardInterrupt)):
        sys.stderr.write("relkit: aborted\n")
        return 130
    if isinstance(exc, OSError):
        # A file the user named cannot be read or written (missing, a directory, no
        # permission): one line naming it. Commands catch what they can more precisely.
        if debug or exc.filename is None:
            raise exc
        sys.stderr.write(f"relkit: error: {exc.filename}: {exc.strerror or exc}\n")
        return 1
    if not isinstance(exc, Exception):
        raise exc
    return _said_otherwise(exc, debug)


def _said_otherwise(exc: Exception, debug: bool) -> int:
    # A click log DuckDB met damaged while scanning it (a Parquet page, a CSV row far
    # down): read lazily, after the command opened it, so the files are named here.
    duck = sys.modules.get("relkit.metrics.online.duck")
    said = duck.scan_error(exc) if duck is not None and not debug else None
    if said is not None:
        sys.stderr.write(f"relkit: error: {said}\n")
        return 1
    # A permission the database refused (an assessor's login after `relkit team init`;
    # SQLSTATE 42501, also a row-level security check): one line, not a traceback.
    orig = getattr(exc, "orig", None) or exc   # psycopg's own, outside SQLAlchemy
    if getattr(orig, "sqlstate", None) == "42501" and not debug:
        reason = str(orig).strip().splitlines()[0]
        sys.stderr.write(f"relkit: error: the database refused it ({reason}): this "
                         "login may not do that (docs/team.md)\n")
        return 1
    # Usage errors (bad option, missing argument) carry format_message() and exit_code:
    # one line, naming the command (`relkit pool: error: Invalid value for '--depth'...`).
    if hasattr(exc, "format_message") and hasattr(exc, "exit_code"):
        if debug:
            raise exc
        if type(exc).__name__ == "NoArgsIsHelpError":  # `relkit export`: the help
            exc.show()  # type: ignore[attr-defined]
            return int(exc.exit_code)
        ctx = getattr(exc, "ctx", None)
        path = getattr(ctx, "command_path", None) or "relkit"
        sys.stderr.write(f"{path}: error: {exc.format_message()}\n")
        return int(exc.exit_code)
    raise exc
