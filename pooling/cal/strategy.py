"""The ``cal`` policy: BMI's continuous active learning as an adaptive strategy.

Per topic: fit the model (:mod:`.model`) on what is judged so far, take the
top-scoring ``B`` unjudged candidates as the next batch (ties by docno), show
them best first, and retrain once every one of them is judged (or skipped);
``B`` grows as BMI's does (:mod:`.batches`). Candidates:

* ``from=collection``: every document of the text source (the pool's
  candidates then include the pseudo-run :data:`COLLECTION`, see
  :func:`with_collection`), so ``cal`` can find what no run retrieved;
* ``from=runs``: the runs' top ``--depth`` documents (the usual candidates).

``seed_depth=k`` adds each run's top ``k`` documents as pseudo-relevant seeds
(0, the default: the topic's text alone seeds the model, as in BMI).

**Deterministic and order-free.** The random non-relevant sample of a batch
(from the collection's documents not judged yet, whatever ``from`` is) comes
from a generator seeded by the topic's seed (itself from ``(seed, "cal",
topic)``) and the batch's number; the fit sees the labelled documents in
candidate order. So the sequence is a function of the set of judgments at each
batch's end: the same seed gives the same order, a restart that replays the
history (:meth:`relkit.pooling.adaptive.AdaptivePool.resume`) continues it, and
judgments of one batch arriving from several sessions in any interleaving train
the same model.
"""

from __future__ import annotations

import random
from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from relkit.pooling.cal.batches import grow
from relkit.pooling.cal.model import fit_scores
from relkit.pooling.cal.texts import TextSource
from relkit.pooling.candidates import Candidates, TopicMatrix
from relkit.pooling.errors import PoolingError

COLLECTION = "(collection)"


def with_collection(cands: Candidates, docs: Iterable[str], text: Any = None) -> Candidates:
    """``cands`` plus, per topic, the pseudo-run :data:`COLLECTION` listing every
    document id of ``docs`` (in id order): ``cal``'s ``from=collection`` candidates.
    ``text``: the :class:`TextSource` to attach (default: ``cands``'s)."""
    every = sorted(docs)
    lists = {t: {**cands.lists[t], COLLECTION: every} for t in cands.topics}
    scores = {t: {**cands.scores.get(t, {}), COLLECTION: [0.0] * len(every)} for t in lists}
    return Candidates(lists, scores, cands.depth, text=cands.text if text is None else text)


class Cal:
    """One topic's CAL state (a :class:`relkit.pooling.strategies.Policy`)."""

    def __init__(self, m: TopicMatrix, params: dict[str, Any], rng: random.Random) -> None:
        texts = m.text
        if not isinstance(texts, TextSource):
            raise PoolingError("the cal strategy needs the documents' and topics' text "
                               "(give --docs and --topics)")
        whole = params["from"] == "collection"
        if whole and COLLECTION not in m.runs:
            raise PoolingError("cal from=collection needs the collection as candidates "
                               "(relkit.pooling.cal.strategy.with_collection)")
        self.runs = [j for j, r in enumerate(m.runs) if r != COLLECTION]
        # from=runs: only documents some run retrieved are candidates
        self.allowed = (np.ones(len(m.docs), dtype=bool) if whole
                        else (m.ranks[:, self.runs] > 0).any(axis=1))
        query = texts.topic(m.topic)       # an empty topic fails before the features
        feats = texts.features(params["features"])
        self.x = feats.of(m.docs)
        self.pool = feats.matrix                 # the random non-relevant sample's rows
        self.rows = feats.rows(m.docs)           # each candidate's row there (-1: none)
        self.topic = feats.vectorize([query])
        k = params["seed_depth"]
        self.seeds = np.unique(np.concatenate(
            [m.order[j][:k] for j in self.runs] or [np.empty(0, np.int64)])).astype(np.int64)
        self.sample = params["sample"]
        self.c = params["c"]
        self.base = rng.getrandbits(64)
        self.labels: dict[int, bool] = {}
        self.batch: list[int] = []
        self.size = 1
        self.batches = 0

    def choose(self, judged: np.ndarray) -> int | None:
        self.batch = [i for i in self.batch if not judged[i]]
        if not self.batch:
            self._retrain(judged)
        return self.batch[0] if self.batch else None

    def _retrain(self, judged: np.ndarray) -> None:
        open_ = np.flatnonzero(self.allowed & ~judged)
        if not len(open_):
            return
        # BMI's sample: documents of the collection not judged (nor set aside) yet
        gen = np.random.default_rng([self.base, self.batches])
        free = np.ones(self.pool.shape[0], dtype=bool)
        done = self.rows[judged]
        free[done[done >= 0]] = False
        free_rows = np.flatnonzero(free)
        neg = np.sort(gen.choice(free_rows, size=min(self.sample, len(free_rows)),
                                 replace=False))
        lab = sorted(self.labels)
        pos = np.array([i for i in lab if self.labels[i]], dtype=np.int64)
        non = np.array([i for i in lab if not self.labels[i]], dtype=np.int64)
        seeds = self.seeds[~np.isin(self.seeds, pos)]
        from scipy.sparse import vstack

        relevant = self.x[np.concatenate([pos, seeds]).astype(np.int64)]
        other = vstack([self.x[non], self.pool[neg]], format="csr")
        score = fit_scores(self.x, self.topic, relevant, other, self.c)[open_]
        top = np.lexsort((open_, -score))[:self.size]   # best first, ties by docno
        self.batch = [int(i) for i in open_[top]]
        self.batches += 1
        self.size = grow(self.size)

    def update(self, i: int, gain: float, pulled: bool) -> None:
        self.labels[i] = gain > 0


def policy(m: TopicMatrix, params: Mapping[str, Any], rng: random.Random) -> Cal:
    return Cal(m, dict(params), rng)
