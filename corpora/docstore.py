"""Random access to a collection's documents by id.

A document file is read once, streaming, into an SQLite table (stdlib
``sqlite3``: no ORM in this layer) kept in a cache directory; after that any
document comes back with one primary-key lookup, however large the source.
The cache is keyed by the source's absolute path, size, modification time and
format, so editing or replacing the file rebuilds it; a build is written to a
temporary file and renamed into place, so a killed build never leaves a
half-filled store behind.
"""

from __future__ import annotations

import hashlib
import json
import os
import sqlite3
from collections.abc import Callable, Iterable
from pathlib import Path

from relkit.corpora.loaders import get_loader, read_docs
from relkit.corpora.textio import replaced
from relkit.corpora.types import Document
from relkit.metrics.core.errors import FormatError, found_instead

CACHE_ENV = "RELKIT_CACHE"


def cache_dir() -> Path:
    base = os.environ.get(CACHE_ENV) or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"), "relkit")
    return Path(base)


def _key(path: Path, fmt: str | None, options: dict[str, str] | None = None) -> str:
    opts = json.dumps(options or {}, sort_keys=True)
    if not path.is_file():  # a source that is not a file (an ir_datasets id): its name
        raw = f"{path}\0{fmt}\0{opts}\0v2"
    else:
        st = path.stat()
        raw = f"{path.resolve()}\0{st.st_size}\0{st.st_mtime_ns}\0{fmt or 'auto'}\0v2"
        if options:
            raw += f"\0{opts}"
    return hashlib.sha256(raw.encode()).hexdigest()[:24]


class DocStore:
    """Documents of one source file, by id. Build with :meth:`open`."""

    def __init__(self, db_path: Path, source: str) -> None:
        self.path = db_path
        self.source = source
        self._conn = sqlite3.connect(f"file:{db_path}?mode=ro", uri=True,
                                     check_same_thread=False)

    @classmethod
    def open(cls, source: str | os.PathLike[str], fmt: str | None = None, *,
             options: dict[str, str] | None = None,
             progress: Callable[[int], None] | None = None) -> DocStore:
        """The store for ``source`` (built on first use, reused while the file is unchanged).

        ``options`` go to the loader (``columns`` for CSV/TSV); they are part of
        the cache key, so a different column mapping builds a different store.
        """
        src = Path(source)
        file_based = fmt is None or get_loader(fmt, "docs").file_based
        if file_based and not src.is_file():
            raise FormatError(str(src), None, "a documents file", found_instead(src))
        target = cache_dir() / "docstore" / f"{_key(src, fmt, options)}.sqlite"
        if not target.exists():
            build(read_docs(src if file_based else str(source), fmt, options), target,
                  str(src), progress)
        return cls(target, str(src))

    def get(self, doc_id: str) -> Document | None:
        row = self._conn.execute("SELECT title, text, fields FROM docs WHERE id = ?",
                                 (doc_id,)).fetchone()
        if row is None:
            return None
        return Document(doc_id, row[0], row[1], json.loads(row[2]))

    @property
    def replaced(self) -> int:
        """How many undecodable byte sequences of the source were stored as U+FFFD
        (:func:`relkit.corpora.textio.replaced`; 0 for a store built before it was kept)."""
        try:
            row = self._conn.execute("SELECT value FROM meta WHERE key = 'replaced'").fetchone()
        except sqlite3.OperationalError:      # (no meta table)
            return 0
        return int(row[0]) if row else 0

    def __len__(self) -> int:
        return int(self._conn.execute("SELECT COUNT(*) FROM docs").fetchone()[0])

    def __contains__(self, doc_id: object) -> bool:
        return self._conn.execute("SELECT 1 FROM docs WHERE id = ?",
                                  (doc_id,)).fetchone() is not None

    def ids(self) -> list[str]:
        """Every document id, in id order (the table has no rowid to keep file order)."""
        return [r[0] for r in self._conn.execute("SELECT id FROM docs ORDER BY id")]

    def close(self) -> None:
        self._conn.close()


def build(docs: Iterable[Document], target: Path, source: str,
          progress: Callable[[int], None] | None = None) -> None:
    """Write ``docs`` into a new store at ``target`` (atomically: temp file + rename)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    tmp.unlink(missing_ok=True)
    conn = sqlite3.connect(tmp)
    try:
        conn.execute("PRAGMA journal_mode = OFF")
        conn.execute("PRAGMA synchronous = OFF")  # a scratch file until the rename
        conn.execute("CREATE TABLE docs (id TEXT PRIMARY KEY, title TEXT, text TEXT NOT NULL,"
                     " fields TEXT NOT NULL) WITHOUT ROWID")
        batch: list[tuple[str, str | None, str, str]] = []
        n, bad = 0, replaced()
        for d in docs:
            batch.append((d.id, d.title, d.text, json.dumps(dict(d.fields), ensure_ascii=False)))
            if len(batch) >= 10_000:
                n += _flush(conn, batch, source)
                if progress:
                    progress(n)
        n += _flush(conn, batch, source)
        if progress:
            progress(n)
        # what the source's undecodable bytes became: said each time the store is opened
        conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)")
        conn.execute("INSERT INTO meta VALUES ('replaced', ?)", (str(replaced() - bad),))
        conn.commit()
    except BaseException:
        conn.close()
        tmp.unlink(missing_ok=True)
        raise
    conn.close()
    os.replace(tmp, target)


def _flush(conn: sqlite3.Connection, batch: list[tuple[str, str | None, str, str]],
           source: str) -> int:
    try:
        conn.executemany("INSERT INTO docs VALUES (?, ?, ?, ?)", batch)
    except sqlite3.IntegrityError:
        ids = [b[0] for b in batch]
        for i in ids:
            if conn.execute("SELECT 1 FROM docs WHERE id = ?", (i,)).fetchone() or \
                    ids.count(i) > 1:
                raise FormatError(source, None, "each document id once",
                                  f"document {i!r} twice") from None
        raise
    n = len(batch)
    batch.clear()
    return n
