"""``relkit interleave simulate``: which interleaving method finds the offline winner soonest.

The experiment of Hofmann, Whiteson & de Rijke (TOIS 2013) and Schuth et al. (CIKM
2014, WSDM 2016), on the user's own runs and qrels. For every pair of runs (A, B) the
*offline winner* is the run with the higher mean nDCG@k over the topics (relkit's own
nDCG, as ``relkit eval`` computes it). An experiment of ``n`` impressions draws ``n``
topics uniformly with replacement; each impression interleaves A and B afresh with the
method's own code (the code behind ``relkit interleave make``), a simulated user
(:mod:`.users`) clicks, and the method's credit rule (:mod:`.outcomes`) gives a win, a
loss or a tie. After ``n`` impressions the interleaving winner is the sign of wins minus
losses. ``trials`` independent experiments estimate the *agreement*: the share of
trials whose winner is the offline winner, a tie counting half (a tie is a coin flip
between the runs).

The A/B test (``ab-ctr@1``) shows each impression one run's own top ``depth``,
alternating (A gets the odd impressions, B the even ones: ``ceil(n/2)`` and
``floor(n/2)``), and picks the run with the higher CTR@1 (share of its impressions
whose first result was clicked).

One trial of ``n_max`` impressions serves every ``n`` of the grid (cumulative sums of
its prefix). Impressions are processed in chunks of :data:`CHUNK` over all trials at
once: numpy loops over positions, never over impressions. Each (pair, method) draws
from its own generator spawned from the seed (``SeedSequence(seed, spawn_key=(i, j,
m))``), and the topics of the trials are drawn once per pair, the same for every method
(common random numbers): the result of one method does not depend on which other
methods were asked for.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations
from typing import TYPE_CHECKING

import numpy as np

from relkit.metrics.online.interleave import outcomes

if TYPE_CHECKING:
    from relkit.metrics.online.interleave.rankings import Rankings
    from relkit.metrics.online.interleave.users import Users

METHODS = ("team-draft", "balanced", "probabilistic", "optimized")
AB = "ab-ctr@1"
DEFAULT_GRID = (1, 2, 5, 10, 20, 50, 100, 200, 500, 1000)
LEVEL = 0.95
CHUNK = 1 << 16
# nDCG means closer than this are a tie: no offline winner, no agreement to measure.
NDCG_TIE = 1e-12

Progress = Callable[[int, int], None]


@dataclass
class PairResult:
    """One (pair, method) row: the share of trials preferring A, B or neither per ``n``.

    ``truth``: +1 when A has the higher mean nDCG@k, -1 when B, 0 on a tie.
    """

    run_a: str
    run_b: str
    ndcg_a: float
    ndcg_b: float
    method: str
    grid: list[int]
    win_a: np.ndarray
    win_b: np.ndarray
    tie: np.ndarray

    @property
    def truth(self) -> int:
        d = self.ndcg_a - self.ndcg_b
        return 0 if abs(d) <= NDCG_TIE else (1 if d > 0 else -1)

    @property
    def agreement(self) -> np.ndarray | None:
        """Per ``n``: P(winner = offline winner), ties half; None without a winner."""
        if self.truth == 0:
            return None
        right = self.win_a if self.truth > 0 else self.win_b
        return right + self.tie / 2

    def needed(self, level: float = LEVEL, *, of_final: bool = False) -> int | None:
        """The smallest ``n`` of the grid from which the agreement stays at or above
        ``level`` (``of_final``: ``level`` x the agreement at the largest ``n``; None
        when that agreement is at most 1/2: the method does not tend to the winner)."""
        agree = self.agreement
        if agree is None or (of_final and agree[-1] <= 0.5):
            return None
        target = level * agree[-1] if of_final else level
        ok = agree >= target - 1e-12
        if not ok[-1]:
            return None
        bad = np.flatnonzero(~ok)
        return self.grid[int(bad[-1]) + 1] if len(bad) else self.grid[0]


@dataclass
class Setup:
    """What every pair needs: the rankings, per-topic nDCG@k per run, the users."""

    rankings: Rankings
    ndcg: list[np.ndarray]
    users: Users
    depth: int


def _outcome_fn(method: str, a: np.ndarray, b: np.ndarray, depth: int
                ) -> Callable[[np.ndarray, Users, np.random.Generator], np.ndarray]:
    """A function of (topics, users, rng) -> the impressions' outcomes for ``method``."""
    from relkit.metrics.online.interleave import methods as m

    def rows_of(pos: m.Positions, t: np.ndarray) -> m.Positions:
        return [[p[t] if p.size else p for p in ps] for ps in pos]

    ta, tb = a[:, :depth], b[:, :depth]
    if method in ("team-draft", "balanced"):
        interleave = m.team_draft if method == "team-draft" else m.balanced
        pos = m.position_table([ta, tb])     # per topic, once: impressions index it

        def run(t: np.ndarray, users: Users, rng: np.random.Generator) -> np.ndarray:
            sa, sb = ta[t], tb[t]
            shown = interleave([sa, sb], depth, rng, rows_of(pos, t))
            clicks = users.clicks(t, shown.docs, rng)
            if method == "team-draft":
                return outcomes.team_outcome(shown.teams, clicks)
            return outcomes.balanced_outcome(shown.docs, clicks, sa, sb)
        return run
    if method == "probabilistic":
        # the softmax's width as make uses it (top max(depth, 100)), cut to the longest
        # ranking so padding costs nothing
        w = min(a.shape[1], max(depth, 100))
        used = max(int((a[:, :w] >= 0).sum(axis=1).max(initial=1)),
                   int((b[:, :w] >= 0).sum(axis=1).max(initial=1)), 1)
        pa, pb = a[:, :used], b[:, :used]
        ppos = m.position_table([pa, pb])

        def run_p(t: np.ndarray, users: Users, rng: np.random.Generator) -> np.ndarray:
            shown = m.probabilistic([pa[t], pb[t]], depth, rng, positions=rows_of(ppos, t))
            clicks = users.clicks(t, shown.docs, rng)
            assert shown.probs is not None
            return outcomes.probabilistic_outcome(shown.probs, clicks)
        return run_p
    if method == "optimized":
        from relkit.metrics.online.interleave.optimized import (
            draw_candidates,
            topic_distributions,
        )

        w = min(a.shape[1], max(depth, 100))
        docs, credit, offsets, cdf = topic_distributions([a[:, :w], b[:, :w]], depth)

        def run_o(t: np.ndarray, users: Users, rng: np.random.Generator) -> np.ndarray:
            row = draw_candidates(t, offsets, cdf, rng)
            clicks = users.clicks(t, docs[row], rng)
            return outcomes.credit_outcome(credit[row], clicks)
        return run_o
    raise ValueError(f"unknown interleaving method {method!r}")


