"""The one path from the judging database to agreement: judged grades as a long frame."""

from __future__ import annotations

from typing import TYPE_CHECKING

from relkit.corpora.types import RelevanceScale

if TYPE_CHECKING:
    import pandas as pd


GOLD = "gold"


def from_store(db: str | None, *, automatic: bool = True
               ) -> tuple[pd.DataFrame, RelevanceScale, str | None]:
    """Every judged (not skipped) grade of the collection, its declared scale, and gold.

    ``automatic``: whether automatic assessors' grades (``--kind automatic``) are read
    too (``relkit agree`` compares everyone; ``agree --workers`` counts humans only,
    unless ``--include-automatic``).

    The store's gold pairs (``relkit assign --gold``: known grades mixed into
    assignments) become judgments of one more assessor, :data:`GOLD` (or
    ``"gold (table)"`` if an assessor is already called that), whose name is
    returned; ``None`` when the collection has no gold pairs.
    """
    import pandas as pd
    from sqlalchemy import select
    from sqlmodel import col

    from relkit.judging.store.assign import Store
    from relkit.judging.store.tables import AssessorRow, DocumentRow, GoldRow, JudgmentRow, TopicRow

    store = Store.open(db, readonly=True)
    try:
        from relkit.judging.store.access.identity import refuse_assessor

        refuse_assessor(store, "relkit agree")  # every assessor's grades: a lead's or the owner's
        scale = store.scale()
        with store.read() as s:
            cid = store.collection_row(s).id
            rows = s.execute(
                select(col(AssessorRow.name), col(TopicRow.key), col(DocumentRow.key),
                       col(JudgmentRow.grade))
                .join(TopicRow, col(TopicRow.id) == col(JudgmentRow.topic_id))
                .join(DocumentRow, col(DocumentRow.id) == col(JudgmentRow.document_id))
                .join(AssessorRow, col(AssessorRow.id) == col(JudgmentRow.assessor_id))
                .where(col(JudgmentRow.status) == "judged",
                       col(JudgmentRow.collection_id) == cid,
                       *([] if automatic else [col(AssessorRow.kind) == "human"]))).all()
            gold_rows = s.execute(
                select(col(TopicRow.key), col(DocumentRow.key), col(GoldRow.grade))
                .join(TopicRow, col(TopicRow.id) == col(GoldRow.topic_id))
                .join(DocumentRow, col(DocumentRow.id) == col(GoldRow.document_id))
                .where(col(GoldRow.collection_id) == cid)).all()
    finally:
        store.close()
    cols = ["assessor", "topic", "doc", "grade"]
    frame = pd.DataFrame([tuple(r) for r in rows], columns=cols)
    if not gold_rows:
        return frame, scale, None
    name = GOLD if GOLD not in set(frame["assessor"]) else f"{GOLD} (table)"
    gold = pd.DataFrame([(name, *tuple(r)) for r in gold_rows], columns=cols)
    return pd.concat([frame, gold], ignore_index=True), scale, name
