"""The text a ``cal`` pool in the judging store learns from, read from the database.

A cal pool's candidates are pool entries like any adaptive pool's, and their
text was copied in when the pool was imported, so the database alone replays the
strategy: the documents of the pool (title and text) and the topics (title and
description) form its :class:`relkit.pooling.cal.texts.TextSource`. Its features
are fitted on the pool's documents: for ``from=collection`` that is the whole
collection, as in a simulation; for ``from=runs``, the runs' candidates.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import select as _select
from sqlmodel import Session

from relkit.judging.store.tables import DocumentRow, PoolEntryRow, TopicRow
from relkit.pooling.cal.texts import TextSource

# SQLModel declares columns as Python types, which no overload of select() accepts
# (as in relkit.judging.store.adaptive): untyped here.
select: Any = _select


def _join(*parts: str | None) -> str:
    return " ".join(p for p in parts if p)


def pool_texts(s: Session, pool_id: int, collection_id: int) -> TextSource:
    docs = {k: _join(t, x) for k, t, x in s.execute(
        select(DocumentRow.key, DocumentRow.title, DocumentRow.text).where(
            DocumentRow.id.in_(  # type: ignore[union-attr]
                select(PoolEntryRow.document_id).where(PoolEntryRow.pool_id == pool_id))))}
    topics = {k: _join(t, d) for k, t, d in s.execute(
        select(TopicRow.key, TopicRow.title, TopicRow.description)
        .where(TopicRow.collection_id == collection_id))}
    return TextSource(docs, topics)
