r"""BM25, scored by the bm25s library on the shared index.

.. math::

    \mathrm{BM25}(q, d) = \sum_{t \in q \cap d} c(t, q)\,\mathrm{idf}(t)\,
        \frac{(k_1 + 1)\,c(t, d)}{c(t, d) + k_1 (1 - b + b\,|d| / \mathrm{avgdl})}

with ``N`` documents, ``df(t)`` of them containing ``t``, ``|d|`` the document's
length in tokens and ``avgdl`` the mean length. The variants (``method``), as
Kamphuis et al. (2020) list them and bm25s implements them:

============  ====================================  ===================================
method        idf(t)                                term-frequency part
============  ====================================  ===================================
``lucene``    ln(1 + (N - df + 0.5)/(df + 0.5))     tf / (tf + k1 (1 - b + b |d|/avgdl))
``robertson`` ln((N - df + 0.5)/(df + 0.5)), >= 0   tf / (tf + k1 (1 - b + b |d|/avgdl))
``atire``     ln(N / df)                            (k1+1) tf / (tf + k1 (1-b+b |d|/avgdl))
``bm25l``     ln((N + 1)/(df + 0.5))                (k1+1)(c+δ)/(k1+c+δ), c = tf/(1-b+b |d|/avgdl)
``bm25+``     ln((N + 1)/df)                        (k1+1) tf / (tf + k1 (1-b+b |d|/avgdl)) + δ
============  ====================================  ===================================

``lucene`` and ``robertson`` drop the constant factor ``k1 + 1`` (as Lucene 8+
does; the ranking is the same). ``bm25l`` and ``bm25+`` give a document without
the term a non-zero part; like every system here, only documents containing a
query term are retrieved. A query term repeated counts ``c(t, q)`` times.

Defaults ``k1 = 1.2``, ``b = 0.75`` (Robertson & Zaragoza 2009; Lucene's defaults).

References
----------
S. Robertson, H. Zaragoza. The Probabilistic Relevance Framework: BM25 and Beyond.
Foundations and Trends in IR 3(4), 2009.
C. Kamphuis, A. de Vries, L. Boytsov, J. Lin. Which BM25 Do You Mean? A Large-Scale
Reproducibility Study of Scoring Variants. ECIR 2020.
X. H. Lù. BM25S: Orders of magnitude faster lexical search via eager sparse scoring.
arXiv:2407.03618, 2024.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.corpora.systems import Param, System, register
from relkit.corpora.systems.index import accumulate

if TYPE_CHECKING:
    import scipy.sparse as sp

    from relkit.corpora.systems.index import Index

METHODS = ("lucene", "robertson", "atire", "bm25l", "bm25+")


@dataclass(frozen=True, eq=False)
class BM25Scorer:
    weights: sp.csc_array            # documents x terms: bm25s's precomputed term scores
    nonoccurrence: np.ndarray | None  # bm25l/bm25+: each term's score in a document without it

    def score(self, terms: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        docs, scores = accumulate(self.weights, terms, counts)
        if self.nonoccurrence is not None:
            # bm25s stores (score - score without the term); add the latter back.
            scores = scores + float(self.nonoccurrence[terms] @ counts)
        return docs, scores


def build(index: Index, params: dict[str, Any]) -> BM25Scorer:
    import bm25s
    import scipy.sparse as sp

    model = bm25s.BM25(k1=params["k1"], b=params["b"], delta=params["delta"],
                       method=params["method"], dtype="float64", int_dtype="int64")
    # Our term ids and vocabulary, so the shared analyzer decides what a term is.
    model.index((index.token_ids(), dict(index.vocab)), create_empty_token=False,
                show_progress=False)
    s = model.scores
    weights = sp.csc_array((s["data"], s["indices"], s["indptr"]),
                           shape=(index.num_docs, len(index.vocab)))
    non = model.nonoccurrence_array
    return BM25Scorer(weights, None if non is None else np.asarray(non, dtype=np.float64))


register(System(
    "bm25",
    "Okapi BM25 (bm25s), five variants",
    "Robertson & Zaragoza 2009; Kamphuis et al., ECIR 2020",
    (
        # k1 = 0 would make bm25l/bm25+'s part for an absent term 0/0.
        Param("k1", float, 1.2, "term-frequency saturation", low=0, open_low=True),
        Param("b", float, 0.75, "document-length normalisation", low=0, high=1),
        Param("method", str, "lucene", "the BM25 variant (Kamphuis et al. 2020)",
              choices=METHODS),
        Param("delta", float, 0.5, "lower bound on the term-frequency part (bm25l, bm25+)",
              low=0),
    ),
    build,
))
