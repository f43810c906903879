"""Collections: the real Cranfield and Vaswani through their layouts, manifests, stats,
and Cranfield's grade scale turned round (checked against hand-worked nDCG)."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SHARED, run_cli
from relkit.corpora.collection import Collection, ManifestError, open_collection
from relkit.corpora.known import CRANFIELD_GRADES, KNOWN
from relkit.corpora.stats import collection_stats
from relkit.corpora.types import CRANFIELD
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator

CRAN = SHARED / "corpora" / "cranfield"
VASWANI = SHARED / "corpora" / "vaswani"
needs_corpora = pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")


@pytest.fixture(autouse=True)
def _cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))


@needs_corpora
def test_cranfield_through_the_collection() -> None:
    c = open_collection(CRAN, layout="cranfield")
    assert c.scale is CRANFIELD
    st = collection_stats(c)
    assert (st.docs, st.topics, st.qrels, st.judged_topics) == (1400, 225, 1837, 225)
    # The README's raw counts (1 -> 128, 2 -> 387, 3 -> 734, 4 -> 363, -1 -> 225), turned round.
    assert st.grades == {0: 225, 1: 363, 2: 734, 3: 387, 4: 128}
    assert st.topics_without_relevant == [] and st.judged_docs_not_in_docs == 0
    assert st.runs == 6
    store = c.docstore()
    d = store.get("1")
    assert d is not None and d.title is not None and d.title.startswith(
        "experimental investigation of the aerodynamics")
    assert store.get("995").text == ""  # type: ignore[union-attr]
    topics = c.read_topics()
    assert topics[2].id == "3" and topics[2].title.startswith(  # type: ignore[union-attr]
        "what problems of heat conduction in composite slabs")
    q = c.read_qrels()
    first = q.frame.iloc[0]   # "1 184 2": Cleverdon's code 2 (high relevance) is grade 3
    assert (first.query_id, first.doc_id, first.relevance) == ("1", "184", 3)


# The README's own check of each run (AP over grades 1-4 as relevant, 225 topics).
README_MAP = {"query_results_bm25_3.3_0.8": 0.291, "query_results_classic": 0.277,
              "query_results_lmdirichlet_1500.0": 0.224,
              "query_results_lmdirichlet_2000.0": 0.219,
              "results": 0.297, "BM25Similarity_results": 0.299}


@needs_corpora
def test_six_cranfield_runs_map() -> None:
    c = open_collection(CRAN, layout="cranfield")
    runs = c.read_runs()
    assert sorted(runs) == sorted(README_MAP)
    mapped = Evaluator(c.read_qrels(), ["AP"])
    raw = Evaluator(Qrels.read(CRAN / "cranqrel"), ["AP"])
    for name, run in runs.items():
        ap = float(mapped.aggregate(run)["AP"])
        assert 0.2 <= ap <= 0.35, name
        assert ap == pytest.approx(README_MAP[name], abs=5e-4), name
        # Turning the scale round keeps the set of relevant documents, so AP is unchanged.
        assert ap == pytest.approx(float(raw.aggregate(run)["AP"]), abs=1e-12)


def test_cranfield_direction_matters_for_ndcg(tmp_path: Path) -> None:
    # Topic 1: doc a has Cleverdon code 1 (complete answer), b has code 4 (minimum
    # interest); the run ranks a then b. Mapped grades 4, 1: the run is ideal, nDCG = 1.
    # Raw codes as gains (1, 4): DCG = 1/log2(2) + 4/log2(3) = 3.523719;
    # IDCG = 4 + 1/log2(3) = 4.630930; nDCG = 0.760909.
    (tmp_path / "cranqrel").write_text("1 a 1\n1 b 4\n1 c -1\n")
    (tmp_path / "cran.qry").write_text(".I 001\n.W\nq\n")
    (tmp_path / "cran.all.1400").write_text(".I 1\n.W\nx\n")
    c = open_collection(tmp_path, layout="cranfield")
    run = Run.read("1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n")
    assert float(Evaluator(c.read_qrels(), ["nDCG"]).aggregate(run)["nDCG"]) == \
        pytest.approx(1.0)
    raw = float(Evaluator(Qrels.read(tmp_path / "cranqrel"), ["nDCG"]).aggregate(run)["nDCG"])
    assert raw == pytest.approx(0.760909, abs=1e-6)
    assert CRANFIELD_GRADES == {1: 4, 2: 3, 3: 2, 4: 1, 5: 0, -1: 0}
    assert [g.value for g in CRANFIELD.grades] == [0, 1, 2, 3, 4]
    assert CRANFIELD.grade(4).definition.startswith("References which are a complete answer")


@needs_corpora
def test_vaswani_through_the_collection() -> None:
    c = open_collection(VASWANI, layout="vaswani")
    st = collection_stats(c)
    assert (st.docs, st.topics, st.qrels) == (11429, 93, 2083)
    assert st.grades == {1: 2083} and st.topics_without_relevant == []
    store = c.docstore()
    assert store.get("11429") is not None and store.get("11430") is None
    assert len(store.ids()) == 11429 and store.ids()[:3] == ["1", "10", "100"]  # id order
    q = c.read_qrels().frame
    assert ((q.query_id == "1") & (q.doc_id == "1239")).any()  # qrels' first line


def test_manifest_toml_csv_beir_inline_scale_and_stats(tmp_path: Path) -> None:
    (tmp_path / "docs.csv").write_text("docid,body\nd1,alpha\nd2,beta\nd3,gamma\n")
    (tmp_path / "queries.jsonl").write_text('{"_id": "q1", "text": "a"}\n'
                                            '{"_id": "q2", "text": "b"}\n'
                                            '{"_id": "q3", "text": "c"}\n')
    (tmp_path / "qrels.tsv").write_text("query-id\tcorpus-id\tscore\nq1\td1\t2\nq2\td2\t1\n"
                                        "q2\td9\t0\nq4\td3\t2\n")
    (tmp_path / "runs").mkdir()
    (tmp_path / "runs" / "a.txt").write_text("q1 Q0 d1 1 1.0 a\n")
    (tmp_path / "collection.toml").write_text('''
name = "tiny"
runs = ["runs/*.txt"]
[scale]
name = "three"
threshold = 2
grades = [{value = 0, label = "no"}, {value = 1, label = "some"}, {value = 2, label = "yes"}]
[docs]
path = "docs.csv"
columns = "id=docid,text=body"
[topics]
path = "queries.jsonl"
[qrels]
path = "qrels.tsv"
''')
    c = Collection.load(tmp_path)
    assert c.scale.threshold == 2 and [d.id for d in c.iter_docs()] == ["d1", "d2", "d3"]
    st = collection_stats(c)
    # q2's best grade is 1 (< threshold 2), q3 has none; q4 is judged but not a topic;
    # d9 is judged but not in the documents.
    assert st.topics_without_relevant == ["q2", "q3"]
    assert st.judged_topics_not_in_topics == ["q4"] and st.judged_docs_not_in_docs == 1
    assert st.grades == {0: 1, 1: 1, 2: 2} and st.runs == 1
    assert list(c.read_runs()) == ["a"]
    code, out, err = run_cli(["corpora", "info", str(tmp_path), "--format", "json"])
    assert code == 0, err
    assert '"topics_without_relevant": [\n    "q2",\n    "q3"\n  ]' in out


@pytest.mark.parametrize("text,message", [
    ('name = "x"\nextra = 1\n', "unknown key(s) ['extra']"),
    ('[docs]\npath = "d"\nformat = "trec-doc"\n', "did you mean 'trec-docs'"),
    ('[qrels]\npath = "q"\ngrade_map = { "a" = 1 }\n', "grade_map must map integer"),
    ('scale = "nope"\n', "unknown relevance scale 'nope'"),
    ('[topics]\nformat = "trec-topics"\n', "[topics] needs a 'path'"),
    ('name = \n', "not a valid manifest"),
])
def test_bad_manifests_say_what_is_wrong(tmp_path: Path, text: str, message: str) -> None:
    (tmp_path / "collection.toml").write_text(text)
    with pytest.raises(ManifestError) as exc:
        Collection.load(tmp_path)
    assert message in str(exc.value) and "collection.toml" in str(exc.value)


def test_resolving_names_and_paths(tmp_path: Path) -> None:
    with pytest.raises(ManifestError, match="not fetched yet: run `relkit corpora fetch cisi`"):
        open_collection("cisi")
    with pytest.raises(ManifestError, match="did you mean 'cranfield'"):
        open_collection("cranfeld")
    with pytest.raises(ManifestError, match="no collection.toml or collection.json here"):
        open_collection(tmp_path)
    code, _, err = run_cli(["corpora", "info", "cranfeld"])
    assert code == 1 and err.startswith("relkit: error: cranfeld: no such file or folder")


def test_corpora_list_and_formats_cli() -> None:
    code, out, _ = run_cli(["corpora", "list"])
    assert code == 0
    rows = {line.split("\t")[0]: line.split("\t") for line in out.splitlines()[1:]}
    assert set(rows) == set(KNOWN)
    assert rows["cranfield"][1:4] == ["1400", "225", "1837"] and rows["cranfield"][5] == "sha256"
    assert rows["cacm"][5] == "none"
    code, out, _ = run_cli(["corpora", "formats"])
    assert code == 0 and "csv-docs\tdocs\tcolumns" in out and "beir-qrels\tqrels" in out


@needs_corpora
def test_info_cli_on_shared_cranfield() -> None:
    code, out, err = run_cli(["corpora", "info", str(CRAN), "--layout", "cranfield"])
    assert code == 0, err
    assert "documents\t1,400" in out and "grade 4\t128\tComplete answer" in out
    assert "topics without relevant documents\t0" in out
