"""The judging database's side of a run: the pooled pairs to grade, with their text, and
the grades written back as an automatic assessor's judgments."""

from __future__ import annotations

from collections.abc import Mapping

from sqlalchemy import select
from sqlmodel import col

from relkit.judging.autojudge.backend import Answer, Request
from relkit.judging.store.assign import Store
from relkit.judging.store.imports import ImportSummary, import_judgments
from relkit.judging.store.models import StoreError
from relkit.judging.store.tables import DocumentRow, PoolEntryRow, PoolRow, TopicRow
from relkit.pooling.pool import natural


def pool_requests(store: Store, pool: str | None = None) -> tuple[str, list[Request]]:
    """The pool's name (default: the latest) and its pairs, in topic then document order."""
    with store.read() as s:
        c = store.collection_row(s)
        pools = list(s.execute(select(PoolRow).where(col(PoolRow.collection_id) == c.id)
                               .order_by(col(PoolRow.id))).scalars())
        if not pools:
            raise StoreError("no pool in this database yet: run `relkit pool ... --db DB`")
        chosen = pools[-1] if pool is None else next((p for p in pools if p.name == pool),
                                                     None)
        if chosen is None:
            raise StoreError(f"no pool named {pool!r}; there are "
                             f"{', '.join(p.name for p in pools)}")
        rows = s.execute(
            select(col(TopicRow.key), col(TopicRow.title), col(TopicRow.description),
                   col(TopicRow.narrative), col(DocumentRow.key), col(DocumentRow.text))
            .select_from(PoolEntryRow)
            .join(TopicRow, col(TopicRow.id) == col(PoolEntryRow.topic_id))
            .join(DocumentRow, col(DocumentRow.id) == col(PoolEntryRow.document_id))
            .where(col(PoolEntryRow.pool_id) == chosen.id)).all()
    out = [Request(t, d, title or "", desc or "", narr or "", text or "")
           for t, title, desc, narr, d, text in rows]
    out.sort(key=lambda r: (natural(r.topic), r.doc))
    return chosen.name, out


def store_grades(store: Store, assessor: str, answers: Mapping[tuple[str, str], Answer]
                 ) -> ImportSummary | None:
    """Import the parsed grades as ``assessor``'s (kind automatic), all or nothing.

    A pair the assessor already has with the same grade is left as it is (a re-run adds
    no history rows); None when there is nothing new to write.
    """
    from relkit.judging.judgment_files import JudgmentLine
    from relkit.judging.store.reports import export_qrels

    kinds = store.kinds()
    if kinds.get(assessor, "automatic") != "automatic":
        raise StoreError(f"{assessor!r} is a human assessor in this database: an automatic "
                         "judge needs a name of its own (--assessor)")
    have: dict[tuple[str, str], int] = {}
    if assessor in kinds:
        have = {(t, d): g for t, d, g in export_qrels(store, "assessor", assessor=assessor,
                                                      unjudged=False)}
    lines = [JudgmentLine(assessor, t, d, a.grade, "<judges-run>", n)
             for n, ((t, d), a) in enumerate(sorted(answers.items()), 1)
             if a.status == "ok" and a.grade is not None and have.get((t, d)) != a.grade]
    if not lines:
        return None
    return import_judgments(store, lines, kind="automatic")
