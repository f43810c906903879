"""Importing outside judgments: qrels files per assessor, or one long table.

Two file kinds, as ``relkit import judgments`` and ``relkit agree`` read them:

- a qrels file (``topic iteration doc grade``) per assessor, the file's stem
  naming the assessor (``alice.qrels`` is alice's);
- a long table (CSV or TSV, with a header) with the columns ``assessor,
  topic, doc, grade`` (aliases in :data:`ALIASES`, e.g. ``doc_id``/``docno``,
  ``query_id``/``qid``, and the TREC 2010 crowd header ``topicID workerID docID
  gold label``). An optional ``gold`` column gives the pair's expert grade: it
  is read once per (topic, doc) as judgments of the assessor :data:`GOLD`; a
  negative gold value means "no gold label" and is skipped (and counted).

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

from relkit.corpora.types import Document, Topic
from relkit.judging.models import StoreError
from relkit.judging.schema import (
    DocumentRow,
    JudgmentEventRow,
    JudgmentRow,
    TopicRow,
)
from relkit.judging.store import Store, integrity_error, now
from relkit.metrics.errors import FormatError


@dataclass(frozen=True)
class JudgmentLine:
    assessor: str
    topic: str
    doc: str
    grade: int
    source: str
    line: int
    gold: bool = False


class JudgmentLines(list[JudgmentLine]):
    """Judgment lines, and ``notes`` on what the reader skipped (for the CLI to print)."""

    def __init__(self, lines: Iterable[JudgmentLine] = (), notes: Iterable[str] = ()) -> None:
        super().__init__(lines)
        self.notes = list(notes)


ALIASES = {"assessor": ("assessor", "worker", "workerid", "worker_id", "judge", "annotator"),
           "topic": ("topic", "query_id", "qid", "topic_id", "topicid", "query"),
           "doc": ("doc", "doc_id", "docno", "docid", "document"),
           "grade": ("grade", "relevance", "label", "rel")}
GOLD_COLUMN = "gold"
GOLD = "gold"          # the assessor name given to a long table's gold column


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


def read_long_table(path: str | Path) -> JudgmentLines:
    """A CSV/TSV with a header naming assessor, topic, doc and grade (and maybe gold) columns."""
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
        gcol = header.index(GOLD_COLUMN) if GOLD_COLUMN in header else None
        out = JudgmentLines()
        gold: dict[tuple[str, str], JudgmentLine] = {}
        no_gold: dict[int, set[tuple[str, str]]] = {}
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
            g = _int(p, n, vals["grade"])
            if gcol is not None:
                if vals["assessor"] == GOLD:
                    raise FormatError(str(p), n, f"no assessor named {GOLD!r} (the gold "
                                      "column's name)", repr(GOLD))
                pair = (vals["topic"], vals["doc"])
                gv = _int(p, n, row[gcol].strip(), "an integer gold grade")
                if gv < 0:
                    no_gold.setdefault(gv, set()).add(pair)
                elif pair not in gold:
                    gold[pair] = JudgmentLine(GOLD, pair[0], pair[1], gv, str(p), n, True)
                elif gold[pair].grade != gv:
                    raise FormatError(str(p), n, f"gold grade {gold[pair].grade} for topic "
                                      f"{pair[0]!r} document {pair[1]!r} (as on line "
                                      f"{gold[pair].line})", str(gv))
            out.append(JudgmentLine(vals["assessor"], vals["topic"], vals["doc"], g, str(p), n))
    out.extend(gold.values())
    if gcol is not None:
        skipped = ", ".join(f"{len(v):,} with gold {k}" for k, v in sorted(no_gold.items()))
        out.notes.append(f"{p}: gold column read as assessor {GOLD!r}: {len(gold):,} pairs"
                         + (f"; pairs without a gold label skipped: {skipped}" if skipped
                            else ""))
    return out


def _int(p: Path, n: int, text: str, what: str = "an integer grade") -> int:
    try:
        return int(text)
    except ValueError:
        raise FormatError(str(p), n, what, repr(text)) from None


def read_judgment_files(paths: Sequence[str | Path]) -> JudgmentLines:
    """Read each file as a long table if its first line is a header, else as qrels."""
    out = JudgmentLines()
    for path in paths:
        with open(path, encoding="utf-8") as fp:
            first = fp.readline().strip().lower()
        words = set(first.replace(",", " ").replace("\t", " ").split())
        if words & set(ALIASES["assessor"]):
            lines = read_long_table(path)
            out.extend(lines)
            out.notes.extend(lines.notes)
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
