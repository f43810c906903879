"""Readers: every input form, and clear errors naming file, line and expectation."""

from __future__ import annotations

import gzip
import io
from pathlib import Path

import pytest

from relkit.metrics.core.errors import DuplicateDocumentError, FormatError
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator

RUN = "q1 Q0 d1 1 2.5 sysA\nq1 Q0 d2 2 1.5 sysA\n007 Q0 d1 1 3 sysA\n"
QRELS = "q1 0 d1 1\nq1 0 d2 0\n007 0 d1 2\n"


def test_sources_path_text_file_gz_agree(tmp_path: Path) -> None:
    p = tmp_path / "run.txt"
    p.write_text(RUN)
    gz = tmp_path / "run.txt.gz"
    gz.write_bytes(gzip.compress(RUN.encode()))
    runs = [Run.read(p), Run.read(str(p)), Run.read(RUN), Run.read(io.StringIO(RUN)),
            Run.read(io.BytesIO(RUN.encode())), Run.read(gz), Run.read(p, eval_only=True)]
    for r in runs:
        assert r.table["doc_id"].to_pylist() == ["d1", "d2", "d1"]
        assert r.table["score"].to_pylist() == [2.5, 1.5, 3.0]
        assert r.name == "sysA"


def test_ids_stay_strings() -> None:
    r = Run.read(RUN)
    q = Qrels.read(QRELS)
    assert r.frame["query_id"].tolist() == ["q1", "q1", "007"]
    assert q.frame["query_id"].tolist() == ["q1", "q1", "007"]
    per = Evaluator(q, ["P@1"]).evaluate(r)
    assert sorted(per["query_id"]) == ["007", "q1"]


def test_cranfield_three_column_qrels() -> None:
    q = Qrels.read("1 184 2\n1 29 2\n2 12 3\n")
    assert q.frame["doc_id"].tolist() == ["184", "29", "12"]
    assert q.frame["relevance"].tolist() == [2, 2, 3]


def test_writers_round_trip(tmp_path: Path) -> None:
    r, q = Run.read(RUN), Qrels.read(QRELS)
    r.write(tmp_path / "r.txt")
    q.write(tmp_path / "q.txt.gz")
    assert Run.read(tmp_path / "r.txt").table.equals(r.table)
    assert Qrels.read(tmp_path / "q.txt.gz").frame.equals(q.frame)


def test_whitespace_tabs_comments_and_extra_fields() -> None:
    text = "# a comment\n\nq1\tQ0  d1 1 2.5 sysA trailing words\n  q1 Q0 d2 2 7e-1 sysB\n"
    r = Run.read(text)
    assert r.table["doc_id"].to_pylist() == ["d1", "d2"]
    assert r.table["score"].to_pylist() == [2.5, 0.7]
    assert r.name == "sysB"
    assert r.line_of(1) == 4


@pytest.mark.parametrize(("text", "line", "expected"), [
    ("q1 Q0 d1 1 2.5 s\nq1 Q0 d2 2 s\n", 2, "6 whitespace-separated fields"),
    ("q1 Q0 d1 1 abc s\n", 1, "a numeric score"),
    ("q1 Q0 d1 1 nan s\n", 1, "a numeric score"),
])
def test_run_errors_name_line_and_expectation(text: str, line: int, expected: str) -> None:
    with pytest.raises(FormatError) as info:
        Run.read(text)
    assert info.value.line == line
    assert expected in str(info.value)
    assert f"<text>:{line}:" in str(info.value)


@pytest.mark.parametrize(("text", "line", "expected"), [
    ("q1 0 d1 1\nq1 0 d2 1 extra\n", 2, "4 fields like the first line"),
    ("q1 0 d1 1.5\n", 1, "an integer grade"),
    ("q1 0\n", 1, "4 fields 'qid iter docno grade'"),
])
def test_qrels_errors(text: str, line: int, expected: str) -> None:
    with pytest.raises(FormatError) as info:
        Qrels.read(text)
    assert info.value.line == line and expected in str(info.value)


