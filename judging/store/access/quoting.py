"""SQL text for DDL that cannot take bound parameters (role names, policies, triggers)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from sqlalchemy.engine import Connection


def quote(conn: Connection, name: str) -> str:
    """An identifier, always quoted (any assessor name survives it)."""
    return conn.dialect.identifier_preparer.quote_identifier(name)


def literal(value: str) -> str:
    """A string literal, quotes doubled (standard_conforming_strings, on since 9.1)."""
    return "'" + value.replace("'", "''") + "'"
