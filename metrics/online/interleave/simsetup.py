"""The inputs of ``relkit interleave simulate``, read and checked once.

Runs are read once (relkit's run reader) and serve both sides: their rankings as
codes (:func:`~relkit.metrics.online.interleave.rankings.load_rankings`, trec_eval's
order) and their per-topic nDCG@k (:class:`relkit.metrics.evaluator.Evaluator`, the
numbers ``relkit eval`` prints). Every run must rank documents for the same topics,
and each of them must be in the qrels: a simulation over different topic sets would
compare the runs on different questions.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.core.errors import RelkitError

if TYPE_CHECKING:
    from relkit.metrics.online.interleave.simulate import Setup
    from relkit.metrics.online.interleave.users import Users


class TopicMismatch(RelkitError):
    """The runs do not rank the same topics, or a topic has no judgments: the inputs
    do not go together, a usage error (exit status 2) like a bad option value."""

    exit_code = 2


def prepare(runs: list[str | os.PathLike[str]], qrels_path: str | os.PathLike[str],
            depth: int, k: int, *, preset: str | None = None,
            model_path: str | os.PathLike[str] | None = None,
            names: list[str] | None = None) -> Setup:
    """Read the runs and qrels, compute nDCG@k per topic, build the users.

    Exactly one of ``preset`` and ``model_path`` is given. Run names default to the
    file names without their extension (a TREC tag is often shared by several runs).

    Raises
    ------
    TopicMismatch
        A run misses a topic another run ranks, or a topic is not in the qrels.
    """
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.online.interleave.rankings import load_rankings
    from relkit.metrics.online.interleave.simulate import Setup
    from relkit.metrics.online.interleave.users import model_users, preset_users

    read = [Run.read(p, eval_only=True) for p in runs]
    width = max(depth, 100)
    rankings = load_rankings(list(runs), width, runs=read)
    rankings.names = names or [Path(p).name.rsplit(".", 1)[0] or Path(p).name
                               for p in runs]
    queries = [str(q) for q in rankings.queries.to_pylist()]
    for r, m in enumerate(rankings.mats):
        empty = np.flatnonzero(m[:, 0] < 0)
        if len(empty):
            raise TopicMismatch(f"{runs[r]}: no documents for topic {queries[empty[0]]!r}, "
                                f"which another run ranks (every run must rank the same "
                                f"topics); {len(empty)} such topic(s)")
    qrels = Qrels.read(qrels_path)
    judged = set(qrels.frame["query_id"].astype(str))
    missing = [q for q in queries if q not in judged]
    if missing:
        raise TopicMismatch(f"{qrels_path}: no judgments for topic {missing[0]!r}, which "
                            f"the runs rank; {len(missing)} such topic(s)")
    ev = Evaluator(qrels, [f"nDCG@{k}"])
    index = {q: i for i, q in enumerate(queries)}
    ndcg = []
    for run in read:
        res = ev.compute(run)
        v = np.zeros(len(queries))
        at = np.asarray([index[t] for t in res.topics])
        v[at] = np.asarray(res.values[0], dtype=np.float64)
        ndcg.append(v)
    users: Users
    if model_path is not None:
        from relkit.metrics.online.clickmodels.store import load

        model, _ = load(os.fspath(model_path))
        users = model_users(model, rankings)
    else:
        assert preset is not None
        users = preset_users(preset, qrels, rankings)
    return Setup(rankings, ndcg, users, depth)
