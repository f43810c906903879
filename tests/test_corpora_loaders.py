"""Loaders on the real collections in ../shared, and clear errors on malformed files."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SHARED
from relkit.corpora.docstore import DocStore
from relkit.corpora.loaders import LOADERS, LoaderError, get_loader, read_docs, read_topics
from relkit.metrics.core.errors import FormatError

CRAN = SHARED / "corpora" / "cranfield"
VASWANI = SHARED / "corpora" / "vaswani"
needs_corpora = pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")


@needs_corpora
def test_cranfield_counts_and_known_records() -> None:
    docs = list(read_docs(CRAN / "cran.all.1400"))
    assert len(docs) == 1400 and docs[0].id == "1" and docs[-1].id == "1400"
    assert docs[0].title is not None and docs[0].title.startswith(
        "experimental investigation of the aerodynamics of a wing in a slipstream")
    assert docs[0].fields["authors"] == "brenckman,m."
    assert docs[470].id == "471" and docs[994].text == ""  # the two empty abstracts
    topics = read_topics(CRAN / "cran.qry")
    # .I numbers run 001, 002, 004, 008...; ids are positions, as qrels and runs use.
    assert len(topics) == 225 and [t.id for t in topics[:3]] == ["1", "2", "3"]
    assert topics[2].title is not None and topics[2].title.startswith(
        "what problems of heat conduction in composite slabs")


@needs_corpora
def test_vaswani_counts_and_known_records() -> None:
    docs = list(read_docs(VASWANI / "corpus" / "doc-text.trec"))
    assert len(docs) == 11429 and docs[0].id == "1"
    assert docs[0].text.startswith("compact memories have flexible capacities")
    topics = read_topics(VASWANI / "query-text.trec")
    assert len(topics) == 93 and topics[0].title == (
        "MEASUREMENT OF DIELECTRIC CONSTANT OF LIQUIDS BY THE USE OF MICROWAVE TECHNIQUES")


def test_trec_topics_both_forms(tmp_path: Path) -> None:
    f = tmp_path / "t.trec"
    f.write_text("<top>\n<num> Number: 301\n<title> International Organized Crime\n"
                 "<desc> Description:\nIdentify organizations.\n<narr> Narrative:\n"
                 "A relevant document names one.\n</top>\n\n"
                 "<TOP><NUM>007</NUM><TITLE>bond</TITLE></TOP>\n")
    a, b = read_topics(f)
    assert (a.id, a.title, a.description, a.narrative) == (
        "301", "International Organized Crime", "Identify organizations.",
        "A relevant document names one.")
    assert (b.id, b.title) == ("007", "bond")


def test_trec_docs_text_title_and_markup_kept_literal(tmp_path: Path) -> None:
    f = tmp_path / "d.trec"
    f.write_text("<DOC>\n<DOCNO> AP-1 </DOCNO>\n<HEADLINE>Head</HEADLINE>\n"
                 "<TEXT>\nBody [bold]x[/bold] text.\n</TEXT>\n</DOC>\n")
    (d,) = read_docs(f)
    assert (d.id, d.title, d.text) == ("AP-1", "Head", "Body [bold]x[/bold] text.")


@pytest.mark.parametrize("content,fmt,where,what", [
    ("<DOC>\n<DOCNO>1</DOCNO>\ntext\n", "trec-docs", ":1:", "</DOC>"),
    ("<DOC>\ntext\n</DOC>\n", "trec-docs", ":1:", "DOCNO"),
    ("junk\n", "trec-docs", ":1:", "<DOC>"),
    (".I 1\n.W\nok\nstray\n.X what\n", "smart-docs", ":5:", None),
    ('{"_id": "1"}\n{oops\n', "jsonl-docs", ":2:", "JSON"),
    ("1\tfine\nnotab\n", "tsv-topics", ":2:", "id<TAB>title"),
])
def test_malformed_files_name_file_and_line(tmp_path: Path, content: str, fmt: str, where: str,
                                            what: str | None) -> None:
    f = tmp_path / "bad.txt"
    f.write_text(content)
    kind = get_loader(fmt).kind
    try:
        list(read_docs(f, fmt)) if kind == "docs" else read_topics(f, fmt)
    except FormatError as exc:
        assert f"{f}{where}" in str(exc)
        if what:
            assert what in str(exc)
    else:
        assert fmt == "smart-docs"  # '.X what' is text inside .W, not a marker: accepted


def test_unknown_format_suggests() -> None:
    with pytest.raises(LoaderError, match="did you mean 'trec-docs'"):
        get_loader("trec-doc", "docs")
    assert {ld.kind for ld in LOADERS.values()} == {"docs", "topics"}


def test_docstore_builds_once_and_rebuilds_on_change(tmp_path: Path,
                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))
    f = tmp_path / "c.jsonl"
    f.write_text('{"_id": "a", "title": "A", "text": "alpha"}\n{"_id": "007", "text": "b"}\n')
    store = DocStore.open(f)
    assert len(store) == 2 and store.get("007").text == "b"  # type: ignore[union-attr]
    assert store.get("7") is None and "a" in store
    again = DocStore.open(f)
    assert again.path == store.path
    f.write_text('{"_id": "a", "text": "changed"}\n')
    import os
    os.utime(f, ns=(1, 1))
    changed = DocStore.open(f)
    assert changed.path != store.path and changed.get("a").text == "changed"  # type: ignore[union-attr]
    dup = tmp_path / "dup.jsonl"
    dup.write_text('{"_id": "a"}\n{"_id": "a"}\n')
    with pytest.raises(FormatError, match="document 'a' twice"):
        DocStore.open(dup)
    assert not list((tmp_path / "cache" / "docstore").glob("*.tmp*"))
