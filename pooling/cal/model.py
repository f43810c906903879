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

**Only the columns the labelled rows use are fitted.** A feature (word) that no
labelled row holds has an all-zero column: its loss gradient is zero, so the L2
penalty makes its weight exactly 0 at the optimum, and liblinear, starting from
``w = 0``, never moves it. Dropping those columns (most of the vocabulary) gives the
same model, with the other weights equal up to the rounding of sums (about 1e-16),
at a fraction of the cost: liblinear's primal solver on ~150 rows costs about
0.4 s of CPU with 31,000 columns and 0.01 s with the 9,000 used (bench/cal_bench.py).
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
    used = np.unique(x.indices)       # the columns some labelled row holds (see above)
    clf = LogisticRegression(C=c, solver="liblinear", random_state=0)
    w = np.zeros(x.shape[1], dtype=np.float32)
    if len(used):
        clf.fit(x[:, used], y)
        w[used] = clf.coef_.ravel()
    else:   # no labelled row holds a word (a stop-word topic, texts missing): the
        clf.fit(x, y)   # full width, where only the intercept moves (no 0-column fit)
        w[:] = clf.coef_.ravel()
    return np.asarray(candidates @ w).ravel() + float(clf.intercept_[0])
