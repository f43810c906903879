"""One retraining of ``cal``: the next batch from a topic's constants and the judgments.

:func:`plan` is a pure function of its arguments (see :mod:`.strategy`'s module doc,
"Deterministic and order-free"), so the key (:mod:`.strategy`), a thread, and the
training process (:mod:`.worker`) all compute the same batch from the same state.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from relkit.pooling.cal.model import fit_scores


@dataclass(frozen=True, eq=False)
class Problem:
    """A topic's constants for retraining (everything :func:`plan` needs besides the
    judgments): sent once to the training process (:mod:`.worker`)."""

    x: Any                 # the candidates' rows (CSR)
    pool: Any              # the collection's rows: the random non-relevant sample's
    rows: np.ndarray       # each candidate's row in ``pool`` (-1: none)
    topic: Any             # the topic's text as a 1-row CSR (BMI's seed document)
    allowed: np.ndarray    # the candidates that may be picked (from=runs: retrieved)
    seeds: np.ndarray      # pseudo-relevant candidates (seed_depth)
    sample: int
    c: float
    base: int              # the topic's seed for the random samples


def plan(p: Problem, judged: np.ndarray, labels: Mapping[int, bool], batches: int,
         size: int) -> list[int] | None:
    """The batch after training on ``labels`` with ``judged`` set aside: a pure
    function of its arguments (safe in another thread or process). None when no
    candidate is left."""
    open_ = np.flatnonzero(p.allowed & ~judged)
    if not len(open_):
        return None
    # BMI's sample: documents of the collection not judged (nor set aside) yet
    gen = np.random.default_rng([p.base, batches])
    free = np.ones(p.pool.shape[0], dtype=bool)
    done = p.rows[judged]
    free[done[done >= 0]] = False
    free_rows = np.flatnonzero(free)
    neg = np.sort(gen.choice(free_rows, size=min(p.sample, len(free_rows)),
                             replace=False))
    lab = sorted(labels)
    pos = np.array([i for i in lab if labels[i]], dtype=np.int64)
    non = np.array([i for i in lab if not labels[i]], dtype=np.int64)
    seeds = p.seeds[~np.isin(p.seeds, pos)]
    from scipy.sparse import vstack

    relevant = p.x[np.concatenate([pos, seeds]).astype(np.int64)]
    other = vstack([p.x[non], p.pool[neg]], format="csr")
    score = fit_scores(p.x, p.topic, relevant, other, p.c)[open_]
    top = np.lexsort((open_, -score))[:size]   # best first, ties by docno
    return [int(i) for i in open_[top]]
