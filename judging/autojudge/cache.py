"""The answers file: every paid answer, stored the moment it arrives.

A SQLite file of its own (the standard library's ``sqlite3``), apart from the judging
database: it works the same for a PostgreSQL project, and the judging database gets
the grades in one transaction at the end, as an import does. Each answer is committed
on its own (WAL journal), so a run killed at any point keeps every answer it received;
the next run finds them by their key (the backend's key: for the chat backend the
endpoint, the model and a hash of the request sent; topic; document) and asks only for
the rest. Answers stored under another key (another prompt, an answers file of an
earlier relkit keyed otherwise) are kept in the file and never used.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

from relkit.judging.autojudge.backend import Answer
from relkit.metrics.core.errors import InputError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS answer (
    backend TEXT NOT NULL,      -- the backend's key for this answer
    topic TEXT NOT NULL,
    doc TEXT NOT NULL,
    raw TEXT NOT NULL,          -- the model's answer as it came
    grade INTEGER,              -- NULL unless status = 'ok'
    status TEXT NOT NULL,       -- ok, unparsed, off_scale
    tokens_in INTEGER NOT NULL,
    tokens_out INTEGER NOT NULL,
    received_at TEXT NOT NULL,
    PRIMARY KEY (backend, topic, doc)
)
"""


class AnswerCache:
    """``with AnswerCache(path) as c: c.get(backend, topic, doc); c.put(...)``."""

    def __init__(self, path: Path) -> None:
        self.path = path
        try:
            self._db = sqlite3.connect(path, isolation_level=None)
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.execute(_SCHEMA)
            self._db.execute("SELECT backend, topic, doc, raw, grade, status, tokens_in, "
                             "tokens_out FROM answer LIMIT 0")
        except sqlite3.DatabaseError as exc:
            raise InputError(f"{path}: not a relkit answers file ({exc})") from None

    def __enter__(self) -> AnswerCache:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()

    def close(self) -> None:
        self._db.close()

    def get_many(self, backend: str, pairs: Iterable[tuple[str, str]]
                 ) -> dict[tuple[str, str], Answer]:
        """The stored answers of ``backend`` for these pairs."""
        wanted = set(pairs)
        out = {}
        for t, d, raw, g, st, ti, to in self._db.execute(
                "SELECT topic, doc, raw, grade, status, tokens_in, tokens_out FROM answer "
                "WHERE backend = ?", (backend,)):
            if (t, d) in wanted:
                out[(t, d)] = Answer(raw, g, st, ti, to)
        return out

    def get_keyed(self, keys: Iterable[tuple[str, str, str]]
                  ) -> dict[tuple[str, str], Answer]:
        """The stored answers for these (backend key, topic, document)."""
        out = {}
        for key, topic, doc in keys:
            for raw, g, st, ti, to in self._db.execute(
                    "SELECT raw, grade, status, tokens_in, tokens_out FROM answer "
                    "WHERE backend = ? AND topic = ? AND doc = ?", (key, topic, doc)):
                out[(topic, doc)] = Answer(raw, g, st, ti, to)
        return out

    def put(self, backend: str, topic: str, doc: str, a: Answer) -> None:
        """Store one answer now (its own transaction: a kill after this keeps it)."""
        self._db.execute(
            "INSERT OR REPLACE INTO answer VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            (backend, topic, doc, a.raw, a.grade, a.status, a.tokens_in, a.tokens_out,
             datetime.now(UTC).isoformat(timespec="seconds")))

    def count(self) -> int:
        return int(self._db.execute("SELECT COUNT(*) FROM answer").fetchone()[0])
