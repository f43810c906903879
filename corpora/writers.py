"""Writing documents and topics in the formats the loaders read, found by the same names.

For exporting a collection to another tool's format, and for the round-trip
property test over the loader registry (every file loader has a writer here).
Text is written as it is: the loaders normalise whitespace, and SGML/SMART have
no escaping, so text containing ``<DOC>``-like tags or a line starting with a
SMART marker (``.W``) does not survive those two formats.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Iterable
from typing import IO

from relkit.corpora.types import Document, Topic


def trec_docs(docs: Iterable[Document], out: IO[str]) -> None:
    for d in docs:
        title = f"<TITLE>{d.title}</TITLE>\n" if d.title else ""
        out.write(f"<DOC>\n<DOCNO>{d.id}</DOCNO>\n{title}<TEXT>\n{d.text}\n</TEXT>\n</DOC>\n")


def smart_docs(docs: Iterable[Document], out: IO[str]) -> None:
    for d in docs:
        out.write(f".I {d.id}\n")
        if d.title:
            out.write(f".T\n{d.title}\n")
        for marker, key in ((".A", "authors"), (".B", "source"), (".K", "keywords")):
            if d.fields.get(key):
                out.write(f"{marker}\n{d.fields[key]}\n")
        out.write(f".W\n{d.text}\n")


def jsonl_docs(docs: Iterable[Document], out: IO[str]) -> None:
    for d in docs:
        out.write(json.dumps({"_id": d.id, "title": d.title or "", "text": d.text,
                              **dict(d.fields)}, ensure_ascii=False) + "\n")


def _table_docs(docs: Iterable[Document], out: IO[str], delimiter: str) -> None:
    docs = list(docs)
    extra = sorted({k for d in docs for k in d.fields})
    w = csv.writer(out, delimiter=delimiter, lineterminator="\n")
    w.writerow(["id", "title", "text", *extra])
    for d in docs:
        w.writerow([d.id, d.title or "", d.text, *(d.fields.get(k, "") for k in extra)])


def csv_docs(docs: Iterable[Document], out: IO[str]) -> None:
    _table_docs(docs, out, ",")


def tsv_docs(docs: Iterable[Document], out: IO[str]) -> None:
    _table_docs(docs, out, "\t")


def trec_topics(topics: Iterable[Topic], out: IO[str]) -> None:
    for t in topics:
        out.write(f"<top>\n<num> Number: {t.id}\n<title> {t.title or ''}\n")
        if t.description:
            out.write(f"<desc> Description:\n{t.description}\n")
        if t.narrative:
            out.write(f"<narr> Narrative:\n{t.narrative}\n")
        out.write("</top>\n\n")


def smart_topics(topics: Iterable[Topic], out: IO[str]) -> None:
    # SMART queries carry only their text; ids are positions on reading (Cranfield's rule).
    for n, t in enumerate(topics, 1):
        out.write(f".I {n:03d}\n.W\n{t.title or ''}\n")


def jsonl_topics(topics: Iterable[Topic], out: IO[str]) -> None:
    for t in topics:
        rec = {"_id": t.id, "text": t.title or ""}
        rec.update({k: v for k, v in (("description", t.description),
                                      ("narrative", t.narrative)) if v})
        out.write(json.dumps(rec, ensure_ascii=False) + "\n")


def tsv_topics(topics: Iterable[Topic], out: IO[str]) -> None:
    for t in topics:
        cols = [t.id, t.title or "", t.description or "", t.narrative or ""]
        while len(cols) > 2 and not cols[-1]:
            cols.pop()
        out.write("\t".join(cols) + "\n")


def csv_topics(topics: Iterable[Topic], out: IO[str]) -> None:
    w = csv.writer(out, lineterminator="\n")
    w.writerow(["id", "title", "description", "narrative"])
    for t in topics:
        w.writerow([t.id, t.title or "", t.description or "", t.narrative or ""])


WRITERS: dict[str, Callable[..., None]] = {
    "trec-docs": trec_docs, "smart-docs": smart_docs, "jsonl-docs": jsonl_docs,
    "csv-docs": csv_docs, "tsv-docs": tsv_docs,
    "trec-topics": trec_topics, "smart-topics": smart_topics, "jsonl-topics": jsonl_topics,
    "tsv-topics": tsv_topics, "csv-topics": csv_topics,
}
