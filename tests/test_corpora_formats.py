"""The CSV/TSV, BEIR-qrels, SMART-.REL and ir_datasets formats, and a round trip over
every file loader in the registry (hypothesis)."""

from __future__ import annotations

import io
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.corpora.irds import IrdsMissing
from relkit.corpora.loaders import LOADERS, LoaderError, read_docs, read_topics
from relkit.corpora.qrels import QRELS_FORMATS, get_qrels_format, map_grades, read_qrels
from relkit.corpora.types import Document, Topic
from relkit.corpora.writers import WRITERS
from relkit.metrics.core.errors import FormatError
from relkit.metrics.data import Qrels


def test_csv_docs_column_mapping_quoting_and_other_fields(tmp_path: Path) -> None:
    f = tmp_path / "d.csv"
    f.write_text('docid,headline,body,lang\n"007","A, title","line one\nline two",en\n'
                 'x9,,plain,fr\n')
    a, b = read_docs(f, "csv-docs", {"columns": "id=docid,title=headline,text=body"})
    assert (a.id, a.title, a.text, dict(a.fields)) == ("007", "A, title",
                                                       "line one\nline two", {"lang": "en"})
    assert (b.id, b.title, b.text) == ("x9", None, "plain")
    # Sniffed by suffix, default column names.
    g = tmp_path / "e.csv"
    g.write_text("id,text\n1,hello\n")
    assert [d.text for d in read_docs(g)] == ["hello"]


def test_tsv_docs_and_csv_topics(tmp_path: Path) -> None:
    f = tmp_path / "d.tsv"
    f.write_text("doc_id\tcontents\n1\talpha beta\n")
    (d,) = read_docs(f, "tsv-docs")
    assert (d.id, d.text) == ("1", "alpha beta")
    t = tmp_path / "t.csv"
    t.write_text("qid,query,narrative\n301,crime,A relevant document names one.\n")
    (top,) = read_topics(t, "csv-topics")
    assert (top.id, top.title, top.description, top.narrative) == (
        "301", "crime", None, "A relevant document names one.")


@pytest.mark.parametrize("content,options,where,what", [
    ("docid,body\n1,a\n2\n", {"columns": "id=docid,text=body"}, ":3:", "2 fields"),
    # A quoted field over two lines: the bad row after it is still on the right line.
    ('id,text\n1,"a\nb"\n,empty id\n', {}, ":4:", "an id"),
    ("name,body\n1,a\n", {}, ":1:", "map one with --columns id=NAME"),
    ("id,body\n1,a\n", {"columns": "id=id,text=missing"}, ":1:", "'missing'"),
    ("", {}, ":1:", "header"),
])
def test_csv_errors_name_file_and_line(tmp_path: Path, content: str, options: dict[str, str],
                                       where: str, what: str) -> None:
    f = tmp_path / "bad.csv"
    f.write_text(content)
    with pytest.raises(FormatError) as exc:
        list(read_docs(f, "csv-docs", options))
    assert f"{f}{where}" in str(exc.value) and what in str(exc.value)


def test_options_are_checked_against_the_loader(tmp_path: Path) -> None:
    f = tmp_path / "d.csv"
    f.write_text("id,text\n1,a\n")
    with pytest.raises(LoaderError, match="takes no options"):
        list(read_docs(f, "trec-docs", {"columns": "id=x"}))
    with pytest.raises(FormatError, match="a field among"):
        list(read_docs(f, "csv-docs", {"columns": "docid=x"}))
    with pytest.raises(FormatError, match="field=column pairs"):
        list(read_docs(f, "csv-docs", {"columns": "id"}))


def test_beir_qrels_with_header_and_errors(tmp_path: Path) -> None:
    f = tmp_path / "test.tsv"
    f.write_text("query-id\tcorpus-id\tscore\nq1\t007\t2\nq1\td2\t0\n")
    q = read_qrels(f)                                   # sniffed from the header
    assert q.frame[["query_id", "doc_id", "relevance"]].values.tolist() == [
        ["q1", "007", 2], ["q1", "d2", 0]]
    assert q.line_of(1) == 3
    f.write_text("query-id\tcorpus-id\tscore\nq1\td1\n")
    with pytest.raises(FormatError, match=r"test.tsv:2: expected 3 tab-separated"):
        read_qrels(f, "beir-qrels")
    f.write_text("q1\td1\t0.5\n")
    with pytest.raises(FormatError, match=r"test.tsv:1: expected an integer score"):
        read_qrels(f, "beir-qrels")


def test_smart_rel_unpads_ids(tmp_path: Path) -> None:
    # CACM's qrels.text: "01 1410  0 0"; CISI.REL: "     1     28\t0\t0.000000".
    f = tmp_path / "qrels.text"
    f.write_text("01 1410  0 0\n01 0071 0 0\n     2     28\t0\t0.000000\n")
    q = read_qrels(f, "smart-rel")
    assert q.frame[["query_id", "doc_id", "relevance"]].values.tolist() == [
        ["1", "1410", 1], ["1", "71", 1], ["2", "28", 1]]
    f.write_text("01 1410\n7\n")
    with pytest.raises(FormatError, match=r"qrels.text:2:"):
        read_qrels(f, "smart-rel")


