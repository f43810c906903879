"""A collection's features for the classifier: tf-idf, or hashed for large collections.

* ``tfidf``: scikit-learn's ``TfidfVectorizer`` with English stop words removed,
  sublinear term frequency ``1 + log tf`` and l2-normalised rows, as BMI's
  features (Cormack & Grossman 2015: log tf-idf over words, normalised);
* ``hashing``: ``HashingVectorizer`` (2^20 features, no vocabulary held) then
  ``TfidfTransformer`` with the same weighting, for collections whose vocabulary
  does not fit in memory comfortably;
* ``auto``: ``hashing`` from :data:`HASH_ABOVE` documents on, else ``tfidf``.

Rows are the collection's documents in id order; :meth:`Features.rows` maps
candidate ids to rows (-1 for a document the collection lacks: an all-zero row).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from relkit.pooling.errors import PoolingError

HASH_ABOVE = 500_000
KINDS = ("auto", "tfidf", "hashing")


@dataclass(frozen=True, eq=False)
class Features:
    ids: list[str]
    index: dict[str, int]
    matrix: Any                 # scipy.sparse CSR, one l2-normalised row per document
    vectorize: Any              # text -> a 1-row CSR in the same space

    @classmethod
    def build(cls, docs: Mapping[str, str], kind: str = "auto") -> Features:
        if kind not in KINDS:
            raise PoolingError(f"The 'features' parameter of cal must be one of "
                               f"{', '.join(KINDS)}; got {kind!r}")
        ids = sorted(docs)
        texts = [docs[d] or "" for d in ids]
        if kind == "auto":
            kind = "hashing" if len(ids) >= HASH_ABOVE else "tfidf"
        from sklearn.feature_extraction.text import (
            HashingVectorizer,
            TfidfTransformer,
            TfidfVectorizer,
        )

        if kind == "tfidf":
            vec = TfidfVectorizer(stop_words="english", sublinear_tf=True, dtype=np.float32)
            try:
                matrix = vec.fit_transform(texts)
            except ValueError:   # every document empty or stop words only
                raise PoolingError("cal: no document has any word to learn from") from None
            vectorize = vec.transform
        else:
            hv = HashingVectorizer(stop_words="english", n_features=2**20,
                                   alternate_sign=False, norm=None, dtype=np.float32)
            tt = TfidfTransformer(sublinear_tf=True)
            matrix = tt.fit_transform(hv.transform(texts)).astype(np.float32)

            def vectorize(t: Sequence[str]) -> Any:
                return tt.transform(hv.transform(t))
        return cls(ids, {d: i for i, d in enumerate(ids)}, matrix.tocsr(), vectorize)

    def rows(self, docs: Sequence[str]) -> np.ndarray:
        """Row of each document (-1: not in the collection)."""
        return np.array([self.index.get(d, -1) for d in docs], dtype=np.int64)

    def of(self, docs: Sequence[str]) -> Any:
        """The documents' rows as a CSR matrix (all-zero rows for unknown ids)."""
        return take_rows(self.matrix, self.rows(docs))


def take_rows(matrix: Any, r: np.ndarray) -> Any:
    """Rows ``r`` of ``matrix`` as a CSR matrix, an all-zero row where ``r`` is -1 (the
    one way both the judging process and CAL's training process build a topic's rows)."""
    from scipy.sparse import csr_matrix

    known = r >= 0
    if known.all():
        return matrix[r]
    # Rows of unknown documents: a selection matrix with nothing in their rows.
    sel = csr_matrix((np.ones(int(known.sum()), dtype=np.float32),
                      (np.flatnonzero(known), r[known])),
                     shape=(len(r), matrix.shape[0]))
    return (sel @ matrix).tocsr()
