"""A small judging project used by the store tests (both backends)."""

from __future__ import annotations

from sqlalchemy import func, inspect, select

from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store

TOPICS = [Topic("1", "solar power", "Find documents on solar panels.", "Panels only."),
          Topic("007", "bond films", "Documents about James Bond films.", "")]
DOCS = [Document(f"d{i:02d}", f"Title {i}", f"Text of document {i}.") for i in range(12)]
# topic 1 pools d00-d07, topic 007 pools d04-d11 (d04-d07 in both).
POOL = [("1", f"d{i:02d}") for i in range(8)] + [("007", f"d{i:02d}") for i in range(4, 12)]


def make_project(url: str, *, overlap: float = 0.0, assessors: tuple[str, ...] = ("ann", "bob"),
                 ordering: str = "docno") -> Store:
    store = Store.open(url)
    store.create_collection("demo", TREC_DL, TOPICS, DOCS)
    store.import_pool(POOL, name="depth-8")
    store.assign(list(assessors), overlap=overlap, ordering=ordering,  # type: ignore[arg-type]
                 seed=1)
    return store


def snapshot(store: Store) -> dict[str, int]:
    """Row counts of every table: equal before and after a refused operation."""
    from sqlalchemy import table

    with store.engine.connect() as conn:
        # (the names alone: reflecting each table was ~10 catalog queries a table on
        # PostgreSQL, a fifth of the server's CPU in the fast loop)
        return {n: conn.execute(select(func.count()).select_from(table(n))).scalar_one()
                for n in inspect(conn).get_table_names()}


def old_database(url: str, revision: str = "0001") -> None:
    """A database as relkit at ``revision`` left it, with a collection and a topic."""
    from sqlalchemy import text

    from relkit.judging.store.connection import make_engine
    from relkit.judging.store.migrate import upgrade

    engine = make_engine(url)
    upgrade(engine, revision)
    with engine.begin() as conn:
        conn.execute(text("INSERT INTO collection (name, scale_name, threshold, created_at)"
                          " VALUES ('old', 'binary', 1, CURRENT_TIMESTAMP)"))
        conn.execute(text("INSERT INTO scale_grade (collection_id, value, label, definition)"
                          " VALUES (1, 0, 'no', ''), (1, 1, 'yes', '')"))
        conn.execute(text("INSERT INTO topic (collection_id, key) VALUES (1, '007')"))
    engine.dispose()
