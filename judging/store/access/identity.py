"""Who is using relkit, and what the commands let them do.

On PostgreSQL after ``relkit team init`` the database knows: ``current_user`` maps to
an assessor or a lead through ``relkit_assessor()``, and row-level security enforces
the rules whatever the client. The commands check the same rules so that a refusal
is one line, not an empty screen or a permission error.

SQLite has no users: the commands take the person from ``$RELKIT_USER`` (unset: the
owner, who may do everything). That keeps honest people to their own work and off
each other's grades by accident; it is not security, since anyone who can read the
file can read all of it (docs/team.md).

The database's owner (and a role outside the team) is unrestricted here; the
database grants what it grants.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import text

from relkit.judging.store.models import StoreError

if TYPE_CHECKING:
    from relkit.judging.store.database import Database

ENV_USER = "RELKIT_USER"


@dataclass(frozen=True)
class Who:
    """The person relkit acts for: ``name`` None means the owner (unrestricted)."""

    name: str | None = None
    role: str | None = None        # "assessor" or "lead"
    via: str = ""                  # how relkit knows: "login ann_x" or "$RELKIT_USER"

    @property
    def assessor(self) -> bool:
        return self.role == "assessor"


def who(db: Database) -> Who:
    """The person this connection (PostgreSQL) or ``$RELKIT_USER`` (SQLite) stands for."""
    with db.engine.connect() as conn:
        if conn.dialect.name == "postgresql":
            has = conn.execute(text(
                "SELECT to_regprocedure('relkit_assessor()') IS NOT NULL")).scalar_one()
            if has:
                row = conn.execute(text(
                    "SELECT a.name, a.role, current_user::text FROM assessor a "
                    "WHERE a.id = relkit_assessor()")).first()
                if row is not None:
                    return Who(row[0], row[1], f"login {row[2]}")
                return Who()
        name = os.environ.get(ENV_USER)
        if not name:
            return Who()
        row = conn.execute(text("SELECT role, kind FROM assessor WHERE name = :n"),
                           {"n": name}).first()
    if row is None or row[1] != "human":
        raise StoreError(f"${ENV_USER}={name}: no assessor or lead of that name in this "
                         "database")
    return Who(name, row[0], f"${ENV_USER}")


def refuse_assessor(db: Database, what: str) -> Who:
    """One line if an assessor asks for ``what`` (everyone's judgments); else who it is."""
    w = who(db)
    if w.assessor:
        raise StoreError(f"{what} shows every assessor's judgments: {w.name} ({w.via}) is an "
                         "assessor; ask a lead or the database's owner")
    return w


def require_owner(db: Database, what: str) -> None:
    """One line unless relkit acts for the database's owner: ``what`` (people, tokens,
    pools, imports) changes what everyone works on."""
    w = who(db)
    if w.name is not None:
        raise StoreError(f"{what} is for the database's owner: {w.name} ({w.via}) is "
                         f"{'an assessor' if w.assessor else 'a lead'}")


def check_acts_as(db: Database, name: str, what: str) -> None:
    """One line unless the person relkit acts for may act as ``name`` (themselves, or the owner)."""
    w = who(db)
    if w.name is not None and w.name != name:
        raise StoreError(f"{what}: {w.name} ({w.via}) cannot act as {name}")


def check_export(db: Database, method: str, assessor: str | None) -> None:
    """An assessor exports only their own grades (``--method assessor --assessor ME``)."""
    w = who(db)
    if not w.assessor:
        return
    if method != "assessor":
        raise StoreError(f"export qrels --method {method} combines every assessor's "
                         f"judgments: {w.name} ({w.via}) is an assessor; export your own with "
                         f"--method assessor --assessor {w.name}")
    if assessor is not None and assessor != w.name:
        raise StoreError(f"export qrels --assessor {assessor}: {w.name} ({w.via}) is an "
                         f"assessor and exports only their own judgments (--assessor {w.name})")


def missing_logins(db: Database, names: list[str]) -> list[str]:
    """Of ``names``, the people without a login yet on a team database (PostgreSQL).

    Empty on SQLite and on a database where ``relkit team init`` never ran.
    """
    if db.engine.dialect.name != "postgresql" or not names:
        return []
    with db.engine.connect() as conn:
        if not conn.execute(text(
                "SELECT to_regprocedure('relkit_role_prefix()') IS NOT NULL")).scalar_one():
            return []
        have = set(conn.execute(text(
            "SELECT a.name FROM assessor a JOIN pg_roles r "
            "ON r.rolname = relkit_role_prefix() || a.name")).scalars())
        humans = set(conn.execute(text("SELECT name FROM assessor WHERE kind = 'human'"))
                     .scalars())
    return [n for n in dict.fromkeys(names) if n in humans and n not in have]
