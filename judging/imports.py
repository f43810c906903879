"""Importing outside judgments into the store, all or nothing.

The files are read by :mod:`relkit.judging.judgment_files` (qrels per assessor, or
one long table). The whole input is read and checked before anything is written,
then written in one transaction: all or nothing.
"""

from __future__ import annotations

from collections.abc import Iterable

from sqlalchemy import insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from relkit.corpora.types import Document, Topic
from relkit.judging.database import integrity_error, now
from relkit.judging.judgment_files import JudgmentLine
from relkit.judging.models import StoreError
from relkit.judging.schema import (
    DocumentRow,
    JudgmentEventRow,
    JudgmentRow,
    TopicRow,
)
from relkit.judging.store import Store


def import_judgments(store: Store, lines: Iterable[JudgmentLine], *,
                     add_missing: bool = False) -> int:
    """Import judgments all or nothing; returns how many were written.

    Unknown topics or documents are an error naming the file and line, unless
    ``add_missing`` (then they are added without text: outside data for
    agreement only). A pair given twice for one assessor is an error; an
    existing judgment is revised, its old value kept in the history.
    """
    rows = list(lines)
    if not rows:
        raise StoreError("no judgments to import")
    scale = store.scale()
    seen: dict[tuple[str, str, str], JudgmentLine] = {}
    for r in rows:
        if r.grade not in scale:
            raise StoreError(f"{r.source}:{r.line}: grade {r.grade} is not on the "
                             f"{scale.name!r} scale (expected one of {list(scale.values)}); "
                             "nothing was imported")
        key = (r.assessor, r.topic, r.doc)
        if key in seen:
            first = seen[key]
            raise StoreError(f"{r.source}:{r.line}: {r.assessor!r} judged topic {r.topic!r} "
                             f"document {r.doc!r} already at {first.source}:{first.line}; "
                             "nothing was imported")
        seen[key] = r
    try:
        with store.write() as s, s.begin():
            c = store.collection_row(s)
            topics = store.topic_ids(s, c.id)
            docs = store.doc_ids(s, c.id)
            new_topics = sorted({r.topic for r in rows} - set(topics))
            new_docs = sorted({r.doc for r in rows} - set(docs))
            if (new_topics or new_docs) and not add_missing:
                bad = next(r for r in rows if r.topic in new_topics or r.doc in new_docs)
                what = (f"topic {bad.topic!r}" if bad.topic in new_topics
                        else f"document {bad.doc!r}")
                raise StoreError(f"{bad.source}:{bad.line}: unknown {what} (not in the "
                                 "database; --add-missing adds it); nothing was imported")
            conn = s.connection()
            if new_topics:
                conn.execute(insert(TopicRow), [dict(collection_id=c.id, key=Topic(t).id)
                                                for t in new_topics])
                topics = store.topic_ids(s, c.id)
            if new_docs:
                conn.execute(insert(DocumentRow), [dict(collection_id=c.id, key=Document(d).id,
                                                        text="", fields_json="{}")
                                                   for d in new_docs])
                docs = store.doc_ids(s, c.id)
            people = store.ensure_assessors(s, sorted({r.assessor for r in rows}))
            stamp = now()
            ins_fn = postgresql.insert if conn.dialect.name == "postgresql" else sqlite.insert
            t = JudgmentRow.__table__  # type: ignore[attr-defined]
            for r in rows:
                ins = ins_fn(t).values(
                    collection_id=c.id, assessor_id=people[r.assessor],
                    topic_id=topics[r.topic], document_id=docs[r.doc], grade=r.grade,
                    status="judged", note="", flagged=False, dwell_ms=0, version=1,
                    source="import", created_at=stamp, updated_at=stamp)
                ins = ins.on_conflict_do_update(
                    index_elements=["assessor_id", "topic_id", "document_id"],
                    set_=dict(grade=ins.excluded.grade, status="judged",
                              version=t.c.version + 1, source="import", updated_at=stamp),
                ).returning(t.c.id, t.c.version)
                jid, version = conn.execute(ins).one()
                conn.execute(insert(JudgmentEventRow).values(
                    judgment_id=jid, version=version, assessor_id=people[r.assessor],
                    topic_id=topics[r.topic], document_id=docs[r.doc], grade=r.grade,
                    status="judged", note="", flagged=False, dwell_ms=0, source="import",
                    recorded_at=stamp))
    except IntegrityError as exc:
        raise integrity_error(exc, "import") from None
    return len(rows)
