"""The exact E-step shared by the chain models (DBN, DCM, CCM).

In these models the user scans top-down: ``E_1 = 1``, ``E_r = 0`` implies
``E_{r+1} = 0`` and a click needs examination. So every result at or above a session's
last click ``l`` was examined, and every continuation above ``l`` is observed; only the
*tail* is uncertain: whether the user went on after the click at ``l`` (or, in a session
without clicks, how far down the unclicked page they read). The posteriors therefore
have a closed form above ``l`` and need one backward and one forward pass (a loop over
ranks, each step a vector operation over sessions) only for the tail, with a single
state ``E_j = 1`` -- half the work of a two-state forward-backward.

The models differ only in two continuation probabilities:

- ``u``: ``P(E_{j+1} = 1 | E_j = 1, C_j = 0)`` (DBN ``gamma``, DCM 1, CCM ``tau_1``);
- ``kappa``: ``P(E_{j+1} = 1 | E_j = 1, C_j = 1)`` per cell (DBN ``gamma (1 - sigma)``,
  DCM ``lambda_r``, CCM ``tau_2 (1 - alpha) + tau_3 alpha``).

A rank with no result is passed over (no emission, no transition), as in
:func:`~.dbn.dbn_probabilities` and the simulators.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from relkit.metrics.online.clickmodels.base import FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray

F32Array = npt.NDArray[np.float32]

# Sessions per block: the E-step works block by block so its (ranks x sessions)
# temporaries stay small (tens of MB) whatever the size of the log.
BLOCK = 1 << 17


@dataclass
class Pages:
    """A block of distinct sessions, rank-major (``ranks x sessions``), with counts.

    Identical sessions (same page, same clicks) have the same posteriors, so EM runs
    over the distinct ones, weighted. Rank-major so each rank's step reads contiguous
    memory. Pair codes of cells with no result are ``n_pairs`` (one slot past the last
    pair: give it attractiveness 0).
    """

    pair: IntArray      # (R, n) pair code; n_pairs where nothing is shown
    click: BoolArray    # (R, n)
    shown: BoolArray    # (R, n)
    weight: FloatArray  # (n,) sessions per distinct session
    pre: BoolArray      # (R, n) shown above the last click: examined, and went on
    tail: BoolArray     # (R, n) shown below the last click (all shown if no click)
    tail_obs: BoolArray  # (R, n) tail cells with a result further down
    tail_f: F32Array    # tail as 0/1
    tail_obs_f: F32Array
    obs_f: F32Array     # (R, n) 1 where shown with a result further down
    hole_f: F32Array    # (R, n) 1 where nothing is shown
    start: IntArray     # (n,) first tail rank: last click + 1 (0 without clicks)
    has: BoolArray      # (n,) the session has a click
    l_pair: IntArray    # (n,) pair at the last click (n_pairs without clicks)
    l_rank: IntArray    # (n,) rank of the last click (0 without clicks)
    l_obs: BoolArray    # (n,) the continuation after the last click is observed


def distinct_pages(data: ClickData, block: int = BLOCK) -> list[Pages]:
    """The distinct sessions of ``data`` as blocks of at most ``block`` sessions."""
    rows = np.where(data.shown, data.pair * 2 + (data.click & data.shown), -1)
    uniq, weight = np.unique(rows, axis=0, return_counts=True)
    out = []
    for i in range(0, len(uniq), block):
        out.append(block_of(uniq[i : i + block], weight[i : i + block], data.n_pairs))
    return out


def block_of(uniq: IntArray, weight: IntArray, n_pairs: int) -> Pages:
    """One block of sessions: ``uniq`` (``sessions x ranks``, ``pair * 2 + click``,
    ``-1`` where nothing is shown) with counts ``weight``. Public so that an engine
    holding its sessions elsewhere (Spark partitions) builds the same blocks."""
    st = np.ascontiguousarray((uniq >= 0).T)
    ct = np.ascontiguousarray(((uniq >= 0) & (uniq % 2 == 1)).T)
    pt = np.where(st, np.ascontiguousarray((uniq // 2).T), n_pairs)
    later = np.zeros_like(st)
    later[:-1] = np.flip(np.logical_or.accumulate(np.flip(st[1:], 0), 0), 0)
    r_max, n = pt.shape
    idx = np.arange(r_max)[:, None]
    last = np.asarray(np.where(ct, idx, -1).max(axis=0), dtype=np.int64)
    tail = st & (idx > last)
    tail_obs = tail & later
    has = last >= 0
    l_rank = np.maximum(last, 0)
    cols = np.arange(n)
    return Pages(pt, ct, st, weight.astype(np.float64), st & (idx < last), tail, tail_obs,
                 # 0/1 masks as float32: half the memory, exact in float64 products
                 tail.astype(np.float32), tail_obs.astype(np.float32),
                 (st & later).astype(np.float32), (~st).astype(np.float32), last + 1, has,
                 np.where(has, pt[l_rank, cols], n_pairs), l_rank,
                 has & later[l_rank, cols])


def fixed_counts(blocks: list[Pages], cells: Callable[[Pages], BoolArray], n: int,
                 by: str = "pair") -> FloatArray:
    """Weighted count of the cells ``cells(block)`` selects, by pair code (``by="pair"``,
    ``n`` pairs) or by rank (``by="rank"``, ``n`` ranks)."""
    out = np.zeros(n)
    for pg in blocks:
        m = cells(pg)
        w = np.broadcast_to(pg.weight[None, :], m.shape)
        key = pg.pair if by == "pair" else np.broadcast_to(
            np.arange(m.shape[0])[:, None], m.shape)
        out += np.bincount(key[m], w[m], n + 1)[:n]
    return out


def log0(x: FloatArray) -> FloatArray:
    """``ln x`` with 0 -> a large negative finite number (times a zero count: 0)."""
    return np.log(np.maximum(x, 1e-300))


@dataclass
class Tail:
    """Posteriors of one block's E-step, each already multiplied by the session weight.

    Attributes
    ----------
    exam
        ``(R, n)``: ``P(E_j = 1 | C)`` at the tail cells (0 elsewhere).
    exam_obs
        The sum of ``exam`` over the tail cells whose continuation is observed.
    go
        The sum of ``P(E_j = 1, E_{j+1} = 1 | C)`` over those cells.
    on
        Per session: ``B_{l+1} / T``; times ``kappa_l`` it is the posterior of going on
        after the last click (sessions with a click).
    inv
        Per session: weight / ``T``, with ``T`` the probability of the tail given the
        prefix (the E-step's normaliser).
    log_t
        ``sum weight ln T``: the tail's part of the log-likelihood (the prefix's part
        is a fixed count times log parameters, computed by the model).
    """

    exam: FloatArray
    exam_obs: float
    go: float
    on: FloatArray
    inv: FloatArray
    log_t: float


def e_step(pg: Pages, a: FloatArray, u: float, ks: FloatArray) -> Tail:
    """Posteriors of the chain model on block ``pg``: cell attractiveness ``a`` (``ranks
    x sessions``, 0 where nothing is shown), skip continuation ``u`` and the
    continuation after each session's last click ``ks`` (1 for sessions without one).
    """
    r_max, n = pg.pair.shape
    oma = 1.0 - a
    # A cell with no result passes the chain on (continuation 1, attractiveness 0); at
    # the last shown rank the continuation is not observed: 0 ends the tail there.
    step = np.multiply(pg.obs_f, u, dtype=np.float64)
    step += pg.hole_f
    step *= oma
    c0 = oma - step          # P(no click, stop here | E_j = 1)
    # B[j] = P(no click at j.. | E_j = 1), for j below the last click
    b = np.empty((r_max + 1, n))
    b[r_max] = 1.0
    for j in range(r_max - 1, -1, -1):
        np.multiply(step[j], b[j + 1], out=b[j])
        b[j] += c0[j]
    cols = np.arange(n)
    b_next = b[pg.start, cols]
    t = 1.0 - ks + ks * b_next
    inv = pg.weight / t
    exam = np.empty((r_max, n))
    go = np.empty((r_max, n))
    f = np.zeros(n)
    for j in range(r_max):
        f = np.where(pg.start == j, ks, f)
        np.multiply(f, b[j], out=exam[j])
        f *= step[j]
        np.multiply(f, b[j + 1], out=go[j])
    exam *= pg.tail_f
    exam *= inv
    go *= pg.tail_obs_f
    return Tail(exam, float((exam * pg.tail_obs_f).sum()), float(go.sum(axis=0) @ inv),
                b_next * inv, inv, float(pg.weight @ np.log(np.maximum(t, 1e-300))))


def chain_probabilities(alpha: FloatArray, kappa: FloatArray, u: float, shown: BoolArray,
                        click: BoolArray) -> tuple[FloatArray, FloatArray]:
    """(conditional, marginal) click probabilities of a chain model (``sessions x
    ranks``): attractiveness ``alpha``, continuation ``kappa`` after a click (per cell)
    and ``u`` after a skip. Ranks with no result are passed over."""
    n, r_max = alpha.shape
    cond = np.zeros((n, r_max))
    marg = np.zeros((n, r_max))
    e = np.ones(n)   # P(E_r = 1 | C_<r)
    m = np.ones(n)   # P(E_r = 1)
    for r in range(r_max):
        a, k, sh, c = alpha[:, r], kappa[:, r], shown[:, r], click[:, r]
        cond[:, r] = e * a
        marg[:, r] = m * a
        with np.errstate(invalid="ignore", divide="ignore"):
            after_skip = np.where(1 - e * a > 0, e * (1 - a) * u / (1 - e * a), 0.0)
        e = np.where(sh, np.where(c, k, after_skip), e)
        m = np.where(sh, m * (a * k + (1 - a) * u), m)
    return cond, marg


def simulate_chain(alpha: FloatArray, kappa: FloatArray, u: float, shown: BoolArray,
                   rng: np.random.Generator) -> BoolArray:
    """Clicks of a chain model (``sessions x ranks`` parameters), seeded by ``rng``."""
    n, r_max = alpha.shape
    draw = rng.random((2, n, r_max))
    click = np.zeros((n, r_max), dtype=bool)
    e = np.ones(n, dtype=bool)
    for r in range(r_max):
        sh = shown[:, r]
        c = e & sh & (draw[0, :, r] < alpha[:, r])
        click[:, r] = c
        go = draw[1, :, r] < np.where(c, kappa[:, r], u)
        e = np.where(sh, e & go, e)
    return click
