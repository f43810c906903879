"""cal's text files in SMART form (pooling/cal/texts.py): Cranfield's cran.all.1400 and
cran.qry read as they are, so `pool-simulate -s cal --docs --topics` runs on the
collection's own files. Oracle: relkit.corpora's SMART loaders (tests/cal_corpora.py),
which number Cranfield's queries by position as its qrels and runs do."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cal_corpora import CORPORA, texts
from helpers import run_cli
from relkit.pooling.cal.texts import read_texts
from relkit.pooling.errors import PoolingError

CRAN = CORPORA / "cranfield"
needs = pytest.mark.skipif(not CRAN.exists(), reason="needs ../shared")


def _norm(s: str) -> str:
    return " ".join(s.split())


@needs
def test_cranfield_smart_files_read_as_relkit_corpora_reads_them() -> None:
    docs = read_texts(CRAN / "cran.all.1400", "documents")
    topics = read_texts(CRAN / "cran.qry", "topics")
    ref = texts("cranfield")
    assert {k: _norm(v) for k, v in docs.items()} == {k: _norm(v) for k, v in ref.docs.items()}
    assert {k: _norm(v) for k, v in topics.items()} == {
        k: _norm(v) for k, v in ref.topics.items()}
    assert list(topics)[:3] == ["1", "2", "3"]      # positions, not .I 001, 002, 004


def test_smart_fields_ids_and_positions(tmp_path: Path) -> None:
    f = tmp_path / "c.all"
    f.write_text(".I 7\n.T\nwing\nflutter\n.A\nsmith,j.\n.B\nj. ae. 3\n.W\nlift at\n"
                 "low speed\n\n.I x9\n.W\nshear flow\n")
    assert read_texts(f, "documents") == {"7": "wing flutter lift at low speed",
                                          "x9": "shear flow"}
    assert read_texts(f, "topics") == {"1": "wing flutter lift at low speed",
                                       "2": "shear flow"}


@pytest.mark.parametrize("body, where", [
    (".I 1\nno marker\n", r"c\.all:2: expected a field marker"),
    (".I 1\n.W\nx\n.I\n.W\ny\n", r"c\.all:4: expected '\.I <id>'"),
    (".I 1\n.W\nx\n.I 1\n.W\ny\n", r"c\.all:4: document '1' twice"),
])
def test_bad_smart_files_are_one_line_naming_file_and_line(
        tmp_path: Path, body: str, where: str) -> None:
    f = tmp_path / "c.all"
    f.write_text(body)
    with pytest.raises(PoolingError, match=where):
        read_texts(f, "documents")


@needs
def test_pool_simulate_reads_cranfields_own_text_files(tmp_path: Path) -> None:
    qrels = tmp_path / "qrels"
    qrels.write_text("".join(line for line in (CRAN / "cranqrel").read_text().splitlines(True)
                             if line.split()[0] in ("1", "2")))
    code, out, err = run_cli([
        "pool-simulate", str(qrels), *map(str, sorted((CRAN / "runs").glob("*/*.txt"))),
        "-s", "cal:from=collection", "--docs", str(CRAN / "cran.all.1400"),
        "--topics", str(CRAN / "cran.qry"), "--budget", "10", "--format", "json"])
    assert code == 0, err
    rows = json.loads(out)
    assert rows and rows[0]["strategy"] == "cal:from=collection" and rows[0]["judged"] == 20


def test_cisi_style_files_read_alike_by_both_smart_readers(tmp_path: Path) -> None:
    """One rule for SMART ids and text (relkit.metrics.core.smart): the cal reader and
    relkit.corpora (documents, topics, .REL qrels) give the same ids and the same text
    on a file where they used to differ: a zero-padded document id, and a CISI query
    holding a .T title, .A authors and .W text."""
    from relkit.corpora.loaders import smart_docs, smart_topics
    from relkit.corpora.qrels import smart_rel

    docs, topics, rel = tmp_path / "CISI.ALL", tmp_path / "CISI.QRY", tmp_path / "CISI.REL"
    docs.write_text(".I 007\n.T\nIndexing\nlanguages\n.A\nCleverdon, C.\n.W\nthe  recall\nof "
                    "terms\n.X\n1 5 1\n.I 12\n.W\ncitation indexes\n.I x9\n.W\nshear\n")
    topics.write_text(".I 1\n.W\nWhat problems arise with titles?\n.I 2\n.T\nComputerized "
                      "Information\n.A\nRaben, J.\n.W\nhumanities research\n.B\n1969\n")
    rel.write_text("     1     7\t0\t0.000000\n02 0012 0 0\n")
    corp_docs = {d.id: " ".join(p for p in (d.title, d.text) if p) for d in smart_docs(docs)}
    corp_topics = {t.id: t.title for t in smart_topics(topics)}
    cal_docs, cal_topics = read_texts(docs, "documents"), read_texts(topics, "topics")
    assert list(cal_docs) == list(corp_docs) == ["7", "12", "x9"]  # digits unpadded, as text
    assert {k: _norm(v) for k, v in cal_docs.items()} == corp_docs
    assert corp_docs["7"] == "Indexing languages the recall of terms"   # .T .W; not .A, .X
    assert cal_topics == corp_topics == {
        "1": "What problems arise with titles?",
        "2": "Computerized Information humanities research"}            # .T then .W
    pairs = smart_rel(rel).frame[["query_id", "doc_id"]].values.tolist()
    assert pairs == [["1", "7"], ["2", "12"]]                 # the qrels meet both readers
    assert all(d in cal_docs and q in cal_topics for q, d in pairs)
