"""The classifier: logistic regression on the judgments so far, BMI's way.

Each retraining fits a fresh model (nothing carried over: the model is derived
from the judgments, never stored) on

* the topic's text as one relevant document (BMI's synthetic seed document),
  plus optional pseudo-relevant seed documents (the runs' top documents);
* every document judged so far: relevant (gain > 0) or not;
* ``sample`` documents drawn at random from the unjudged candidates, labelled
  non-relevant for this fit only (BMI: "100 randomly selected documents ...
  labeled not relevant"; most of a collection is);

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


def fit_scores(candidates: Any, topic: Any, pos: np.ndarray, neg: np.ndarray,
               seeds: np.ndarray, c: float = 1.0) -> np.ndarray:
    """Scores of every candidate row after fitting on the topic vector (relevant),
    candidate rows ``pos`` and ``seeds`` (relevant) and ``neg`` (not relevant)."""
    from scipy.sparse import vstack
    from sklearn.linear_model import LogisticRegression

    rows = np.concatenate([pos, seeds, neg]).astype(np.int64)
    x = vstack([topic, candidates[rows]], format="csr")
    y = np.concatenate([np.ones(1 + len(pos) + len(seeds)), np.zeros(len(neg))])
    if y.min() == y.max():            # one class only: nothing to separate yet
        return np.asarray(candidates @ topic.T.toarray()).ravel()
    clf = LogisticRegression(C=c, solver="liblinear", random_state=0)
    clf.fit(x, y)
    return np.asarray(candidates @ clf.coef_.ravel().astype(np.float32)).ravel() + float(
        clf.intercept_[0])