def test_missing_file_and_binary_garbage(tmp_path: Path) -> None:
    with pytest.raises(FormatError, match="no such file"):
        Run.read(tmp_path / "nope.txt")
    bad = tmp_path / "bad.txt"
    bad.write_bytes(b"q1 Q0 d1 1 1 s\n\xff\xfe\n")
    with pytest.raises(FormatError, match=r"bad.txt:2: expected UTF-8"):
        Run.read(bad)


def test_duplicate_docno_in_run_names_its_line() -> None:
    q = Qrels.read(QRELS)
    run = Run.read("q1 Q0 d1 1 3 s\nq1 Q0 d2 2 2 s\nq1 Q0 d1 3 1 s\n")
    with pytest.raises(DuplicateDocumentError) as info:
        Evaluator(q, ["map"]).compute(run)
    assert info.value.line == 3 and info.value.doc_id == "d1"
    # below the -M cut the duplicate is never seen (as in trec_eval)
    assert Evaluator(q, ["map"], max_docs=2).compute(run).summary[0] == 1.0  # d1 at rank 1


def test_duplicate_in_qrels() -> None:
    with pytest.raises(DuplicateDocumentError, match=r"<text>:3"):
        Evaluator(Qrels.read("q 0 a 1\nq 0 b 0\nq 0 a 2\n"), ["map"])


def test_unsorted_run_and_ties_follow_trec_eval_order() -> None:
    # topics out of order and split, rank column contradicting scores, ties
    text = ("q2 Q0 x 1 1 s\nq1 Q0 a 9 5 s\nq1 Q0 c 1 5 s\nq2 Q0 y 2 3 s\n"
            "q1 Q0 b 2 5 s\nq1 Q0 z 3 9 s\n")
    from relkit.metrics.ranking import ranked_docnos

    assert ranked_docnos(Run.read(text)) == {"q1": ["z", "c", "b", "a"], "q2": ["y", "x"]}


def test_float32_ties_only_in_compat_9() -> None:
    from relkit.metrics.ranking import ranked_docnos

    run = Run.read("q Q0 a 1 1.00000002 s\nq Q0 b 2 1.00000001 s\n")
    assert ranked_docnos(run)["q"] == ["a", "b"]                       # doubles differ
    assert ranked_docnos(run, float32_scores=True)["q"] == ["b", "a"]  # floats tie


# Both parsers must read the same content the same way: a text with a trailing
# blank line takes the checking parser, without it the fast one.
@pytest.mark.parametrize("text", [
    "q1 Q0 d1 1 1.5 r\nq1 Q0 d2 2 1 \n",               # trailing delimiter: 5 fields
    "q1 Q0 d1 1 1.5 \nq1 Q0 d2 2 1 r\n",
    "q1\tQ0\td1\t1\t2\tr\nq1\tQ0\td2 \t2\t1\tr\n",      # stray space in a tab file
    "q1 Q0 d1 1 1.5 r\nq1 Q0 d2\tx 2 1 r\n",           # tab in a space file
    "q1 Q0 d\u00a02 1 1.5 r\n",                         # NBSP is not a separator
    "q1 Q0 d1 1 1.5 a\rq1 Q0 d2 2 1 b\r",               # CR-only line ends
    "\ufeffq1 Q0 d1 1 1.5 r\n",                          # UTF-8 BOM
    "q1 Q0 d1 1 1.5 r\r\nq1 Q0 d2 2 1 r\r\n",
])
def test_fast_and_checking_parsers_agree(text: str) -> None:
    def read(t: str) -> object:
        try:
            r = Run.read(t)
        except FormatError as exc:
            return ("error", exc.line, exc.expected)
        return r.table.to_pylist(), r.name

    assert read(text) == read(text + "\n")


def test_duplicate_reported_for_first_topic_whatever_the_chunking(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import relkit.metrics.evaluator

    q = Qrels.read("q1 0 a 1\nq2 0 a 1\n")
    run = Run.read("q2 Q0 a 0 3 r\nq2 Q0 a 0 2 r\nq1 Q0 b 0 3 r\nq1 Q0 b 0 2 r\n")
    for size in (10**9, 2, 1):
        monkeypatch.setattr(relkit.metrics.evaluator, "CHUNK_ROWS", size)
        with pytest.raises(DuplicateDocumentError) as info:
            Evaluator(q, ["map"]).compute(run)
        assert (info.value.query_id, info.value.line) == ("q1", 4)
