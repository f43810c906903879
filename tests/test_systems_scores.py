"""Baseline systems' scores: a hand-worked corpus, and library oracles.

The tiny corpus (analysed without stemming or stop words, so terms are the words):

    d1 "apple banana apple"           |d1| = 3
    d2 "banana cherry"                |d2| = 2
    d3 "cherry cherry cherry date"    |d3| = 4
    d4 "date"                         |d4| = 1

N = 4, avgdl = 10 / 4 = 2.5; df: apple 1, banana 2, cherry 2, date 2;
cf: apple 2, banana 2, cherry 4, date 2 (10 tokens). Query "apple cherry".
d4 holds neither query term and is never retrieved.
"""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from helpers import SHARED
from relkit.corpora.systems import get
from relkit.corpora.systems.analyzer import Analyzer
from relkit.corpora.systems.index import Index, document_text
from relkit.corpora.systems.retrieve import retrieve
from relkit.corpora.types import Document, Topic

PLAIN = Analyzer(stemmer="none", stopwords=False)
DOCS = [Document("d1", text="apple banana apple"), Document("d2", text="banana cherry"),
        Document("d3", text="cherry cherry cherry date"), Document("d4", text="date")]


def scores_of(system: str, docs: list[Document], query: str, analyzer: Analyzer = PLAIN,
              **params: object) -> dict[str, float]:
    index = Index.build(docs, analyzer)
    terms, counts = index.query(query)
    rows, scores = get(system).prepare(index, params).score(terms, counts)
    return {index.doc_ids[r]: float(s) for r, s in zip(rows, scores, strict=True)}


def test_bm25_lucene_by_hand() -> None:
    # idf(t) = ln(1 + (N - df + 0.5) / (df + 0.5)): apple ln(1 + 3.5/1.5) = ln(10/3),
    # cherry ln(1 + 2.5/2.5) = ln 2. Part: tf / (tf + k1 (1 - b + b |d| / avgdl)).
    got = scores_of("bm25", DOCS, "apple cherry")
    k1, b = 1.2, 0.75
    want = {
        "d1": math.log(10 / 3) * 2 / (2 + k1 * (1 - b + b * 3 / 2.5)),   # apple x2, |d|=3
        "d2": math.log(2) * 1 / (1 + k1 * (1 - b + b * 2 / 2.5)),        # cherry x1, |d|=2
        "d3": math.log(2) * 3 / (3 + k1 * (1 - b + b * 4 / 2.5)),        # cherry x3, |d|=4
    }
    assert got.keys() == want.keys()
    for d in want:
        assert got[d] == pytest.approx(want[d], rel=1e-12, abs=0)
    # The same numbers written out: 1.38, 1.02, 1.74 are k1 (1 - b + b |d|/avgdl).
    assert got["d1"] == pytest.approx(1.2039728043259361 * 2 / 3.38, rel=1e-12)
    assert got["d3"] == pytest.approx(0.6931471805599453 * 3 / 4.74, rel=1e-12)


def _bm25_reference(docs: list[Document], query: str, method: str, k1: float, b: float,
                    delta: float) -> dict[str, float]:
    """The variant table of corpora/systems/bm25.py, one document and term at a time."""
    toks = [PLAIN(document_text(d)) for d in docs]
    n = len(docs)
    avgdl = sum(map(len, toks)) / n
    df = Counter(t for ts in toks for t in set(ts))
    q = Counter(t for t in PLAIN(query) if t in df)
    out = {}
    for doc, ts in zip(docs, toks, strict=True):
        tf = Counter(ts)
        if not set(q) & set(tf):
            continue
        norm = 1 - b + b * len(ts) / avgdl
        total = 0.0
        for t, qn in q.items():
            c, f = tf[t], df[t]
            if method == "lucene":
                part = math.log(1 + (n - f + 0.5) / (f + 0.5)) * c / (c + k1 * norm)
            elif method == "robertson":
                part = max(math.log((n - f + 0.5) / (f + 0.5)), 0.0) * c / (c + k1 * norm)
            elif method == "atire":
                part = math.log(n / f) * (k1 + 1) * c / (c + k1 * norm)
            elif method == "bm25l":
                ctd = c / norm
                part = math.log((n + 1) / (f + 0.5)) * (k1 + 1) * (ctd + delta) / (
                    k1 + ctd + delta)
            else:
                part = math.log((n + 1) / f) * ((k1 + 1) * c / (k1 * norm + c) + delta)
            total += qn * part
        out[doc.id] = total
    return out


