"""Parameter recovery of the click models from simulated logs: the true models, the logs,
and the error of a fit on every parameter seen often enough.

Shared by tests/test_clickmodels.py (small logs, asserted within ``TOL``) and
bench/clickmodels_recovery.py (10^6 sessions at depth 10, printed as a table): one
definition of "recovered" for both.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.clickmodels.data import ClickData
from relkit.metrics.online.clickmodels.registry import MODELS
from relkit.metrics.online.clickmodels.simulate import random_pages, simulate_clicks, synthetic

TOL = 0.01
MIN_OBS = 10_000


def truth(kind: str, n_pairs: int, depth: int, rng: np.random.Generator):
    """A click model of ``kind`` with known parameters (alpha uniform in [0.1, 0.9])."""
    model = MODELS[kind]()
    alpha = rng.uniform(0.1, 0.9, n_pairs)
    if kind == "pbm":
        model.params = {"alpha": alpha, "gamma": np.linspace(1.0, 0.3, depth)}
    elif kind == "ubm":
        g = np.zeros((depth, depth + 1))
        for r in range(depth):
            for k in range(r + 1):   # r' = k in 0..r (1-based rank of last click, 0: none)
                g[r, k] = 1.0 / (1 + 0.4 * (r + 1 - k)) if k else 1.0 / (1 + 0.3 * r)
        model.max_rank = depth
        model.params = {"alpha": alpha, "gamma": g.ravel()}
    elif kind == "dcm":
        model.params = {"alpha": alpha, "lambda": np.linspace(0.8, 0.3, depth)}
    elif kind == "ccm":
        model.params = {"alpha": alpha, "tau": np.array([0.8, 0.3, 0.7])}
    else:
        model.params = {"alpha": alpha, "sigma": rng.uniform(0.1, 0.9, n_pairs),
                        "gamma": np.array([0.85])}
    return model


def log(kind: str, sessions: int, docs: list[int], depth: int, seed: int):
    """The true model and a log of ``sessions`` impressions simulated from it."""
    rng = np.random.default_rng(seed)
    model = truth(kind, sum(docs), depth, rng)
    pair = random_pages(docs, sessions, depth, rng)
    return model, synthetic(docs, pair, simulate_clicks(model, pair, rng))


def errors(true, fitted, data: ClickData, kind: str) -> dict[str, tuple[int, float]]:
    """Per parameter family: (how many parameters have at least MIN_OBS observations,
    the largest absolute error among them)."""
    shown = data.shown
    n_pair = np.bincount(data.pair[shown], minlength=data.n_pairs)
    n_click = np.bincount(data.pair[shown & data.click], minlength=data.n_pairs)

    def worst(name: str, seen: np.ndarray | None = None) -> tuple[int, float]:
        err = np.abs(fitted.params[name] - true.params[name])
        if seen is not None:
            err = err[seen]
        return len(err), float(err.max()) if len(err) else float("nan")

    out = {"alpha": worst("alpha", n_pair >= MIN_OBS)}
    if kind == "pbm":
        out["gamma"] = worst("gamma", shown.sum(axis=0) >= MIN_OBS)
    elif kind == "ubm":
        from relkit.metrics.online.clickmodels.pbm import previous_click

        prev = previous_click(data.click & shown)
        idx = np.arange(data.max_rank)[None, :] * (data.max_rank + 1) + prev
        n_cell = np.bincount(idx[shown], minlength=data.max_rank * (data.max_rank + 1))
        out["gamma"] = worst("gamma", n_cell >= MIN_OBS)
    elif kind == "dcm":
        # lambda_r is observed at the clicks at rank r with a result below them
        later = np.zeros_like(shown)
        later[:, :-1] = np.flip(np.logical_or.accumulate(np.flip(shown[:, 1:], 1), 1), 1)
        out["lambda"] = worst("lambda", (data.click & later).sum(axis=0) >= MIN_OBS)
    elif kind == "ccm":
        out["tau"] = worst("tau")
    else:
        out["sigma"] = worst("sigma", n_click >= MIN_OBS)
        out["gamma"] = worst("gamma")
    return out