def test_grade_map_rewrites_and_rejects_unmapped_grades() -> None:
    q = Qrels.read("1 0 a 1\n1 0 b 4\n1 0 c -1\n")
    mapped = map_grades(q, {1: 4, 2: 3, 3: 2, 4: 1, -1: 0})
    assert mapped.table["relevance"].to_pylist() == [4, 1, 0]
    with pytest.raises(FormatError, match=r":2: expected a grade the collection's grade map "
                                          r"names \[-1, 1\]; found grade 4"):
        map_grades(q, {1: 1, -1: 0})


def test_unknown_qrels_format_suggests() -> None:
    with pytest.raises(LoaderError, match="did you mean 'beir-qrels'"):
        get_qrels_format("beir-qrel")
    assert set(QRELS_FORMATS) >= {"trec-qrels", "beir-qrels", "smart-rel", "irds-qrels"}


# -- ir_datasets -------------------------------------------------------------------------
def test_irds_missing_names_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "ir_datasets", None)  # import fails as if not installed
    with pytest.raises(IrdsMissing, match=r"pip install 'relkit\[irds\]'"):
        list(read_docs("cranfield", "irds-docs"))


def test_irds_loaders_on_a_local_dataset(tmp_path: Path) -> None:
    """A dataset registered in ir_datasets from local files (its downloads need the network)."""
    ir_datasets = pytest.importorskip("ir_datasets", reason="optional extra relkit[irds]")
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecDocs, TrecQrels, TrecQueries
    from ir_datasets.util import LocalDownload

    (tmp_path / "docs.trec").write_text("<DOC>\n<DOCNO>d1</DOCNO>\n<TEXT>\nalpha\n</TEXT>\n"
                                        "</DOC>\n<DOC>\n<DOCNO>007</DOCNO>\n<TEXT>\nbeta\n"
                                        "</TEXT>\n</DOC>\n")
    (tmp_path / "topics.trec").write_text("<top>\n<num> Number: 5\n<title> greek letters\n"
                                          "<desc> Description:\nwhich?\n"
                                          "<narr> Narrative:\nany.\n</top>\n")
    (tmp_path / "qrels").write_text("5 0 d1 2\n5 0 007 0\n")
    name = f"relkit-test-{tmp_path.name}"
    ir_datasets.registry.register(name, Dataset(
        TrecDocs(LocalDownload(tmp_path / "docs.trec"), parser="text"),
        TrecQueries(LocalDownload(tmp_path / "topics.trec")),
        TrecQrels(LocalDownload(tmp_path / "qrels"), {0: "no", 2: "yes"})))
    docs = list(read_docs(name, "irds-docs"))
    assert [(d.id, d.text.strip()) for d in docs] == [("d1", "alpha"), ("007", "beta")]
    (t,) = read_topics(name, "irds-topics")
    assert (t.id, t.title, t.description, t.narrative) == ("5", "greek letters", "which?",
                                                           "any.")
    q = read_qrels(name, "irds-qrels")
    assert q.frame[["query_id", "doc_id", "relevance"]].values.tolist() == [
        ["5", "d1", 2], ["5", "007", 0]]


# -- the registry, round trip ------------------------------------------------------------
_word = st.text("abcdefghijklmnopqrstuvwxyzABCXYZ0123456789", min_size=1, max_size=8)
_words = st.lists(_word, min_size=1, max_size=6).map(" ".join)
_ids = st.text("abcdefghij0123456789-_", min_size=1, max_size=6)


@st.composite
def _docs(draw: st.DrawFn, fmt: str) -> list[Document]:
    ids = draw(st.lists(_ids if fmt != "smart-docs" else
                        st.integers(1, 10**6).map(str), min_size=1, max_size=5, unique=True))
    out = []
    for i in ids:
        fields = ({"lang": draw(_word)} if fmt in ("jsonl-docs", "csv-docs", "tsv-docs") else
                  {"authors": draw(_words)} if fmt == "smart-docs" else {})
        out.append(Document(i, draw(st.none() | _words), draw(_words), fields))
    return out


@st.composite
def _topics(draw: st.DrawFn, fmt: str) -> list[Topic]:
    n = draw(st.integers(1, 5))
    ids = (list(map(str, range(1, n + 1))) if fmt == "smart-topics"
           else draw(st.lists(_ids, min_size=n, max_size=n, unique=True)))
    rich = fmt != "smart-topics"  # SMART queries have only their text
    return [Topic(i, draw(_words), draw(st.none() | _words) if rich else None,
                  draw(st.none() | _words) if rich else None) for i in ids]


FILE_LOADERS = sorted(n for n, ld in LOADERS.items() if ld.file_based)


def test_every_file_loader_has_a_writer() -> None:
    assert sorted(WRITERS) == FILE_LOADERS


@pytest.mark.parametrize("fmt", FILE_LOADERS)
@settings(max_examples=examples(25), deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(data=st.data())
def test_round_trip(tmp_path: Path, fmt: str, data: st.DataObject) -> None:
    kind = LOADERS[fmt].kind
    items = data.draw(_docs(fmt) if kind == "docs" else _topics(fmt))
    buf = io.StringIO()
    WRITERS[fmt](items, buf)
    f = tmp_path / f"x{LOADERS[fmt].suffixes[0] if LOADERS[fmt].suffixes else '.txt'}"
    f.write_text(buf.getvalue())
    back = list(read_docs(f, fmt)) if kind == "docs" else read_topics(f, fmt)
    assert back == items