@pytest.mark.parametrize("method", ["lucene", "robertson", "atire", "bm25l", "bm25+"])
def test_bm25_variants_match_their_formulas(method: str) -> None:
    docs = DOCS + [Document("d5", text="apple apple apple apple cherry banana date date")]
    for query in ("apple cherry", "date banana banana", "cherry"):
        got = scores_of("bm25", docs, query, k1=0.9, b=0.4, method=method, delta=0.7)
        want = _bm25_reference(docs, query, method, 0.9, 0.4, 0.7)
        assert got.keys() == want.keys()
        for d in want:
            assert got[d] == pytest.approx(want[d], rel=1e-12, abs=1e-15), (method, query, d)


def _cranfield_sample(n: int = 60) -> list[Document]:
    CRAN = SHARED / "corpora" / "cranfield"
    if not CRAN.is_dir():
        pytest.skip(f"shared corpora not at {CRAN}")
    from relkit.corpora.loaders import read_docs

    docs = []
    for d in read_docs(CRAN / "cran.all.1400", "smart-docs"):
        docs.append(d)
        if len(docs) == n:
            break
    return docs


QUERIES = ["what similarity laws must be obeyed when constructing aeroelastic models",
           "heat transfer in laminar boundary layers on a flat plate",
           "supersonic wing slipstream propeller interaction"]


def test_bm25_robertson_and_plus_match_rank_bm25() -> None:
    rank_bm25 = pytest.importorskip("rank_bm25")
    docs = _cranfield_sample()
    an = Analyzer()
    corpus = [an(document_text(d)) for d in docs]
    df = Counter(t for ts in corpus for t in set(ts))
    for query in QUERIES:
        # BM25Okapi floors negative idfs at epsilon * mean idf, bm25s at 0: compare on
        # query terms in fewer than half the documents, where both are the plain formula.
        q = [t for t in an(query) if 0 < df[t] < len(docs) / 2]
        text = " ".join(q)  # already analysed; stems are fixed points of the stemmer
        okapi = rank_bm25.BM25Okapi(corpus, k1=1.2, b=0.75).get_scores(q)
        got = scores_of("bm25", docs, text, an, method="robertson", k1=1.2, b=0.75)
        assert got, query
        for i, d in enumerate(docs):
            # Lucene-style variants drop the constant factor (k1 + 1).
            assert got.get(d.id, 0.0) * 2.2 == pytest.approx(okapi[i], rel=1e-12, abs=1e-12)
        plus = rank_bm25.BM25Plus(corpus, k1=1.2, b=0.75, delta=1.0).get_scores(q)
        got = scores_of("bm25", docs, text, an, method="bm25+", k1=1.2, b=0.75, delta=1.0)
        for i, d in enumerate(docs):
            if d.id in got:  # BM25+ gives every document idf * delta; we keep matches only
                assert got[d.id] == pytest.approx(plus[i], rel=1e-12)
            else:
                assert not set(q) & set(corpus[i])


def test_tfidf_by_hand() -> None:
    # idf = ln((1 + N) / (1 + df)) + 1: apple ln(5/2) + 1, the others ln(5/3) + 1.
    ia, io = math.log(5 / 2) + 1, math.log(5 / 3) + 1
    q = math.sqrt(ia ** 2 + io ** 2)                          # query: apple, cherry once each
    want = {
        "d1": (2 * ia * ia) / (math.sqrt((2 * ia) ** 2 + io ** 2) * q),   # apple 2, banana 1
        "d2": (io * io) / (math.sqrt(io ** 2 + io ** 2) * q),             # banana 1, cherry 1
        "d3": (3 * io * io) / (math.sqrt((3 * io) ** 2 + io ** 2) * q),   # cherry 3, date 1
    }
    got = scores_of("tfidf", DOCS, "apple cherry")
    assert got.keys() == want.keys()
    for d in want:
        assert got[d] == pytest.approx(want[d], rel=1e-12)
    # sublinear tf: 1 + ln 2 for d1's apple.
    got = scores_of("tfidf", DOCS, "apple", sublinear_tf=True)
    assert got["d1"] == pytest.approx((1 + math.log(2)) * ia / math.sqrt(
        ((1 + math.log(2)) * ia) ** 2 + io ** 2), rel=1e-12)


