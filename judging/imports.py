"""Importing outside judgments: qrels files per assessor, or one long table.

Two file kinds, as ``relkit import judgments`` and ``relkit agree`` read them:

- a qrels file (``topic iteration doc grade``) per assessor, the file's stem
  naming the assessor (``alice.qrels`` is alice's);
- a long table (CSV or TSV, with a header) with the columns ``assessor,
  topic, doc, grade`` (``doc_id``/``docno`` and ``query_id``/``qid`` accepted).

The whole input is read and checked before anything is written, then written
in one transaction: all or nothing.
"""

from __future__ import annotations

import csv
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from sqlalchemy import insert
from sqlalchemy.dialects import postgresql, sqlite
from sqlalchemy.exc import IntegrityError

from corpora.types import Document, Topic
from judging.models import StoreError
from judging.schema import (
    DocumentRow,
    JudgmentEventRow,
    JudgmentRow,
    TopicRow,
)
from judging.store import Store, integrity_error, now
from metrics.errors import FormatError


@dataclass(frozen=True)
class JudgmentLine:
    assessor: str
    topic: str
    doc: str
    grade: int
    source: str
    line: int


ALIASES = {"assessor": ("assessor", "worker", "judge", "annotator"),
           "topic": ("topic", "query_id", "qid", "topic_id", "query"),
           "doc": ("doc", "doc_id", "docno", "docid", "document"),
           "grade": ("grade", "relevance", "label", "rel")}


def read_qrels_file(path: str | Path, assessor: str | None = None) -> list[JudgmentLine]:
    """One assessor's qrels (4 columns, or 3 without the iteration)."""
    p = Path(path)
    who = assessor or p.stem
    out = []
    with open(p, encoding="utf-8") as fp:
        for n, line in enumerate(fp, 1):
            parts = line.split()
            if not parts or parts[0].startswith("#"):
                continue
            if len(parts) not in (3, 4):
                raise FormatError(str(p), n, "'topic iteration doc grade'",
                                  f"{len(parts)} fields")
            topic, doc, grade = parts[0], parts[-2], parts[-1]
            try:
                g = int(grade)
            except ValueError:
                raise FormatError(str(p), n, "an integer grade", repr(grade)) from None
            out.append(JudgmentLine(who, topic, doc, g, str(p), n))
    return out


def read_long_table(path: str | Path) -> list[JudgmentLine]:
    """A CSV/TSV with a header naming assessor, topic, doc and grade columns."""
    p = Path(path)
    with open(p, encoding="utf-8", newline="") as fp:
        head = fp.readline()
        delim = "\t" if "\t" in head else ","
        fp.seek(0)
        reader = csv.reader(fp, delimiter=delim)
        header = [h.strip().lower() for h in next(reader, [])]
        cols = {}
        for name, alias in ALIASES.items():
            found = [i for i, h in enumerate(header) if h in alias]
            if not found:
                raise FormatError(str(p), 1, f"a header with a {name!r} column "
                                  f"(one of {list(alias)})", repr(",".join(header)))
            cols[name] = found[0]
        out = []
        for row in reader:
            n = reader.line_num
            if not row or all(not c.strip() for c in row):
                continue
            if len(row) != len(header):
                raise FormatError(str(p), n, f"{len(header)} fields", f"{len(row)}")
            vals = {k: row[i].strip() for k, i in cols.items()}
            for k in ("assessor", "topic", "doc"):
                if not vals[k]:
                    raise FormatError(str(p), n, f"a non-empty {k}", "an empty field")
            try:
                g = int(vals["grade"])
            except ValueError:
                raise FormatError(str(p), n, "an integer grade", repr(vals["grade"])) from None
            out.append(JudgmentLine(vals["assessor"], vals["topic"], vals["doc"], g, str(p), n))
    return out


def read_judgment_files(paths: Sequence[str | Path]) -> list[JudgmentLine]:
    """Read each file as a long table if its first line is a header, else as qrels."""
    out: list[JudgmentLine] = []
    for path in paths:
        with open(path, encoding="utf-8") as fp:
            first = fp.readline().strip().lower()
        words = set(first.replace(",", " ").replace("\t", " ").split())
        if words & set(ALIASES["assessor"]):
            out.extend(read_long_table(path))
        else:
            out.extend(read_qrels_file(path))
    return out


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
            c = store._collection(s, None)
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
