"""The offline backend: the ``cal`` classifier trained on the project's human judgments.

``relkit judges-run --backend supervised`` grades a pool with
:class:`relkit.pooling.cal.supervised.SupervisedJudge` (per topic, a logistic
regression over the documents' tf-idf, seeded by the topic's text) instead of a chat
model: no server, no key, no cost, so a newcomer can run an automatic judge for real.

What it learns from and what it grades:

* the humans' grades as ``relkit judges --db`` takes them for its reference (the
  adjudicated qrels: a lead's grade where there is one, else the humans' majority);
* a pair no human judged is graded by the model trained on every human judgment;
* a pair a human judged is graded **out of fold** (:data:`FOLDS`-fold cross-validation
  over the judged pairs, folds drawn with the seed): by a model that never saw that
  pair's grade, so ``relkit judges`` compares the judge with the humans on held-out
  pairs at once, rather than on pairs it learned;
* a topic with no human-judged relevant document (grade at or above the scale's
  threshold), or without text, has nothing to learn from: :meth:`SupervisedBackend.
  gradable` is False for its pairs, and the CLI says so in one line. A judged pair whose
  topic has no other judgment cannot be graded out of fold, and is left out too.

The answer's ``raw`` text is a JSON object keeping the probability:
``{"grade": G, "probability": P, "relevant": R, "held_out": B}`` with ``P`` the
model's probability of ``G`` and ``R`` its probability of a grade at or above the
threshold. ``name`` holds a digest of the training judgments and the seed, so the
answers file is reused exactly when the same judgments and seed would give the same
grades, and a changed training set grades anew.

Reference for the model: G. V. Cormack and M. R. Grossman, arXiv:1504.06868 (2015).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections.abc import Mapping

from relkit.judging.autojudge.backend import Answer, BackendError, Request
from relkit.pooling.cal.texts import TextSource

FOLDS = 5
Pair = tuple[str, str]


class SupervisedBackend:
    """A grading backend (see :mod:`relkit.judging.autojudge.backend`) over a classifier."""

    def __init__(self, texts: TextSource, human: Mapping[Pair, int], *, level: int,
                 seed: int = 0) -> None:
        self.texts = texts
        self.human = {k: g for k, g in human.items() if g >= 0}
        self.level = level
        self.seed = seed
        blob = json.dumps([seed, level, FOLDS, sorted(self.human.items())])
        self.name = "supervised|" + hashlib.sha256(blob.encode()).hexdigest()[:16]
        self.fold = self._folds()
        self._learn = {t for (t, _), g in self.human.items()
                       if g >= level and (texts.topics.get(t) or "").strip()}
        self._topic_folds: dict[str, set[int]] = {}
        for (t, _), k in self.fold.items():
            self._topic_folds.setdefault(t, set()).add(k)
        self._models: dict[int | None, object] = {}
        self._lock = threading.Lock()

    def _folds(self) -> dict[Pair, int]:
        import numpy as np

        pairs = sorted(self.human)
        order = np.random.default_rng(self.seed).permutation(len(pairs))
        return {pairs[int(i)]: n % FOLDS for n, i in enumerate(order)}

    def learnable(self) -> set[str]:
        """Topics with a human-judged relevant document and text to seed the model."""
        return set(self._learn)

    def gradable(self, topic: str, doc: str) -> bool:
        """Whether the pair can be graded (held out, for a judged pair)."""
        if topic not in self._learn:
            return False
        k = self.fold.get((topic, doc))
        return k is None or self._topic_folds[topic] != {k}

    def _model(self, fold: int | None) -> object:
        from relkit.pooling.cal.supervised import SupervisedJudge

        got = self._models.get(fold)
        if got is None:
            train = [(t, d, g) for (t, d), g in sorted(self.human.items())
                     if fold is None or self.fold[(t, d)] != fold]
            got = self._models[fold] = SupervisedJudge.fit(self.texts, train,
                                                           level=self.level, seed=self.seed)
        return got

    def grade(self, request: Request) -> Answer:
        from relkit.pooling.errors import PoolingError

        pair = (request.topic, request.doc)
        fold = self.fold.get(pair)
        with self._lock:   # one fit per fold, shared by the worker threads
            try:
                judge = self._model(fold)
                grade, p = judge.grade(*pair)  # type: ignore[attr-defined]
                rel = judge.relevance(*pair)  # type: ignore[attr-defined]
            except PoolingError as exc:
                raise BackendError(f"supervised judge: {exc}", fatal=True) from None
        raw = json.dumps({"grade": grade, "probability": round(p, 6),
                          "relevant": round(rel, 6), "held_out": fold is not None})
        return Answer(raw=raw, grade=grade, status="ok")