@pytest.mark.parametrize("sublinear", [False, True])
@pytest.mark.parametrize("smooth", [True, False])
def test_tfidf_matches_scikit_learn_cosine(sublinear: bool, smooth: bool) -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.metrics.pairwise import cosine_similarity

    docs = _cranfield_sample()
    an = Analyzer()
    vec = TfidfVectorizer(analyzer=an, sublinear_tf=sublinear, smooth_idf=smooth)
    x = vec.fit_transform([document_text(d) for d in docs])
    for query in QUERIES + ["boundary boundary layer"]:
        want = cosine_similarity(vec.transform([query]), x).ravel()
        got = scores_of("tfidf", docs, query, an, sublinear_tf=sublinear, smooth_idf=smooth)
        assert got
        for i, d in enumerate(docs):
            assert got.get(d.id, 0.0) == pytest.approx(want[i], rel=1e-12, abs=1e-15)


def test_ql_dirichlet_by_hand() -> None:
    # p(apple|C) = 2/10, p(cherry|C) = 4/10; mu = 2, so mu p = 0.4 and 0.8.
    # log p(q|d) = sum_t log((c(t,d) + mu p(t|C)) / (|d| + mu))
    want = {
        "d1": math.log((2 + 0.4) / (3 + 2)) + math.log((0 + 0.8) / (3 + 2)),
        "d2": math.log((0 + 0.4) / (2 + 2)) + math.log((1 + 0.8) / (2 + 2)),
        "d3": math.log((0 + 0.4) / (4 + 2)) + math.log((3 + 0.8) / (4 + 2)),
    }
    got = scores_of("ql", DOCS, "apple cherry", mu=2)
    assert got.keys() == want.keys()
    for d in want:
        assert got[d] == pytest.approx(want[d], rel=1e-12)
    # A repeated query term counts twice; an unknown term ("kiwi") is dropped.
    got = scores_of("ql", DOCS, "cherry cherry kiwi", mu=2)
    assert got["d2"] == pytest.approx(2 * math.log((1 + 0.8) / (2 + 2)), rel=1e-12)


def test_ql_matches_the_dense_formula_on_cranfield() -> None:
    docs = _cranfield_sample()
    an = Analyzer()
    toks = [Counter(an(document_text(d))) for d in docs]
    cf = sum(toks, Counter())
    total = sum(cf.values())
    mu = 300.0
    for query in QUERIES:
        q = Counter(t for t in an(query) if t in cf)
        got = scores_of("ql", docs, query, an, mu=mu)
        for d, tf in zip(docs, toks, strict=True):
            dl = sum(tf.values())
            want = sum(n * math.log((tf[t] + mu * cf[t] / total) / (dl + mu))
                       for t, n in q.items())
            if set(q) & set(tf):
                assert got[d.id] == pytest.approx(want, rel=1e-12)
            else:
                assert d.id not in got


def test_run_is_ranked_like_trec_eval_with_ties_by_docno_descending() -> None:
    # Identical documents tie; trec_eval breaks ties by docno descending ("b" > "a").
    docs = [Document(i, text="wing flow") for i in ("a", "c", "b", "d10", "d9")] + [
        Document("x", text="wing wing wing flow")]
    index = Index.build(docs, PLAIN)
    run = retrieve(index, "bm25", [Topic("1", "wing")], depth=4).run
    rows = run.table.to_pylist()
    assert [r["doc_id"] for r in rows] == ["x", "d9", "d10", "c"]
    assert [r["rank"] for r in rows] == ["1", "2", "3", "4"]
    assert rows[1]["score"] == rows[2]["score"] == rows[3]["score"] < rows[0]["score"]
    assert {r["run_id"] for r in rows} == {"bm25"}


def test_query_fields_and_empty_topics() -> None:
    index = Index.build(DOCS, PLAIN)
    topics = [Topic("1", "apple", "date"), Topic("2", None, "cherry"), Topic("3", "kiwi")]
    r = retrieve(index, "tfidf", topics, field="title")
    got = {t: sorted(r.run.table.filter(
        np.asarray(r.run.table["query_id"].to_pylist()) == t)["doc_id"].to_pylist())
        for t in ("1", "2")}
    assert got == {"1": ["d1"], "2": ["d2", "d3"]} and r.empty == ["3"]
    r = retrieve(index, "tfidf", topics, field="title+desc")
    assert sorted(r.run.table.filter(np.asarray(
        r.run.table["query_id"].to_pylist()) == "1")["doc_id"].to_pylist()) == [
        "d1", "d3", "d4"]
