"""Documents and topics from CSV/TSV tables with a header row and a column mapping.

``columns`` maps relkit's fields to the table's column names, e.g.
``"id=docid,title=headline,text=body"``. Fields not mapped fall back to a column
of a usual name (``id``/``_id``/``docid``/``doc_id``/``docno``; ``title``;
``text``/``body``/``contents``); every other column is kept in
:attr:`relkit.corpora.types.Document.fields`. Rows are streamed with :mod:`csv`, so
quoted fields may span lines, and errors name the line a row starts on.
"""

from __future__ import annotations

import csv
import sys
from collections.abc import Iterator
from pathlib import Path

from relkit.corpora.textio import open_text
from relkit.corpora.types import Document, Topic
from relkit.metrics.core.errors import FormatError

DOC_FIELDS = {"id": ("id", "_id", "docid", "doc_id", "docno"), "title": ("title",),
              "text": ("text", "body", "contents", "content")}
TOPIC_FIELDS = {"id": ("id", "_id", "qid", "query_id", "topic", "num"),
                "title": ("title", "query", "text"),
                "description": ("description", "desc"), "narrative": ("narrative", "narr")}

# A document's text can be far longer than csv's 128 KiB default field limit.
csv.field_size_limit(min(sys.maxsize, 2**31 - 1))


def parse_columns(spec: str | dict[str, str] | None, allowed: tuple[str, ...]) -> dict[str, str]:
    """``"id=docid,text=body"`` as a dict, every key one of ``allowed``."""
    if spec is None or spec == "":
        return {}
    if isinstance(spec, dict):
        pairs = list(spec.items())
    else:
        pairs = []
        for part in spec.split(","):
            key, eq, col = part.partition("=")
            if not eq or not key.strip() or not col.strip():
                raise FormatError("--columns", None, "field=column pairs separated by commas "
                                  f"(fields: {', '.join(allowed)})", repr(part))
            pairs.append((key.strip(), col.strip()))
    out: dict[str, str] = {}
    for key, col in pairs:
        if key not in allowed:
            raise FormatError("--columns", None, f"a field among {list(allowed)}", repr(key))
        out[key] = col
    return out


def _rows(path: str | Path, delimiter: str, spec: str | dict[str, str] | None,
          known: dict[str, tuple[str, ...]]
          ) -> Iterator[tuple[int, dict[str, str], dict[str, str]]]:
    """(line, mapped fields, other columns) for each row of the table."""
    mapping = parse_columns(spec, tuple(known))
    with open_text(path, newline="") as fp:
        reader = csv.reader(fp, delimiter=delimiter)
        header = next(reader, None)
        if header is None:
            raise FormatError(str(path), 1, "a header row naming the columns", "an empty file")
        header = [h.strip() for h in header]
        index: dict[str, int] = {}
        for field, names in known.items():
            wanted = [mapping[field]] if field in mapping else list(names)
            hit = next((header.index(n) for n in wanted if n in header), None)
            if hit is not None:
                index[field] = hit
            elif field in mapping or field == "id":
                raise FormatError(str(path), 1, f"a column {' or '.join(map(repr, wanted))} "
                                  f"for the {field} (map one with --columns {field}=NAME)",
                                  f"columns {header}")
        used = set(index.values())
        start = reader.line_num + 1
        for row in reader:
            line, start = start, reader.line_num + 1
            if not row or (len(row) == 1 and not row[0].strip()):
                continue
            if len(row) != len(header):
                raise FormatError(str(path), line, f"{len(header)} fields like the header",
                                  f"{len(row)} field(s)")
            got = {f: row[i] for f, i in index.items()}
            if not got["id"].strip():
                raise FormatError(str(path), line, f"an id in column {header[index['id']]!r}",
                                  "an empty field")
            others = {header[i]: v for i, v in enumerate(row) if i not in used and header[i]}
            yield line, got, others


def _docs(path: str | Path, delimiter: str, columns: str | dict[str, str] | None
          ) -> Iterator[Document]:
    for _, got, others in _rows(path, delimiter, columns, DOC_FIELDS):
        title = got.get("title", "").strip()
        yield Document(got["id"].strip(), title or None, got.get("text", "").strip(), others)


def csv_docs(path: str | Path, columns: str | dict[str, str] | None = None
             ) -> Iterator[Document]:
    """Documents from a comma-separated table (RFC 4180 quoting)."""
    return _docs(path, ",", columns)


def tsv_docs(path: str | Path, columns: str | dict[str, str] | None = None
             ) -> Iterator[Document]:
    """Documents from a tab-separated table with a header row."""
    return _docs(path, "\t", columns)


def csv_topics(path: str | Path, columns: str | dict[str, str] | None = None
               ) -> Iterator[Topic]:
    """Topics from a comma-separated table: id, title, description, narrative columns."""
    for _, got, _others in _rows(path, ",", columns, TOPIC_FIELDS):
        yield Topic(got["id"].strip(), *(got.get(f, "").strip() or None
                                         for f in ("title", "description", "narrative")))
