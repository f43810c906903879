"""Readers for documents and topics, found by name in a registry.

Every loader streams: it yields records one at a time from the file, so a
collection of millions of documents is never held in memory (the judging
store copies in only the pooled ones, through :mod:`relkit.corpora.docstore`).
A malformed record is a :class:`relkit.metrics.core.errors.FormatError` naming the file,
the line, what was expected and what was found.

Formats
-------
``trec-docs``    TREC SGML: ``<DOC><DOCNO>id</DOCNO> ... </DOC>``; the text is the
                 ``<TEXT>`` element, or everything after ``</DOCNO>`` when there is
                 none (Vaswani); ``<TITLE>``/``<HEADLINE>`` give the title.
``trec-topics``  ``<top>`` with ``<num>``, ``<title>``, ``<desc>``, ``<narr>``, closed
                 or not (``Number:``, ``Description:``, ``Narrative:`` prefixes removed).
``smart-docs``   SMART tagged lines (``.I .T .A .B .W``), as in Cranfield.
``smart-topics`` The same for queries. Their ``.I`` numbers are *not* the ids the
                 qrels and runs use (Cranfield numbers queries 1..225 by position),
                 so ids are positions unless ``renumber=False``; a query's text is
                 its ``.T`` then its ``.W``. Ids and text follow the one SMART rule
                 (:mod:`relkit.metrics.core.smart`: digits lose leading zeros).
``jsonl-docs``   BEIR ``corpus.jsonl``: ``{"_id", "title", "text", ...}``.
``jsonl-topics`` BEIR ``queries.jsonl``: ``{"_id", "text", ...}``.
``tsv-topics``   ``id<TAB>title`` lines (MS MARCO / TREC DL queries).
``csv-docs``, ``tsv-docs``, ``csv-topics``  a table with a header row, its columns
                 mapped to fields by ``columns="id=docid,text=body"``
                 (:mod:`relkit.corpora.tabular`).
``irds-docs``, ``irds-topics``  an ``ir_datasets`` id such as ``cranfield``
                 (optional extra ``relkit[irds]``; :mod:`relkit.corpora.irds`).

Qrels formats (TREC, BEIR TSV, SMART ``.REL``) are in :mod:`relkit.corpora.qrels`.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from relkit.corpora.textio import open_text
from relkit.corpora.types import Document, Topic
from relkit.metrics.core.errors import FormatError, RelkitError
from relkit.metrics.core.registry import Registry
from relkit.metrics.core.smart import TEXT_FIELDS, smart_id, smart_text


class LoaderError(RelkitError):
    """An unknown format name."""


def _open(path: str | Path) -> IO[str]:
    return open_text(path)


def _clean(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


# -- TREC SGML -------------------------------------------------------------------------
_TAG = re.compile(r"<(/?)([A-Za-z]+)[^>]*>")


def _elements(body: str) -> dict[str, str]:
    """Top-level elements of one SGML record, closed or not (``<num> 1 <title> x``)."""
    out: dict[str, str] = {}
    marks = list(_TAG.finditer(body))
    for i, m in enumerate(marks):
        if m.group(1):
            continue
        name = m.group(2).lower()
        end = next((n.start() for n in marks[i + 1:]
                    if not (n.group(1) and n.group(2).lower() != name)), len(body))
        close = re.search(rf"</{name}\s*>", body[m.end():], re.IGNORECASE)
        if close is not None and m.end() + close.start() <= end:
            end = m.end() + close.start()
        out.setdefault(name, body[m.end():end])
    return out


def _records(path: str | Path, tag: str) -> Iterator[tuple[int, str]]:
    """(line of the opening tag, body) of each ``<tag>...</tag>`` record."""
    open_re = re.compile(rf"<{tag}>", re.IGNORECASE)
    close_re = re.compile(rf"</{tag}>", re.IGNORECASE)
    buf: list[str] = []
    start = 0
    with _open(path) as fp:
        for n, line in enumerate(fp, 1):
            if start == 0:
                m = open_re.search(line)
                if m is None:
                    if line.strip():
                        raise FormatError(str(path), n, f"<{tag}>", repr(line.strip()[:40]))
                    continue
                start, line = n, line[m.end():]
            c = close_re.search(line)
            if c is None:
                buf.append(line)
                continue
            buf.append(line[:c.start()])
            yield start, "".join(buf)
            buf, start = [], 0
            rest = line[c.end():]
            if rest.strip():
                raise FormatError(str(path), n, f"a new line after </{tag}>",
                                  repr(rest.strip()[:40]))
    if start:
        raise FormatError(str(path), start, f"</{tag}> closing this record", "end of file")


def trec_docs(path: str | Path) -> Iterator[Document]:
    for line, body in _records(path, "DOC"):
        el = _elements(body)
        docno = _clean(el.get("docno", ""))
        if not docno:
            raise FormatError(str(path), line, "<DOCNO>id</DOCNO>", "a record without a DOCNO")
        title = el.get("title") or el.get("headline")
        if "text" in el:
            text = el["text"]
        else:
            after = re.split(r"</docno\s*>", body, maxsplit=1, flags=re.IGNORECASE)
            text = _TAG.sub(" ", after[1] if len(after) > 1 else "")
        yield Document(docno, _clean(title) if title else None, _clean(text))


_PREFIX = re.compile(r"^\s*(number|topic|description|narrative)\s*:\s*", re.IGNORECASE)


def trec_topics(path: str | Path) -> Iterator[Topic]:
    for line, body in _records(path, "top"):
        el = _elements(body)
        num = _clean(_PREFIX.sub("", el.get("num", "")))
        if not num:
            raise FormatError(str(path), line, "<num> with the topic id", "a topic without one")

        yield Topic(num, _topic_field(el, "title"), _topic_field(el, "desc"),
                    _topic_field(el, "narr"))


def _topic_field(el: dict[str, str], name: str) -> str | None:
    return _clean(_PREFIX.sub("", _TAG.sub(" ", el.get(name, "")))) or None


# -- SMART -------------------------------------------------------------------------------
# CACM and CISI add .N (entry date), .X (citations), .K (keywords), .C (categories).
_SMART = re.compile(r"^\.([ITABWNXKC])(?:\s+(\S+))?\s*$")


def _smart(path: str | Path) -> Iterator[tuple[int, str, dict[str, str]]]:
    rec: dict[str, list[str]] = {}
    ident, start, field = "", 0, ""
    with _open(path) as fp:
        for n, line in enumerate(fp, 1):
            m = _SMART.match(line.rstrip("\r\n"))
            if m and m.group(1) == "I":
                if start:
                    yield start, ident, {k: " ".join(v) for k, v in rec.items()}
                if not m.group(2):
                    raise FormatError(str(path), n, ".I <id>", repr(line.strip()))
                ident, start, rec, field = m.group(2), n, {}, ""
            elif m and m.group(2) is None and start:
                field = m.group(1)
                rec.setdefault(field, [])
            elif not start:
                if line.strip():
                    raise FormatError(str(path), n, "a record starting with .I <id>",
                                      repr(line.strip()[:40]))
            elif field:
                rec[field].append(line.strip())
            elif line.strip():
                raise FormatError(str(path), n, "a field marker (.T .A .B .W)",
                                  repr(line.strip()[:40]))
    if start:
        yield start, ident, {k: " ".join(v) for k, v in rec.items()}


def smart_docs(path: str | Path) -> Iterator[Document]:
    for _, ident, f in _smart(path):
        fields = {k: _clean(v) for k, v in (("authors", f.get("A", "")),
                                             ("source", f.get("B", "")),
                                             ("keywords", f.get("K", ""))) if _clean(v)}
        yield Document(smart_id(ident), _clean(f.get("T", "")) or None,
                       _clean(f.get("W", "")), fields)


def smart_topics(path: str | Path, renumber: bool = True) -> Iterator[Topic]:
    """Queries; ids are 1-based positions (``renumber``), as Cranfield's qrels use. The
    text is ``.T`` then ``.W`` (:func:`relkit.metrics.core.smart.smart_text`)."""
    for pos, (_, ident, f) in enumerate(_smart(path), 1):
        text = smart_text({k: _clean(f.get(k, "")) for k in TEXT_FIELDS})
        yield Topic(str(pos) if renumber else smart_id(ident), text or None)


# -- JSONL and TSV -----------------------------------------------------------------------
def _jsonl(path: str | Path) -> Iterator[tuple[int, dict[str, object]]]:
    with _open(path) as fp:
        for n, line in enumerate(fp, 1):
            if not line.strip():
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise FormatError(str(path), n, "a JSON object", f"invalid JSON ({exc.msg})") \
                    from None
            if not isinstance(rec, dict) or not str(rec.get("_id", "")).strip():
                raise FormatError(str(path), n, 'an object with an "_id"', repr(line[:40]))
            yield n, rec


def jsonl_docs(path: str | Path) -> Iterator[Document]:
    for _, rec in _jsonl(path):
        extra = {k: str(v) for k, v in rec.items()
                 if k not in ("_id", "title", "text") and isinstance(v, str | int | float)}
        yield Document(str(rec["_id"]), str(rec.get("title") or "") or None,
                       str(rec.get("text") or ""), extra)


def jsonl_topics(path: str | Path) -> Iterator[Topic]:
    for _, rec in _jsonl(path):
        yield Topic(str(rec["_id"]), str(rec.get("text") or rec.get("title") or "") or None,
                    str(rec.get("description") or "") or None,
                    str(rec.get("narrative") or "") or None)


def tsv_topics(path: str | Path) -> Iterator[Topic]:
    with _open(path) as fp:
        for n, line in enumerate(fp, 1):
            if not line.strip():
                continue
            parts = line.rstrip("\r\n").split("\t")
            if len(parts) < 2 or not parts[0].strip():
                raise FormatError(str(path), n, "'id<TAB>title'", repr(line.strip()[:40]))
            yield Topic(parts[0].strip(), parts[1].strip() or None,
                        parts[2].strip() if len(parts) > 2 and parts[2].strip() else None,
                        parts[3].strip() if len(parts) > 3 and parts[3].strip() else None)


@dataclass(frozen=True)
class Loader:
    """A named reader: what it yields, how to recognise its files, the function.

    ``options`` names the keyword options ``read`` accepts (``columns`` for the
    tabular formats); :func:`check_options` rejects any other, with the list.
    ``file_based`` is false for sources that are not files (ir_datasets ids).
    """

    name: str
    kind: str  # "docs" or "topics"
    read: Callable[..., Iterator[Document]] | Callable[..., Iterator[Topic]]
    suffixes: tuple[str, ...] = ()
    description: str = ""
    options: tuple[str, ...] = ()
    file_based: bool = True


def _registry() -> Registry[Loader]:
    # The tabular and ir_datasets readers live in their own modules (one idea each);
    # they import nothing from here, so the registry can gather them.
    from relkit.corpora import irds, tabular

    reg: Registry[Loader] = Registry("format", LoaderError)
    reg.register(
        Loader("trec-docs", "docs", trec_docs, (".trec", ".sgml", ".xml"), "TREC SGML <DOC>"),
        Loader("smart-docs", "docs", smart_docs, (".all", ".1400"), "SMART .I/.T/.A/.B/.W"),
        Loader("jsonl-docs", "docs", jsonl_docs, (".jsonl",), "BEIR corpus.jsonl"),
        Loader("csv-docs", "docs", tabular.csv_docs, (".csv",),
               "CSV with a header; --columns id=docid,title=...,text=body", ("columns",)),
        Loader("tsv-docs", "docs", tabular.tsv_docs, (".tsv",),
               "TSV with a header; --columns id=docid,title=...,text=body", ("columns",)),
        Loader("irds-docs", "docs", irds.irds_docs, (), "ir_datasets id (pip install "
               "'relkit[irds]')", file_based=False),
        Loader("trec-topics", "topics", trec_topics, (".trec", ".topics", ".xml"),
               "TREC <top> (closed or not, <TOP><NUM>..<TITLE> too)"),
        Loader("smart-topics", "topics", smart_topics, (".qry",), "SMART queries (renumbered)"),
        Loader("jsonl-topics", "topics", jsonl_topics, (".jsonl",), "BEIR queries.jsonl"),
        Loader("tsv-topics", "topics", tsv_topics, (".tsv", ".txt"), "id<TAB>title"),
        Loader("csv-topics", "topics", tabular.csv_topics, (".csv",),
               "CSV with a header; --columns id=qid,title=query,...", ("columns",)),
        Loader("irds-topics", "topics", irds.irds_topics, (), "ir_datasets id (pip install "
               "'relkit[irds]')", file_based=False),
    )
    return reg


LOADERS: Registry[Loader] = _registry()


def get_loader(name: str, kind: str | None = None) -> Loader:
    """A loader by name (of one kind, ``docs`` or ``topics``, if given)."""
    if kind is None:
        return LOADERS.lookup(name)
    ld = LOADERS.get(name)
    if ld is None or ld.kind != kind:
        raise LOADERS.unknown(name, kind=f"{kind} format",
                              among=[n for n, x in LOADERS.items() if x.kind == kind])
    return ld


def check_options(ld: Loader, options: dict[str, str]) -> None:
    """Every option must be one the loader takes; the error lists those it does."""
    bad = sorted(set(options) - set(ld.options))
    if bad:
        takes = f"takes only {list(ld.options)}" if ld.options else "takes no options"
        raise LoaderError(f"format {ld.name!r} {takes}; got {bad}")


def sniff(path: str | Path, kind: str) -> Loader:
    """Guess the loader of ``path`` from its first non-blank line (or a .csv suffix)."""
    if Path(path).suffix.lower() == ".csv":
        return LOADERS[f"csv-{kind}"]
    with _open(path) as fp:
        first = next((line.strip() for line in fp if line.strip()), "")
    if first.startswith("{"):
        return LOADERS[f"jsonl-{kind}"]
    if first.startswith(".I"):
        return LOADERS[f"smart-{kind}"]
    if first.lower().startswith("<doc") or first.lower().startswith("<top"):
        return LOADERS[f"trec-{kind}"]
    if kind == "topics" and "\t" in first:
        return LOADERS["tsv-topics"]
    raise FormatError(str(path), 1, f"a {kind} file in one of {sorted(LOADERS)}",
                      repr(first[:40]))


def resolve(source: str | Path, kind: str, fmt: str | None = None,
            options: dict[str, str] | None = None) -> Loader:
    """The loader for ``source`` (named, else sniffed), its options checked."""
    ld = get_loader(fmt, kind) if fmt else sniff(source, kind)
    check_options(ld, options or {})
    return ld


def read_docs(path: str | Path, fmt: str | None = None,
              options: dict[str, str] | None = None) -> Iterator[Document]:
    """Stream the documents of ``path`` (format named or sniffed)."""
    ld = resolve(path, "docs", fmt, options)
    return ld.read(path, **(options or {}))  # type: ignore[return-value]


def read_topics(path: str | Path, fmt: str | None = None,
                options: dict[str, str] | None = None) -> list[Topic]:
    """All topics of ``path`` (a few hundred at most), each id once."""
    ld = resolve(path, "topics", fmt, options)
    out: list[Topic] = list(ld.read(path, **(options or {})))  # type: ignore[arg-type]
    seen: set[str] = set()
    for t in out:
        if t.id in seen:
            raise FormatError(str(path), None, "each topic id once", f"topic {t.id!r} twice")
        seen.add(t.id)
    return out
