"""The one path from the judging database to agreement: judged grades as a long frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from corpora.types import RelevanceScale

if TYPE_CHECKING:
    import pandas as pd


def from_store(db: str | None) -> tuple[pd.DataFrame, RelevanceScale]:
    """Every judged (not skipped) grade of the collection, and its declared scale."""
    import pandas as pd
    from sqlalchemy import select

    from judging.schema import AssessorRow, DocumentRow, JudgmentRow, TopicRow
    from judging.store import Store

    store = Store.open(db, create=False)
    try:
        scale = store.scale()
        with store.read() as s:
            cid = store._collection(s, None).id
            rows = s.execute(
                select(AssessorRow.name, TopicRow.key, DocumentRow.key, JudgmentRow.grade)
                .join(TopicRow, TopicRow.id == JudgmentRow.topic_id)
                .join(DocumentRow, DocumentRow.id == JudgmentRow.document_id)
                .join(AssessorRow, AssessorRow.id == JudgmentRow.assessor_id)
                .where(JudgmentRow.status == "judged",
                       JudgmentRow.collection_id == cid)).all()
    finally:
        store.close()
    frame = pd.DataFrame([tuple(r) for r in rows], columns=["assessor", "topic", "doc", "grade"])
    return frame, scale
