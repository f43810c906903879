"""Simulated users: clicks drawn from a click model, seeded.

:func:`simulate_clicks` draws clicks on pages of pair codes from a fitted (or
constructed) model, vectorised over sessions (a loop over ranks for the models whose
clicks depend on earlier ones). :data:`PRESETS` are the cascade users of Hofmann,
Whiteson & de Rijke (TOIS 2013) used across the interleaving literature.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel, FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray

# Click and stop probabilities per relevance grade 0..4 of the three simulated users
# (perfect, navigational, informational) of Hofmann, Whiteson & de Rijke, "Fidelity,
# soundness, and efficiency of interleaved comparison methods", ACM TOIS 31(4), 2013,
# which later interleaving and online learning-to-rank studies reuse. The user scans
# top-down, clicks a grade-g result with P(click | g) and, after a click, stops with
# P(stop | g): a DBN with gamma = 1. (The values are as that paper's user models are
# commonly quoted; relkit has not checked them against a table of the paper.)
PRESETS: dict[str, tuple[tuple[float, ...], tuple[float, ...]]] = {
    "perfect": ((0.0, 0.2, 0.4, 0.8, 1.0), (0.0, 0.0, 0.0, 0.0, 0.0)),
    "navigational": ((0.05, 0.3, 0.5, 0.7, 0.95), (0.2, 0.3, 0.5, 0.7, 0.9)),
    "informational": ((0.4, 0.6, 0.7, 0.8, 0.9), (0.1, 0.2, 0.3, 0.4, 0.5)),
}


def preset_probabilities(preset: str, grades: IntArray, max_grade: int
                         ) -> tuple[FloatArray, FloatArray]:
    """(click, stop) probabilities for relevance ``grades`` under a preset user.

    A collection's grades ``0..max_grade`` are mapped onto the preset's five levels
    linearly (``round(4 g / max_grade)``): binary qrels use the levels 0 and 4, grades
    0-3 the levels 0, 1, 3, 4. Negative grades count as 0.
    """
    click, stop = PRESETS[preset]
    top = max(max_grade, 1)
    level = np.rint(4 * np.clip(grades, 0, top) / top).astype(np.int64)
    return np.asarray(click)[level], np.asarray(stop)[level]


def simulate_dbn(alpha: FloatArray, sigma: FloatArray, gamma: float, shown: BoolArray,
                 rng: np.random.Generator) -> BoolArray:
    """Clicks of the DBN (SDBN/cascade users: ``gamma = 1``) given per-cell parameters."""
    n, r_max = alpha.shape
    u = rng.random((3, n, r_max))
    click = np.zeros((n, r_max), dtype=bool)
    e = np.ones(n, dtype=bool)
    for r in range(r_max):
        sh = shown[:, r]
        c = e & sh & (u[0, :, r] < alpha[:, r])
        click[:, r] = c
        satisfied = c & (u[1, :, r] < sigma[:, r])
        e = np.where(sh, e & ~satisfied & (u[2, :, r] < gamma), e)
    return click


def simulate_ubm(alpha: FloatArray, gamma: FloatArray, shown: BoolArray,
                 rng: np.random.Generator) -> BoolArray:
    """Clicks of the UBM; ``gamma[r, r']`` as in :class:`~.pbm.UBM`."""
    n, r_max = alpha.shape
    u = rng.random((n, r_max))
    click = np.zeros((n, r_max), dtype=bool)
    prev = np.zeros(n, dtype=np.int64)
    for r in range(r_max):
        c = shown[:, r] & (u[:, r] < alpha[:, r] * gamma[r, prev])
        click[:, r] = c
        prev = np.where(c, r + 1, prev)
    return click


def simulate_clicks(model: ClickModel, pair: IntArray, rng: np.random.Generator
                    ) -> BoolArray:
    """Clicks drawn from ``model`` on pages ``pair`` (its codes; ``-1``: no result)."""
    from relkit.metrics.online.clickmodels.pbm import UBM

    shown = pair >= 0
    name = model.name
    if name in ("dbn", "sdbn", "cascade"):
        a = model.pp("alpha", pair)
        s = np.ones_like(a) if name == "cascade" else model.pp("sigma", pair)
        g = float(model.params["gamma"][0]) if name == "dbn" else 1.0
        return simulate_dbn(a, s, g, shown, rng)
    if name == "dcm":
        from relkit.metrics.online.clickmodels.chain import simulate_chain

        a = model.pp("alpha", pair)
        lam = np.broadcast_to(model.params["lambda"][None, : pair.shape[1]], a.shape)
        return simulate_chain(a, lam, 1.0, shown, rng)
    if name == "ccm":
        from relkit.metrics.online.clickmodels.chain import simulate_chain

        a = model.pp("alpha", pair)
        t1, t2, t3 = (float(x) for x in model.params["tau"])
        return simulate_chain(a, t2 * (1 - a) + t3 * a, t1, shown, rng)
    if isinstance(model, UBM):
        return simulate_ubm(model.pp("alpha", pair), model.gamma_matrix(), shown, rng)
    # the others click each rank independently: the marginal is the click probability
    _, marg = model.probabilities(pair, np.zeros(pair.shape, dtype=bool))
    return shown & (rng.random(pair.shape) < marg)


def random_pages(docs_per_query: list[int], n_sessions: int, depth: int,
                 rng: np.random.Generator) -> IntArray:
    """Pages for tests and benchmarks: each session picks a query uniformly and shows
    ``depth`` of its documents in random order (pair codes numbered query by query), so
    every pair is seen at every rank."""
    offsets = np.concatenate(([0], np.cumsum(docs_per_query)))
    sizes = np.asarray(docs_per_query)
    q = rng.integers(0, len(sizes), n_sessions)
    keys = rng.random((n_sessions, int(sizes.max())))
    keys[np.arange(sizes.max())[None, :] >= sizes[q][:, None]] = np.inf
    order = np.argsort(keys, axis=1)[:, :depth]
    pair = order + offsets[q][:, None]
    pair[order >= sizes[q][:, None]] = -1
    return np.asarray(pair, dtype=np.int64)


def synthetic(docs_per_query: list[int], pair: IntArray, click: BoolArray) -> ClickData:
    """A :class:`ClickData` over pages from :func:`random_pages` (ids ``q<i>``/``d<j>``)."""
    queries = [f"q{i}" for i, k in enumerate(docs_per_query) for _ in range(k)]
    docs = [f"d{j}" for k in docs_per_query for j in range(k)]
    return ClickData(pair, click, np.asarray(queries, dtype=object),
                     np.asarray(docs, dtype=object))
