r"""TF-IDF cosine: scikit-learn's tf-idf weights, documents and query l2-normalised.

.. math::

    w(t, d) = \mathrm{tf}(t, d)\,\mathrm{idf}(t), \qquad
    \mathrm{idf}(t) = \ln\frac{1 + N}{1 + \mathrm{df}(t)} + 1, \qquad
    \cos(q, d) = \sum_{t \in q \cap d} \frac{w(t, q)}{\lVert w(\cdot, q)\rVert}
        \frac{w(t, d)}{\lVert w(\cdot, d)\rVert}

``tf`` is the raw count ``c(t, d)``, or ``1 + ln c(t, d)`` with ``sublinear_tf``;
``smooth_idf=false`` gives ``idf(t) = ln(N / df(t)) + 1``. The query is weighted the
same way with the collection's idf. The weights are
:class:`sklearn.feature_extraction.text.TfidfTransformer`'s (what ``TfidfVectorizer``
runs after counting), applied to the shared index's counts, so the analyzer is the
same as for the other systems; the score is their cosine similarity (both vectors
have unit length).

References
----------
G. Salton, C. Buckley. Term-weighting approaches in automatic text retrieval.
Information Processing & Management 24(5), 1988.
scikit-learn user guide, "Tf-idf term weighting".
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


@dataclass(frozen=True, eq=False)
class TfidfScorer:
    weights: sp.csc_array     # documents x terms, rows of unit length
    idf: np.ndarray
    sublinear_tf: bool

    def score(self, terms: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        tf = 1.0 + np.log(counts) if self.sublinear_tf else counts
        q = tf * self.idf[terms]
        norm = float(np.sqrt(q @ q))
        if norm == 0.0:
            return np.empty(0, np.int64), np.empty(0, np.float64)
        return accumulate(self.weights, terms, q / norm)


def build(index: Index, params: dict[str, Any]) -> TfidfScorer:
    from sklearn.feature_extraction.text import TfidfTransformer

    tr = TfidfTransformer(norm="l2", use_idf=True, smooth_idf=params["smooth_idf"],
                          sublinear_tf=params["sublinear_tf"])
    weights = tr.fit_transform(index.counts).tocsc()
    return TfidfScorer(weights, np.asarray(tr.idf_, dtype=np.float64), params["sublinear_tf"])


register(System(
    "tfidf",
    "TF-IDF cosine (scikit-learn weights)",
    "Salton & Buckley 1988; scikit-learn TfidfTransformer",
    (
        Param("sublinear_tf", bool, False, "tf = 1 + ln(count) instead of the count"),
        Param("smooth_idf", bool, True, "idf = ln((1+N)/(1+df)) + 1 instead of ln(N/df) + 1"),
    ),
    build,
))
