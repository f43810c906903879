"""The classifier: logistic regression on the judgments so far, BMI's way.

Each retraining fits a fresh model (nothing carried over: the model is derived
from the judgments, never stored) on

* the topic's text as one relevant document (BMI's synthetic seed document),
  plus optional pseudo-relevant seed documents (the runs' top documents);
* every document judged so far: relevant (gain > 0) or not;
* ``sample`` documents drawn at random from the collection's unjudged documents,
  labelled non-relevant for this fit only (BMI: "100 randomly selected documents
  ... labeled not relevant"; most of a collection is). From the collection, not
  from the candidates: with ``from=runs`` a topic's few hundred candidates hold
  most of its relevant documents, and sampling them would teach the model that
  they are not relevant;

and scores every candidate with its decision function ``w . x + b``.
scikit-learn's ``LogisticRegression`` (liblinear, L2, ``C = 1``) with the rows in
candidate order, so the fit is a function of the labelled set alone, not of the
order the judgments arrived in.

Reference: G. V. Cormack and M. R. Grossman, "Autonomy and reliability of
continuous active learning for technology-assisted review", arXiv:1504.06868, 2015.
"""

from __future__ import annotations

from typing import Any

import numpy as np


def fit_scores(candidates: Any, topic: Any, relevant: Any, other: Any,
               c: float = 1.0) -> np.ndarray:
    """Scores of every row of ``candidates`` after fitting on the topic vector and the
    rows of ``relevant`` (relevant) against the rows of ``other`` (not relevant)."""
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    x = vstack([topic, relevant, other], format="csr")
    y = np.concatenate([np.ones(1 + relevant.shape[0]), np.zeros(other.shape[0])])
    if y.min() == y.max():            # one class only: rank by similarity to the topic
        return np.asarray(candidates @ topic.T.toarray()).ravel()
    clf = LogisticRegression(C=c, solver="liblinear", random_state=0)
    clf.fit(x, y)
    return np.asarray(candidates @ clf.coef_.ravel().astype(np.float32)).ravel() + float(
        clf.intercept_[0])
