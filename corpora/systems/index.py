"""An in-memory term-document index built once and shared by every system.

Documents stream in (from any loader in :mod:`relkit.corpora.loaders`); each is
analysed once into term ids. The index keeps a sparse documents x terms count
matrix (CSR, and its CSC twin for reading a term's postings), the vocabulary
and the document ids. Systems derive their weights from it, so switching
system never re-reads the collection.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from relkit.corpora.systems.analyzer import Analyzer
from relkit.corpora.systems.errors import SystemsError

if TYPE_CHECKING:
    import scipy.sparse as sp

    from relkit.corpora.types import Document


def document_text(doc: Document) -> str:
    """What is indexed of a document: its title, then its text."""
    return f"{doc.title}\n{doc.text}" if doc.title else doc.text


@dataclass(frozen=True, eq=False)
class Index:
    """Term counts of a collection.

    Attributes
    ----------
    counts
        ``scipy.sparse.csr_array`` of shape (documents, terms): ``c(t, d)``.
    doc_ids
        The id of each row, in collection order.
    vocab
        Term -> column.
    """

    analyzer: Analyzer
    doc_ids: list[str]
    vocab: dict[str, int]
    counts: sp.csr_array = field(repr=False)

    @classmethod
    def build(cls, docs: Iterable[Document], analyzer: Analyzer | None = None,
              progress: Callable[[int], None] | None = None, source: str | None = None
              ) -> Index:
        """Analyse ``docs`` once; ``progress(n)`` is called every 1,000 documents.

        ``source`` (the documents' file) is named in the error for a document seen twice.
        """
        import scipy.sparse as sp

        analyzer = analyzer or Analyzer()
        vocab: dict[str, int] = {}
        ids: list[str] = []
        seen: set[str] = set()
        terms: list[int] = []
        indptr = [0]
        for doc in docs:
            if doc.id in seen:
                where = f"{source}: " if source else ""
                raise SystemsError(f"{where}document {doc.id!r} appears twice in the "
                                   "collection")
            seen.add(doc.id)
            ids.append(doc.id)
            # setdefault gives a new term the next column in one dict operation.
            terms.extend([vocab.setdefault(t, len(vocab)) for t in analyzer(document_text(doc))])
            indptr.append(len(terms))
            if progress is not None and len(ids) % 1000 == 0:
                progress(len(ids))
        if progress is not None:
            progress(len(ids))
        if not ids:
            raise SystemsError("the collection has no documents")
        if not vocab:
            raise SystemsError("no document has an indexable term (all empty or stop words)")
        col = np.asarray(terms, dtype=np.int32)
        ptr = np.asarray(indptr, dtype=np.int64)
        counts = sp.csr_array((np.ones(len(col), dtype=np.float64), col, ptr),
                              shape=(len(ids), len(vocab)))
        counts.sum_duplicates()   # repeated (doc, term) entries become one count
        return cls(analyzer, ids, vocab, counts)

    @property
    def num_docs(self) -> int:
        return len(self.doc_ids)

    @cached_property
    def postings(self) -> sp.csc_array:
        """The counts by term: column ``t`` lists the documents containing ``t``."""
        return self.counts.tocsc()

    @cached_property
    def doc_len(self) -> np.ndarray:
        """``|d|``: the number of indexed tokens of each document."""
        return np.asarray(self.counts.sum(axis=1)).ravel()

    @cached_property
    def doc_freq(self) -> np.ndarray:
        """``df(t)``: the number of documents containing each term."""
        return np.diff(self.postings.indptr)

    @cached_property
    def coll_freq(self) -> np.ndarray:
        """``cf(t)``: occurrences of each term in the whole collection."""
        return np.asarray(self.counts.sum(axis=0)).ravel()

    def query(self, text: str) -> tuple[np.ndarray, np.ndarray]:
        """Query term ids and their counts ``c(t, q)``; terms not in the collection dropped."""
        ids = [self.vocab[t] for t in self.analyzer(text) if t in self.vocab]
        terms, counts = np.unique(np.asarray(ids, dtype=np.int64), return_counts=True)
        return terms, counts.astype(np.float64)

    def token_ids(self) -> list[list[int]]:
        """Each document as its list of term ids (with repeats), for libraries that want it."""
        c = self.counts
        return [np.repeat(c.indices[c.indptr[i]:c.indptr[i + 1]],
                          c.data[c.indptr[i]:c.indptr[i + 1]].astype(np.int64)).tolist()
                for i in range(c.shape[0])]


def accumulate(weights: sp.csc_array, terms: np.ndarray, qweights: np.ndarray
               ) -> tuple[np.ndarray, np.ndarray]:
    """``sum_t qweights[t] * weights[d, t]`` over the documents ``d`` containing a term.

    Reads only the postings of ``terms`` (never a dense row of all documents), so a
    query costs what its terms' postings cost. Returns (documents, sums), documents
    ascending; a document is present when it contains at least one query term.
    """
    starts = weights.indptr[terms]
    lens = weights.indptr[terms + 1] - starts
    total = int(lens.sum())
    if total == 0:
        return np.empty(0, np.int64), np.empty(0, np.float64)
    first = np.concatenate(([0], np.cumsum(lens)[:-1]))
    pos = np.arange(total) + np.repeat(starts - first, lens)
    docs = weights.indices[pos]
    vals = weights.data[pos] * np.repeat(qweights, lens)
    uniq, inv = np.unique(docs, return_inverse=True)
    return uniq.astype(np.int64), np.bincount(inv, weights=vals, minlength=len(uniq))
