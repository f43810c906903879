r"""Query likelihood with Dirichlet smoothing, vectorised over scipy sparse matrices.

.. math::

    \log p(q \mid d) = \sum_{t \in q} c(t, q)\,
        \log\frac{c(t, d) + \mu\,p(t \mid C)}{|d| + \mu},
    \qquad p(t \mid C) = \frac{\mathrm{cf}(t)}{\sum_{t'} \mathrm{cf}(t')}

The score written to the run is this log-likelihood itself, computed as

.. math::

    \sum_{t \in q \cap d} c(t, q) \log\Bigl(1 + \frac{c(t, d)}{\mu\,p(t \mid C)}\Bigr)
    + \sum_{t \in q} c(t, q) \log(\mu\,p(t \mid C)) - |q| \log(|d| + \mu)

so only the postings of the query terms are read (the first sum is sparse, the
others are a per-query constant and a per-document length term). ``|q|`` counts
the query's tokens that occur in the collection; a query term that never occurs
has ``p(t|C) = 0`` and is dropped (as Indri and Anserini do), and only documents
containing a query term are retrieved. Default ``mu = 2000``, the value Zhai &
Lafferty recommend.

References
----------
C. Zhai, J. Lafferty. A study of smoothing methods for language models applied to
information retrieval. ACM TOIS 22(2), 2004.
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
class DirichletScorer:
    weights: sp.csc_array     # log(1 + c(t,d) / (mu p(t|C))), on the postings
    log_mu_p: np.ndarray      # log(mu p(t|C)) per term
    log_len: np.ndarray       # log(|d| + mu) per document

    def score(self, terms: np.ndarray, counts: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        docs, match = accumulate(self.weights, terms, counts)
        const = float(counts @ self.log_mu_p[terms])
        return docs, match + const - counts.sum() * self.log_len[docs]


def build(index: Index, params: dict[str, Any]) -> DirichletScorer:
    import scipy.sparse as sp

    mu = params["mu"]
    post = index.postings
    mu_p = mu * index.coll_freq / index.coll_freq.sum()
    # Column t of the postings holds c(t, d); divide each entry by mu p(t|C).
    per_entry = np.repeat(mu_p, np.diff(post.indptr))
    weights = sp.csc_array((np.log1p(post.data / per_entry), post.indices, post.indptr),
                           shape=post.shape)
    return DirichletScorer(weights, np.log(mu_p), np.log(index.doc_len + mu))


register(System(
    "ql",
    "query likelihood, Dirichlet smoothing",
    "Zhai & Lafferty, ACM TOIS 2004",
    (Param("mu", float, 2000.0, "Dirichlet prior (pseudo-count of collection words)",
           low=0, open_low=True),),
    build,
))
