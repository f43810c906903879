"""A supervised judge: the cal classifier trained on human judgments grades new pairs.

Library only (the coordinator wires it into ``relkit judges run`` as its offline
backend)::

    judge = SupervisedJudge.fit(texts, judgments)        # (topic, doc, grade) triples
    grade, probability = judge.grade("7", "LA010189-0001")

Per topic, a logistic regression (scikit-learn, lbfgs, L2, multinomial over the
grades seen) on the same features as the ``cal`` strategy
(:class:`relkit.pooling.cal.features.Features`), fitted on

* the topic's text as one document of the topic's highest grade seen (BMI's seed);
* every human judgment of the topic (negative grades, "pooled, not judged", are
  left out);
* when the judgments hold one grade only (a qrels listing relevant documents
  alone): ``sample`` documents of the collection drawn at random (seeded) among
  those not judged, as grade 0, as the cal model does.

:meth:`SupervisedJudge.grade` returns the grade of highest probability and that
probability; :meth:`SupervisedJudge.relevance` the probability that the grade is
at least ``level``. A topic without judgments, or without text, cannot be graded:
:class:`relkit.pooling.errors.PoolingError` naming it.

Reference for the model: G. V. Cormack and M. R. Grossman, arXiv:1504.06868 (2015).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from relkit.pooling.cal.texts import TextSource
from relkit.pooling.errors import PoolingError


@dataclass(eq=False)
class SupervisedJudge:
    """Per-topic classifiers over the documents' text; build with :meth:`fit`."""

    texts: TextSource
    level: int
    features: Any
    models: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def fit(cls, texts: TextSource, judgments: Iterable[tuple[str, str, int]], *,
            level: int = 1, c: float = 1.0, sample: int = 100, seed: int = 0,
            features: str = "auto") -> SupervisedJudge:
        """Train one model per judged topic on ``(topic, doc, grade)`` judgments."""
        from sklearn.linear_model import LogisticRegression

        feats = texts.features(features)
        by_topic: dict[str, dict[str, int]] = {}
        for t, d, g in judgments:
            if g >= 0:
                by_topic.setdefault(str(t), {})[str(d)] = int(g)
        judge = cls(texts, level, feats)
        for t in sorted(by_topic):
            docs = sorted(by_topic[t])
            grades = np.array([by_topic[t][d] for d in docs])
            top = int(grades.max())
            x = [feats.vectorize([texts.topic(t)]), feats.of(docs)]
            y = [np.array([top]), grades]
            if len(set(grades.tolist())) == 1 and top > 0:
                free = np.setdiff1d(np.arange(len(feats.ids)), feats.rows(docs))
                gen = np.random.default_rng([seed, *t.encode()])
                neg = np.sort(gen.choice(free, size=min(sample, len(free)), replace=False))
                x.append(feats.matrix[neg])
                y.append(np.zeros(len(neg), dtype=int))
            from scipy.sparse import vstack

            xs, ys = vstack(x, format="csr"), np.concatenate(y)
            if len(set(ys.tolist())) == 1:
                judge.models[t] = int(ys[0])       # one grade only: it is the answer
                continue
            judge.models[t] = LogisticRegression(C=c, max_iter=1000).fit(xs, ys)
        return judge

    def _proba(self, topic: str, doc: str) -> tuple[np.ndarray, np.ndarray]:
        model = self.models.get(topic)
        if model is None:
            raise PoolingError(f"topic {topic!r} has no judgments to learn from")
        if isinstance(model, int):
            return np.array([model]), np.array([1.0])
        return model.classes_, model.predict_proba(self.features.of([doc]))[0]

    def grade(self, topic: str, doc: str) -> tuple[int, float]:
        """The most probable grade of ``doc`` for ``topic``, and its probability."""
        classes, p = self._proba(topic, doc)
        k = int(np.argmax(p))
        return int(classes[k]), float(p[k])

    def relevance(self, topic: str, doc: str) -> float:
        """Probability that ``doc``'s grade for ``topic`` is at least the level."""
        classes, p = self._proba(topic, doc)
        return float(p[classes >= self.level].sum())
