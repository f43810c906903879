"""How the four runs in ``corpora/sample/runs/`` were made (run once; kept for the record).

    python corpora/sample/make_runs.py            # rewrites corpora/sample/runs/*.txt
    python corpora/sample/make_runs.py --out DIR  # writes them elsewhere

Four deliberately different systems over the same tokens (scikit-learn's
``CountVectorizer``: lower case, words of two or more letters or digits, its
English stop list), each document indexed as title + text:

``bm25``    Okapi BM25 (Robertson et al., TREC-3, 1994) with Lucene's idf
            ``log(1 + (N - n + 0.5) / (n + 0.5))``, k1 = 0.9, b = 0.4 (Anserini's
            defaults); query = title + description.
``ql``      Query likelihood with Dirichlet smoothing (Zhai & Lafferty, SIGIR
            2001), mu = 100, about the mean document length (~80 tokens) because
            the documents are short; query = title only.
``tfidf``   scikit-learn ``TfidfVectorizer`` (sublinear tf, smoothed idf, l2
            norm), cosine similarity; query = title only.
``random``  a seeded random order: the weak system every evaluation should rank last.

Each run lists up to 100 documents per topic: the documents that match at least one
query term (every document for ``ql`` and ``random``, whose scores are never zero),
best first. Scores are written with six decimals and the file is ordered as
trec_eval orders it (score descending, then docno descending), so rank and score
agree. Nothing here was tuned on the qrels. This script is not part of the
``corpora`` package and nothing imports it; ``relkit systems run`` supersedes it.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
from scipy import sparse

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parents[1]))  # run from a checkout: import relkit.corpora.loaders

from relkit.corpora.loaders import read_docs, read_topics  # noqa: E402

DEPTH = 100
Scorer = Callable[[list[str]], np.ndarray]  # queries -> (n_queries, n_docs) scores


def _counts(texts: Sequence[str]):  # noqa: ANN202
    from sklearn.feature_extraction.text import CountVectorizer

    vec = CountVectorizer(stop_words="english")
    return vec, sparse.csr_matrix(vec.fit_transform(texts), dtype=np.float64)


def bm25(texts: Sequence[str], k1: float = 0.9, b: float = 0.4) -> Scorer:
    vec, tf = _counts(texts)
    n_docs = tf.shape[0]
    df = np.bincount(tf.indices, minlength=tf.shape[1])
    idf = np.log(1.0 + (n_docs - df + 0.5) / (df + 0.5))
    dl = np.asarray(tf.sum(axis=1)).ravel()
    norm = k1 * (1.0 - b + b * dl / dl.mean())
    w = tf.tocoo()
    weights = sparse.csr_matrix(
        (w.data * (k1 + 1.0) / (w.data + norm[w.row]) * idf[w.col], (w.row, w.col)),
        shape=tf.shape)

    def score(queries: list[str]) -> np.ndarray:
        q = vec.transform(queries)  # a repeated query term counts once per occurrence
        return np.asarray((weights @ q.T).T.todense())
    return score


def ql_dirichlet(texts: Sequence[str], mu: float = 100.0) -> Scorer:
    vec, tf = _counts(texts)
    dl = np.asarray(tf.sum(axis=1)).ravel()
    p_coll = np.asarray(tf.sum(axis=0)).ravel() / dl.sum()
    dense = tf.toarray()

    def score(queries: list[str]) -> np.ndarray:
        q = vec.transform(queries).toarray()
        # log p(q|d) = sum_w c(w,q) log((c(w,d) + mu p(w|C)) / (|d| + mu)); the query's
        # terms outside the vocabulary add the same constant to every document: dropped.
        logp = np.log((dense + mu * p_coll) / (dl[:, None] + mu))
        return q @ logp.T
    return score


def tfidf(texts: Sequence[str]) -> Scorer:
    from sklearn.feature_extraction.text import TfidfVectorizer

    vec = TfidfVectorizer(stop_words="english", sublinear_tf=True)
    x = vec.fit_transform(texts)

    def score(queries: list[str]) -> np.ndarray:
        return np.asarray((x @ vec.transform(queries).T).T.todense())
    return score


def random_order(texts: Sequence[str], seed: int = 42) -> Scorer:
    def score(queries: list[str]) -> np.ndarray:
        rng = np.random.default_rng(seed)
        return rng.random((len(queries), len(texts)))
    return score


SYSTEMS: dict[str, tuple[Callable[[Sequence[str]], Scorer], str]] = {
    "bm25": (bm25, "title+desc"),
    "ql": (ql_dirichlet, "title"),
    "tfidf": (tfidf, "title"),
    "random": (random_order, "title"),
}


def run_lines(name: str, topic_ids: list[str], doc_ids: list[str], scores: np.ndarray,
              matched: np.ndarray) -> list[str]:
    lines = []
    for t, row, ok in zip(topic_ids, scores, matched, strict=True):
        cand = [(round(float(s), 6), d) for s, d, m in zip(row, doc_ids, ok, strict=True) if m]
        cand.sort(key=lambda sd: (sd[0], sd[1]), reverse=True)
        lines += [f"{t} Q0 {d} {r} {s:.6f} {name}" for r, (s, d) in enumerate(cand[:DEPTH], 1)]
    return lines


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--out", type=Path, default=HERE / "runs")
    args = ap.parse_args(argv)
    docs = list(read_docs(HERE / "docs.jsonl", "jsonl-docs"))
    topics = read_topics(HERE / "topics.trec", "trec-topics")
    texts = [f"{d.title or ''} {d.text}" for d in docs]
    args.out.mkdir(parents=True, exist_ok=True)
    for name, (make, fields) in SYSTEMS.items():
        queries = [(t.title or "") if fields == "title" else f"{t.title} {t.description}"
                   for t in topics]
        scores = make(texts)(queries)
        # bm25 and tfidf score exactly the documents sharing a query term above zero;
        # ql and random score every document.
        matched = scores > 0 if name in ("bm25", "tfidf") else np.ones_like(scores, bool)
        lines = run_lines(name, [t.id for t in topics], [d.id for d in docs], scores, matched)
        (args.out / f"{name}.txt").write_text("\n".join(lines) + "\n", encoding="ascii")
        print(f"{name}: {len(lines)} lines -> {args.out / f'{name}.txt'}", file=sys.stderr)


if __name__ == "__main__":
    main()
