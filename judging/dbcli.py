"""``relkit db``: look after a judging database (check it, upgrade its schema).

Reading commands never change a database; ``relkit db upgrade`` is the explicit way to
bring one made by an older relkit to this relkit's schema (the first write command does
it too, and says so). ``relkit db check`` only reads.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from relkit.judging.cliopts import DbOpt
from relkit.judging.cliopts import say as _say

if TYPE_CHECKING:
    from collections.abc import Callable

    from sqlalchemy import Connection

HISTORY = ("judgment_history", "adjudication_history",  # append-only (migrations 0002, 0007,
           "preference_history")                       # 0008)

app = typer.Typer(help="Look after a judging database: check it, upgrade its schema.",
                  no_args_is_help=True,
                  epilog="Example: relkit db check --db project.db")


@app.command()
def upgrade(
    db: str | None = DbOpt,
    keep_backup: bool = typer.Option(False, "--keep-backup",
                                     help="Keep the SQLite backup after the upgrade commits"),
) -> None:
    """Upgrade the database's schema to this relkit's (SQLite: backed up first).

    On SQLite the file is checked first (integrity_check, as `relkit db check`): a
    damaged one is refused, unchanged, exit 1. Then a consistent copy is taken (online
    backup API) before the first change and kept until the upgrade has committed; with
    --keep-backup it stays.

    Example: relkit db upgrade --db project.db
    """
    from relkit.judging.store.connection import describe, make_engine
    from relkit.judging.store.migrate import check, head, refuse_damaged, upgrade_safely
    from relkit.judging.store.models import StoreError

    probe = make_engine(db, readonly=True)  # look before touching (see Database.open)
    where = describe(probe.url)
    try:
        _must_exist(probe, where)
        rev = _guard(lambda: check(probe), where)
        if rev is None:
            raise StoreError(f"no judging database at {where}: nothing to upgrade "
                             "(`relkit init` creates one)")
        # Damaged pages: refused, at head too (not "already at revision", exit 0, while
        # `db check` fails), read-only, before a backup or a migration touches the file.
        _guard(lambda: refuse_damaged(probe), where)
    finally:
        probe.dispose()
    if rev == head():
        _say(f"relkit: {where} is already at schema revision {head()}")
        return
    engine = make_engine(db)
    try:
        _say(f"relkit: upgrading {where} from schema revision {rev} to {head()}")
        bak = _guard(lambda: upgrade_safely(engine, keep_backup=keep_backup, notify=_say,
                                            checked=True), where)
        _say(f"relkit: {where} is at schema revision {head()}"
             + (f"; the copy from before is at {bak}" if bak else ""))
    finally:
        engine.dispose()


@app.command()
def check(db: str | None = DbOpt) -> None:
    """Check the database: SQLite's integrity_check and relkit's own invariants.

    One line per check on stdout (ok or FAIL, and why); exit 1 if any failed.
    Reads only: the database is opened read-only.

    Example: relkit db check --db project.db
    """
    from relkit.judging.store.connection import describe, make_engine
    from relkit.judging.store.migrate import check as revision
    from relkit.judging.store.migrate import head
    from relkit.judging.store.models import StoreError

    engine = make_engine(db, readonly=True)
    where = describe(engine.url)
    try:
        _must_exist(engine, where)
        rev = _guard(lambda: revision(engine), where)
        if rev is None:
            raise StoreError(f"no judging database at {where}")
        results: list[tuple[bool, str, str]] = []
        with engine.connect() as conn:
            results += _guard(lambda: _checks(conn, rev, head()), where)
        for ok, name, detail in results:
            typer.echo(f"{'ok  ' if ok else 'FAIL'}  {name}: {detail}")
        failed = [name for ok, name, _ in results if not ok]
        if failed:
            raise StoreError(f"db check: {where}: {len(failed)} of {len(results)} checks "
                             f"failed ({', '.join(failed)})")
    finally:
        engine.dispose()


def _must_exist(engine: object, where: str) -> None:
    import os

    from relkit.judging.store.connection import sqlite_path
    from relkit.judging.store.models import StoreError

    path = sqlite_path(engine)  # type: ignore[arg-type]
    if path and (not os.path.exists(path) or os.path.getsize(path) == 0):
        raise StoreError(f"no judging database at {where}")


def _guard(fn, where):  # type: ignore[no-untyped-def]
    """Run ``fn``; a database error becomes one line naming ``where``."""
    from sqlalchemy.exc import DBAPIError

    from relkit.judging.store.database import open_error

    try:
        return fn()
    except DBAPIError as exc:
        raise open_error(exc, where) from None


def _checks(conn: Connection, rev: str, head: str) -> list[tuple[bool, str, str]]:
    from sqlalchemy import text

    from relkit.judging.store.migrate import integrity_rows

    out: list[tuple[bool, str, str]] = []
    sqlite = conn.dialect.name == "sqlite"
    if sqlite:
        rows = integrity_rows(conn)  # too damaged to finish: a FAIL, not "cannot open"
        out.append((rows == ["ok"], "integrity_check", "ok" if rows == ["ok"] else
                    "; ".join(rows[:3]) + (f" (and {len(rows) - 3} more)" if len(rows) > 3
                                           else "")))
        fk = conn.execute(text("PRAGMA foreign_key_check")).all()
        out.append((not fk, "foreign keys", "every reference resolves" if not fk else
                    f"{len(fk)} rows point nowhere (first in table {fk[0][0]})"))
    out.append((rev == head, "schema revision", f"{rev} (this relkit's)" if rev == head else
                f"{rev}, older than this relkit's {head}: run `relkit db upgrade`"))
    if rev != head:
        return out

    def count(sql: str) -> int:
        return int(conn.execute(text(sql)).scalar_one())

    n = count("SELECT COUNT(*) FROM judgment j WHERE NOT EXISTS (SELECT 1 FROM "
              "judgment_history h WHERE h.judgment_id = j.id AND h.version = j.version)")
    # What every export reads must be what the history recorded for that version. Not
    # the note and flag: an import's revision records none but leaves the current
    # row's (an assessor's remark on the pair stays with it).
    differ = count("SELECT COUNT(*) FROM judgment j WHERE EXISTS (SELECT 1 FROM "
                   "judgment_history h WHERE h.judgment_id = j.id AND h.version = j.version) "
                   "AND NOT EXISTS (SELECT 1 FROM judgment_history h WHERE h.judgment_id = "
                   "j.id AND h.version = j.version AND h.status = j.status AND h.source = "
                   "j.source AND (h.grade = j.grade OR (h.grade IS NULL AND j.grade IS NULL)))")
    problems = ([f"{n} judgment{'s have' if n != 1 else ' has'} no history row for "
                 "its current version"] if n else []) + (
        [f"{differ} judgment{'s differ' if differ != 1 else ' differs'} from the history "
         "row of its version (grade, status or source changed without a revision)"]
        if differ else [])
    out.append((not problems, "judgment history", "every judgment's current version is in "
                "its history, as recorded" if not problems else "; ".join(problems)))
    # A final decision must be its pair's latest history row (relkit.judging.store.decisions),
    # time stamp included, as the team's decision guard holds a lead's change to it.
    n = count("SELECT COUNT(*) FROM adjudication a WHERE NOT EXISTS (SELECT 1 FROM "
              "adjudication_history h WHERE h.id = (SELECT MAX(l.id) FROM adjudication_history "
              "l WHERE l.topic_id = a.topic_id AND l.document_id = a.document_id) AND "
              "h.grade = a.grade AND h.note = a.note AND h.lead_id = a.lead_id AND "
              "h.recorded_at = a.updated_at)")
    # And every pair with a history has its decision (relkit never takes one back: a
    # missing one was deleted past relkit; an export would miss it).
    gone = count("SELECT COUNT(*) FROM (SELECT DISTINCT h.topic_id, h.document_id FROM "
                 "adjudication_history h WHERE NOT EXISTS (SELECT 1 FROM adjudication a "
                 "WHERE a.topic_id = h.topic_id AND a.document_id = h.document_id)) p")
    problems = ([f"{n} final grade{'s differ' if n != 1 else ' differs'} from the latest "
                 "history row of its pair (changed without history)"] if n else []) + (
        [f"{gone} pair{'s have' if gone != 1 else ' has'} no final grade though "
         f"{'their' if gone != 1 else 'its'} history has one (deleted without history)"]
        if gone else [])
    out.append((not problems, "decision history", "every final grade is its pair's latest "
                "history row, and every pair with a history has its final grade"
                if not problems else "; ".join(problems)))
    out.append(_preference_history(count))
    n = count("SELECT COUNT(*) FROM judgment j WHERE j.grade IS NOT NULL AND NOT EXISTS "
              "(SELECT 1 FROM scale_grade g WHERE g.collection_id = j.collection_id "
              "AND g.value = j.grade)")
    out.append((n == 0, "grades on the scale", "every grade is on its collection's scale"
                if n == 0 else f"{n} judgments have a grade off the scale"))
    n = count("SELECT COUNT(*) FROM judgment WHERE (status = 'judged') <> "
              "(grade IS NOT NULL)")
    out.append((n == 0, "judged means graded", "every judged pair has a grade, no other "
                "has one" if n == 0 else f"{n} judgments disagree with their status"))
    if sqlite:
        names = {r[0] for r in conn.execute(text(
            "SELECT name FROM sqlite_master WHERE type = 'trigger'"))}
        want = {f"{t}_no_{verb}" for t in HISTORY for verb in ("update", "delete")}
    else:
        names = {r[0] for r in conn.execute(text(
            "SELECT tgname FROM pg_trigger WHERE NOT tgisinternal"))}
        want = {f"{t}_{what}" for t in HISTORY for what in ("append_only", "no_truncate")}
        team = conn.execute(text(
            "SELECT to_regprocedure('relkit_role_prefix()') IS NOT NULL")).scalar_one()
        if team:   # a team database: a person's change of a judgment needs its history
            want |= {"relkit_judgment_with_history", "relkit_history_with_judgment",
                     "relkit_decision_with_history", "relkit_history_with_decision"}
    missing = sorted(want - names)
    hint = (" (run `relkit team init` as the owner)"
            if any(m.startswith("relkit_") for m in missing) else "")
    out.append((not missing, "append-only history", "the triggers refusing edits are in "
                "place" if not missing else f"missing triggers: {', '.join(missing)}{hint}"))
    if not sqlite and team:
        out.append(_team_privileges(conn))
    return out


def _preference_history(count: Callable[[str], int]) -> tuple[bool, str, str]:
    """Every preference is what its latest history row recorded (relkit writes both in one
    transaction; the team guard holds a person to it), on the same pair, and no two rows
    of an assessor hold the same pair (migration 0008's constraints, checked again for a
    database changed past them)."""
    n = count("SELECT COUNT(*) FROM preference p WHERE NOT EXISTS (SELECT 1 FROM "
              "preference_history h WHERE h.id = (SELECT MAX(l.id) FROM preference_history l "
              "WHERE l.preference_id = p.id) AND h.version = p.version AND h.assessor_id = "
              "p.assessor_id AND h.topic_id = p.topic_id AND h.left_id = p.left_id AND "
              "h.right_id = p.right_id AND (h.answer = p.answer OR (h.answer IS NULL AND "
              "p.answer IS NULL)) AND h.note = p.note AND h.flagged = p.flagged AND "
              "h.source = p.source AND h.recorded_at = p.updated_at)")
    twice = count("SELECT COUNT(*) FROM preference p WHERE NOT ((p.left_id = p.low_id AND "
                  "p.right_id = p.high_id) OR (p.left_id = p.high_id AND p.right_id = "
                  "p.low_id)) OR EXISTS (SELECT 1 FROM preference q WHERE q.id < p.id AND "
                  "q.assessor_id = p.assessor_id AND q.topic_id = p.topic_id AND "
                  "((q.left_id = p.left_id AND q.right_id = p.right_id) OR (q.left_id = "
                  "p.right_id AND q.right_id = p.left_id)))")
    problems = ([f"{n} preference{'s differ' if n != 1 else ' differs'} from its latest "
                 "history row (changed without history)"] if n else []) + (
        [f"{twice} preference{'s hold' if twice != 1 else ' holds'} a pair another row of "
         "the same assessor holds, or a pair key off its documents"] if twice else [])
    return (not problems, "preference history", "every preference is its latest history "
            "row, one per assessor and pair" if not problems else "; ".join(problems))


def _team_privileges(conn: Connection) -> tuple[bool, str, str]:
    """A team database (set up by an older relkit, say) whose logins may still store
    large objects, temporary tables or new tables (relkit.judging.store.access.lockdown)."""
    from sqlalchemy import text

    from relkit.judging.store.access.lockdown import still_open, team_roles
    from relkit.judging.store.access.names import group_names

    prefix = conn.execute(text("SELECT relkit_role_prefix()")).scalar_one()
    left = still_open(conn, team_roles(conn, group_names(prefix)))
    return (not left, "team privileges", "no team login may store large objects, temporary "
            "tables or new tables" if not left else "; ".join(left)
            + " (run `relkit team init` again as the role named)")
