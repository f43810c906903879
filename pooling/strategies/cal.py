"""Continuous active learning (BMI): a classifier over the text picks the next document.

The policy and its parts are in :mod:`relkit.pooling.cal` (features, model,
batches); this module registers it. Reference: G. V. Cormack and M. R. Grossman,
"Autonomy and reliability of continuous active learning for technology-assisted
review", arXiv:1504.06868, 2015 (AutoTAR, the BMI of TREC Total Recall 2015-16).
"""

from __future__ import annotations

import random
from typing import Any

from relkit.metrics.core.params import Param
from relkit.pooling.candidates import TopicMatrix
from relkit.pooling.strategies import Strategy, register


def _policy(m: TopicMatrix, params: dict[str, Any], rng: random.Random) -> Any:
    from relkit.pooling.cal.strategy import policy  # numpy/scipy/sklearn: only when used

    return policy(m, params, rng)


register(Strategy(
    "cal", "adaptive",
    (Param("from", str, "runs", "candidates: the runs' top --depth (runs) or every "
           "document of the text (collection)", choices=("runs", "collection")),
     Param("seed_depth", int, 0, "each run's top K documents seed the model as "
           "pseudo-relevant (0: the topic's text alone)", low=0),
     Param("sample", int, 100, "unjudged documents taken as non-relevant per "
           "retraining (BMI: 100)", low=0),
     Param("c", float, 1.0, "inverse L2 regularisation of the logistic regression",
           low=0, open_low=True),
     Param("features", str, "auto", "tfidf, hashing (large collections) or auto",
           choices=("auto", "tfidf", "hashing"))),
    "rank by a logistic regression on the documents' text, retrained after each "
    "growing batch (continuous active learning, BMI)",
    "Cormack & Grossman, arXiv:1504.06868 (2015)",
    policy=_policy,
))
