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

from dataclasses import dataclass

import numpy as np

from relkit.metrics.online.clickmodels.base import FloatArray
from relkit.metrics.online.clickmodels.data import BoolArray, ClickData, IntArray


@dataclass
class Pages:
    """The distinct sessions of a log, rank-major (``ranks x sessions``), with counts.

    Identical sessions (same page, same clicks) have the same posteriors, so EM runs
    over the distinct ones, weighted. Rank-major so each rank's step reads contiguous
    memory.
    """

    pair: IntArray      # pair code, 0 where nothing is shown (masked by ``shown``)
    click: BoolArray
    shown: BoolArray
    weight: FloatArray  # sessions per distinct session
    later: BoolArray    # a result is shown further down: the continuation is observed
    last: IntArray      # 0-based rank of the last click, -1 if none (per session)
    pre: BoolArray      # shown above the last click: examined, and went on
    at: BoolArray       # the last click
    tail: BoolArray     # shown below the last click (every shown rank if no click)

    @property
    def n_ranks(self) -> int:
        return int(self.pair.shape[0])


def distinct_pages(data: ClickData) -> Pages:
    """:class:`Pages` of ``data``."""
    rows = np.where(data.shown, data.pair * 2 + (data.click & data.shown), -1)
    uniq, weight = np.unique(rows, axis=0, return_counts=True)
    pt = np.ascontiguousarray((uniq // 2).T)
    st = np.ascontiguousarray((uniq >= 0).T)
    ct = np.ascontiguousarray(((uniq >= 0) & (uniq % 2 == 1)).T)
    later = np.zeros_like(st)
    later[:-1] = np.flip(np.logical_or.accumulate(np.flip(st[1:], 0), 0), 0)
    r_max = pt.shape[0]
    idx = np.arange(r_max)[:, None]
    last = np.where(ct, idx, -1).max(axis=0) if r_max else np.zeros(0, dtype=np.int64)
    return Pages(np.where(st, pt, 0), ct, st, weight.astype(np.float64), later,
                 np.asarray(last, dtype=np.int64), st & (idx < last), ct & (idx == last),
                 st & (idx > last))


@dataclass
class Tail:
    """Posteriors of one E-step, each already multiplied by the session weight.

    Attributes
    ----------
    exam
        ``P(E_j = 1 | C)`` at the tail cells (0 elsewhere).
    go
        ``P(E_j = 1, E_{j+1} = 1 | C)`` at the tail cells whose continuation is
        observed (0 elsewhere).
    on
        Per session: ``P(E_{l+1} = 1, C) / P(C)`` divided by ``kappa_l`` -- that is
        ``B_{l+1} / T``; times ``kappa_l`` it is the posterior of going on after the
        last click (sessions with a click; unused otherwise).
    inv
        Per session: weight / ``T``, with ``T`` the probability of the tail given the
        prefix (the E-step's normaliser).
    log_likelihood
        Total ``ln P(C)`` of the log (weighted).
    """

    exam: FloatArray
    go: FloatArray
    on: FloatArray
    inv: FloatArray
    log_likelihood: float


def e_step(pg: Pages, a: FloatArray, u: float | FloatArray, kappa: FloatArray) -> Tail:
    """Posteriors of the chain model with cell attractiveness ``a`` (``ranks x
    sessions``), skip continuation ``u`` and click continuation ``kappa`` (per cell).
    """
    r_max, n = pg.pair.shape
    shown, later = pg.shown, pg.later
    # A cell with no result passes the chain on: attractiveness 0, continuation 1. At the
    # last shown rank the continuation is not observed: 0 ends the tail there.
    oma = np.where(shown, 1.0 - a, 1.0)
    su = np.where(shown, np.where(later, u, 0.0), 1.0)
    step = oma * su
    # B[j] = P(no click at j.. | E_j = 1) (j below the last click)
    b = np.empty((r_max + 1, n))
    b[r_max] = 1.0
    for j in range(r_max - 1, -1, -1):
        np.multiply(oma[j], 1.0 - su[j], out=b[j])
        b[j] += step[j] * b[j + 1]
    start = pg.last + 1
    cols = np.arange(n)
    ks = np.ones(n)
    has = pg.last >= 0
    ks[has] = kappa[pg.last[has], cols[has]]
    b_next = b[start, cols]
    t = 1.0 - ks + ks * b_next
    inv = pg.weight / t
    # prefix: emissions at and above l, continuations above l
    emit = np.where(pg.click, a, oma)
    cont = np.where(pg.click, kappa, su)
    prefix = np.where(pg.pre, emit * cont, np.where(pg.at, emit, 1.0)).prod(axis=0)
    ll = float(pg.weight @ np.log(np.maximum(prefix * t, 1e-300)))
    exam = np.zeros((r_max, n))
    go = np.zeros((r_max, n))
    f = np.zeros(n)
    for j in range(r_max):
        here = start == j
        f[here] = ks[here]
        np.multiply(f, b[j], out=exam[j])
        np.multiply(f, step[j], out=f)
        np.multiply(f, b[j + 1], out=go[j])
    exam *= inv
    go *= inv
    # cells above the start are 0 already (f = 0 there); mask the non-tail cells below
    exam *= pg.tail
    go *= pg.tail & later
    return Tail(exam, go, b_next * inv, inv, ll)


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