def _shares(total: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Share of trials (rows) with a positive, negative, zero total, per column."""
    pos = (total > outcomes.TOLERANCE).mean(axis=0)
    neg = (total < -outcomes.TOLERANCE).mean(axis=0)
    return pos, neg, 1.0 - pos - neg


def _chunks(n: int) -> list[slice]:
    return [slice(s, min(s + CHUNK, n)) for s in range(0, n, CHUNK)]


def simulate_pair(setup: Setup, i: int, j: int, methods: Sequence[str], grid: Sequence[int],
                  trials: int, seed: int, ab: bool = True,
                  progress: Callable[[int], None] | None = None) -> list[PairResult]:
    """The rows of runs ``i`` and ``j``: one per method, then the A/B test's.

    ``progress(impressions)`` is called after each chunk with the impressions done.
    """
    r = setup.rankings
    Q = len(r.queries)
    n_max = max(grid)
    cols = np.asarray(grid) - 1
    topics = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i, j))) \
        .integers(0, Q, size=(trials, n_max)).ravel()
    na, nb = r.names[i], r.names[j]
    ga, gb = float(setup.ndcg[i].mean()), float(setup.ndcg[j].mean())
    out = []
    for name in methods:
        k = METHODS.index(name)
        rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i, j, k + 1)))
        fn = _outcome_fn(name, r.mats[i], r.mats[j], setup.depth)
        res = np.empty(len(topics))
        for part in _chunks(len(topics)):
            res[part] = fn(topics[part], setup.users, rng)
            if progress is not None:
                progress(part.stop - part.start)
        total = np.cumsum(res.reshape(trials, n_max), axis=1)[:, cols]
        out.append(PairResult(na, nb, ga, gb, name, list(grid), *_shares(total)))
    if ab:
        out.append(_ab(setup, i, j, topics.reshape(trials, n_max), grid, seed, progress))
    return out


def _ab(setup: Setup, i: int, j: int, topics: np.ndarray, grid: Sequence[int], seed: int,
        progress: Callable[[int], None] | None) -> PairResult:
    """The A/B test on CTR@1 over the same topic draws: A the odd impressions (1st,
    3rd...), B the even ones."""
    r, depth = setup.rankings, setup.depth
    rng = np.random.default_rng(np.random.SeedSequence(seed, spawn_key=(i, j, 0)))
    trials, n_max = topics.shape
    first = np.zeros(topics.size, dtype=bool)
    arm = np.tile(np.arange(n_max) % 2, trials)       # 0: A, 1: B
    flat = topics.ravel()
    tops = [r.mats[i][:, :depth], r.mats[j][:, :depth]]
    for part in _chunks(flat.size):
        t, which = flat[part], arm[part]
        docs = np.where((which == 0)[:, None], tops[0][t], tops[1][t])
        first[part] = setup.users.clicks(t, docs, rng)[:, 0]
        if progress is not None:
            progress(part.stop - part.start)
    hit = first.reshape(trials, n_max)
    ca = np.cumsum(np.where(arm[:n_max] == 0, hit, False), axis=1)
    cb = np.cumsum(np.where(arm[:n_max] == 1, hit, False), axis=1)
    n = np.asarray(grid)
    nA, nB = (n + 1) // 2, n // 2
    # CTR_A > CTR_B <=> clicks_A * n_B > clicks_B * n_A (integers: exact); an arm
    # without impressions (n = 1) cannot be compared: a tie
    diff = (ca[:, n - 1] * nB - cb[:, n - 1] * nA).astype(np.float64)
    diff[:, nB == 0] = 0.0
    ga, gb = float(setup.ndcg[i].mean()), float(setup.ndcg[j].mean())
    return PairResult(r.names[i], r.names[j], ga, gb, AB, list(grid), *_shares(diff))


def simulate(setup: Setup, methods: Sequence[str], grid: Sequence[int], trials: int,
             seed: int = 0, ab: bool = True, progress: Progress | None = None
             ) -> list[PairResult]:
    """Every pair of runs (in the order given), every method, and the A/B test.

    Parameters
    ----------
    setup
        Rankings, per-topic nDCG@k and users (:func:`prepare`).
    methods
        Names from :data:`METHODS`.
    grid
        Impression counts at which to measure the agreement (increasing).
    trials
        Independent experiments per (pair, method): each of ``max(grid)`` impressions.
    seed
        The seed of every draw: the same seed gives the same table.
    progress
        ``progress(impressions_done, impressions_total)``.

    References
    ----------
    K. Hofmann, S. Whiteson and M. de Rijke. Fidelity, soundness, and efficiency of
    interleaved comparison methods. ACM TOIS 31(4), 2013.
    A. Schuth, F. Sietsma, S. Whiteson, D. Lefortier and M. de Rijke. Multileaved
    comparisons for fast online evaluation. CIKM 2014.
    """
    for name in methods:
        if name not in METHODS:
            raise ValueError(f"unknown interleaving method {name!r}")
    pairs = list(combinations(range(len(setup.rankings.mats)), 2))
    per_pair = trials * max(grid) * (len(methods) + int(ab))
    total = per_pair * len(pairs)
    done = 0

    def tick(k: int) -> None:
        nonlocal done
        done += k
        if progress is not None:
            progress(done, total)

    rows: list[PairResult] = []
    for i, j in pairs:
        rows.extend(simulate_pair(setup, i, j, methods, grid, trials, seed, ab, tick))
    return rows


def header(grid: Sequence[int]) -> list[str]:
    """The table's columns."""
    return ["run_a", "run_b", "ndcg_a", "ndcg_b", "method",
            *[f"agree@{n}" for n in grid], "n_95", "n_95_final"]


def table_rows(rows: Sequence[PairResult]) -> list[list[str | int | float | None]]:
    """One table row per (pair, method)."""
    out: list[list[str | int | float | None]] = []
    for r in rows:
        agree = r.agreement
        cells: list[str | int | float | None] = (
            [None] * len(r.grid) if agree is None else [float(x) for x in agree])
        out.append([r.run_a, r.run_b, r.ndcg_a, r.ndcg_b, r.method, *cells,
                    r.needed(), r.needed(of_final=True)])
    return out
