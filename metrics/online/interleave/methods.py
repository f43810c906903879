"""Interleaving and multileaving, vectorised over queries.

Every method takes the rankings as matrices of document codes, one per run, of shape
``(queries, width)`` (``-1`` pads a ranking shorter than ``width``; a code appears at
most once per row), and returns :class:`Interleaved`: the shown list of each query
(``docs``, ``(queries, depth)``, ``-1`` past its end) and the team (run index) that
contributed each position. The list of a query has ``min(depth, |union of the
rankings|)`` documents.

Team draft and balanced interleaving loop over the ``depth`` positions, never over
queries: the state of every query (each run's next unused document, the team sizes)
is a numpy array, so a million queries cost a few numpy passes per position.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.interleave.positions import Interleaved as Interleaved
from relkit.metrics.online.interleave.positions import Positions as Positions
from relkit.metrics.online.interleave.positions import _positions
from relkit.metrics.online.interleave.positions import position_table as position_table

TAU = 3.0


def team_draft(mats: list[np.ndarray], depth: int, rng: np.random.Generator,
               positions: Positions | None = None) -> Interleaved:
    """Team-draft interleaving, and team-draft multileaving for more than two runs.

    At each position the team with the fewest documents so far picks (ties broken
    uniformly at random), adding its highest-ranked document not yet shown; a run with
    no unused document left does not pick. For two runs this is Radlinski, Kurup &
    Joachims's team draft (a coin flip whenever the teams are equal); for more, the
    team-draft multileave of Schuth et al.

    Parameters
    ----------
    mats
        One ``(queries, width)`` matrix of document codes per run, best first.
    depth
        Length of the shown lists.
    rng
        The seeded generator (the same seed gives the same lists).
    positions
        :func:`position_table` of ``mats``, when the caller has them (a simulation indexes
        one table per topic instead of comparing every impression's rankings).

    References
    ----------
    F. Radlinski, M. Kurup and T. Joachims. How does clickthrough data reflect
    retrieval quality? CIKM 2008.
    A. Schuth, F. Sietsma, S. Whiteson, D. Lefortier and M. de Rijke. Multileaved
    comparisons for fast online evaluation. CIKM 2014.
    """
    n = len(mats)
    if n == 2:
        return _team_draft_two(mats, depth, rng, positions)
    Q, w = mats[0].shape
    rows = np.arange(Q)
    pad = np.full((Q, 1), -1, dtype=np.int64)
    # Flat (row-major) copies: a 1-d take at rows * (w + 1) + pointer is cheaper than
    # 2-d fancy indexing. A -1 column at the end: a pointer there is an exhausted run.
    padded = [np.hstack([m, pad]).ravel() for m in mats]
    pos = [[np.hstack([p, pad]).ravel() if p.size else p for p in ps]
           for ps in (positions or _positions(mats))]
    used = [np.zeros(Q * (w + 1), dtype=bool) for _ in mats]
    base = rows * (w + 1)
    ptr = np.zeros((n, Q), dtype=np.int64)
    counts = np.zeros((Q, n), dtype=np.int64)
    docs = np.full((Q, depth), -1, dtype=np.int64)
    teams = np.full((Q, depth), -1, dtype=np.int64)
    big = np.iinfo(np.int64).max // 4
    for k in range(depth):
        heads = np.empty((n, Q), dtype=np.int64)
        at_flat = np.empty((n, Q), dtype=np.int64)
        for r in range(n):
            # move each pointer past documents another team has shown (a few O(Q)
            # passes: only shown documents are skipped)
            f = base + ptr[r]
            skip = used[r][f]
            while skip.any():
                f += skip
                skip = used[r][f]
            ptr[r] = f - base
            at_flat[r] = f
            heads[r] = padded[r][f]
        avail = (heads >= 0).T                                   # (Q, n)
        live = avail.any(axis=1)
        # fewest picks first, a uniform random tie-break among them
        key = np.where(avail, counts, big)
        low = key == key.min(axis=1, keepdims=True)
        if n == 2:
            coin = rng.random(Q) < 0.5
            team = np.where(low[:, 0] & low[:, 1], np.where(coin, 0, 1),
                            np.where(low[:, 0], 0, 1))
        else:
            team = np.where(low, rng.random((Q, n)), -1.0).argmax(axis=1)
        code = heads[team, rows]
        f = at_flat[team, rows]
        for r in range(n):
            mine = live & (team == r)
            for s in range(n):
                if s != r:
                    j = pos[r][s][f]
                    hit = mine & (j >= 0)
                    used[s][base[hit] + j[hit]] = True
            ptr[r] += mine
        docs[:, k] = np.where(live, code, -1)
        teams[:, k] = np.where(live, team, -1)
        counts[rows[live], team[live]] += 1
    return Interleaved(docs, teams)


def _team_draft_two(mats: list[np.ndarray], depth: int, rng: np.random.Generator,
                    positions: Positions | None) -> Interleaved:
    """:func:`team_draft` for two runs: the same draws and lists, with fewer passes.

    Both runs' arrays are laid end to end and column by column (the entry of query
    ``q`` at rank ``i`` of run ``r`` at ``r * QW + i * Q + q``), so each step is a few
    one-dimensional takes, and since the pointers of most queries are at the same
    rank, those takes read memory nearly in order. The team rule is the general one:
    the team with fewer documents picks, a coin when they are level, a run with
    nothing left does not pick.
    """
    Q, w = mats[0].shape
    QW = Q * (w + 1)
    pad = np.full((1, Q), -1, dtype=np.int64)
    pos = positions or _positions(mats)
    # run 0's then run 1's codes; where run 0's document at i is in run 1, then
    # where run 1's is in run 0 (a -1 row at the end: an exhausted run)
    codes = np.concatenate([np.vstack([m.T, pad]).ravel() for m in mats])
    other = np.concatenate([np.vstack([pos[0][1].T, pad]).ravel(),
                            np.vstack([pos[1][0].T, pad]).ravel()])
    used = np.zeros(2 * QW, dtype=bool)
    rows = np.arange(Q, dtype=np.int64)
    f0, f1 = rows.copy(), rows + QW          # each run's pointer, as a flat index
    c0 = np.zeros(Q, dtype=np.int64)
    c1 = np.zeros(Q, dtype=np.int64)
    docs = np.full((depth, Q), -1, dtype=np.int64)
    teams = np.full((depth, Q), -1, dtype=np.int64)
    big = np.iinfo(np.int64).max // 4
    for k in range(depth):
        for f in (f0, f1):
            # move past documents the other team has shown (only shown ones: few passes)
            skip = used[f]
            while skip.any():
                f += skip * Q
                skip = used[f]
        h0, h1 = codes[f0], codes[f1]
        a0, a1 = h0 >= 0, h1 >= 0
        k0, k1 = np.where(a0, c0, big), np.where(a1, c1, big)
        coin = rng.random(Q) < 0.5
        one = np.where(k0 == k1, ~coin, k1 < k0)            # run 1 picks
        live = a0 | a1
        at = np.where(one, f1, f0)
        j = other[at]
        # mark the picked document in the other run's half, where it has it
        hit = live & (j >= 0)
        used[np.where(one, 0, QW)[hit] + j[hit] * Q + rows[hit]] = True
        pick1 = live & one
        pick0 = live & ~one
        f0 += pick0 * Q
        f1 += pick1 * Q
        c0 += pick0
        c1 += pick1
        docs[k] = np.where(live, codes[at], -1)
        teams[k] = np.where(live, one.astype(np.int64), -1)
    return Interleaved(np.ascontiguousarray(docs.T), np.ascontiguousarray(teams.T))


def balanced(mats: list[np.ndarray], depth: int, rng: np.random.Generator,
             positions: Positions | None = None) -> Interleaved:
    """Balanced interleaving of two runs (Joachims 2003).

    A coin per query decides which run leads; then the run whose pointer is behind
    (the leader on a tie) offers its document at the pointer, which is added unless
    already shown, and the pointer moves on. The team of a position is the run that
    added it (credit is computed from the rankings, see
    :func:`relkit.metrics.online.interleave.credit.balanced_outcome`).

    References
    ----------
    T. Joachims. Evaluating retrieval quality using clickthrough data. In J. Franke,
    G. Nakhaeizadeh and I. Renz (eds.), Text Mining, Physica/Springer, 2003.
    """
    a, b = mats
    Q, w = a.shape
    QW = Q * (w + 1)
    rows = np.arange(Q, dtype=np.int64)
    pos = positions or _positions(mats)
    a_first: np.ndarray = np.asarray(rng.random(Q) < 0.5)
    # A's then B's codes, rank-major (query q at rank i of run r at r * QW + i * Q + q:
    # the pointers of most queries sit at the same rank, so takes read nearly in
    # order), with a -1 rank at the end; where each document sits in the other run
    pad = np.full((1, Q), -1, dtype=np.int64)
    codes = np.concatenate([np.vstack([m.T, pad]).ravel() for m in mats])
    other = np.concatenate([np.vstack([pos[0][1].T, pad]).ravel(),
                            np.vstack([pos[1][0].T, pad]).ravel()])
    ok = codes >= 0
    used = np.zeros(2 * QW, dtype=bool)
    used[w * Q:QW] = used[QW + w * Q:] = True      # the end sentinel
    ka = np.zeros(Q, dtype=np.int64)
    kb = np.zeros(Q, dtype=np.int64)
    docs = np.full(depth * Q, -1, dtype=np.int64)    # rank-major too, transposed at the end
    teams = np.full(depth * Q, -1, dtype=np.int64)
    # each added document's rank in A and in B (0: absent): the pointer of the run that
    # added it, and where the other run has it
    ranks = np.zeros((2, depth * Q), dtype=np.int32)
    length = np.zeros(Q, dtype=np.int64)
    # Each step moves one pointer; the list grows by at most one. 2 * width steps
    # exhaust both rankings. The state is of the queries still growing (``rows``):
    # most lists are full after little more than ``depth`` steps, and the steps after
    # that need not pass over them.
    for _ in range(2 * w):
        growing = length < depth
        if not growing.all():
            if not growing.any():
                break
            rows, ka, kb, length = rows[growing], ka[growing], kb[growing], length[growing]
            a_first = a_first[growing]
        fa = ka * Q + rows
        fb = QW + kb * Q + rows
        a_ok = ok[fa]
        b_ok = ok[fb]
        turn_a = (ka < kb) | ((ka == kb) & a_first)
        take_a = a_ok & (turn_a | ~b_ok)     # B's turn but B is exhausted: A goes on
        step = (a_ok | b_ok) & (length < depth)
        at = np.where(take_a, fa, fb)
        add = step & ~used[at]
        put = length[add] * Q + rows[add]
        docs[put] = codes[at[add]]
        added_a = take_a[add]
        teams[put] = np.where(added_a, 0, 1)
        j = other[at]
        own = np.where(added_a, ka[add], kb[add]) + 1
        there = j[add] + 1                     # 0 where the other run lacks it
        ranks[0, put] = np.where(added_a, own, there)
        ranks[1, put] = np.where(added_a, there, own)
        # mark the added document in the other ranking, so it is skipped there
        mark = add & (j >= 0)
        used[np.where(take_a, QW, 0)[mark] + j[mark] * Q + rows[mark]] = True
        length += add
        ka = ka + (step & take_a)
        kb = kb + (step & ~take_a)
    return Interleaved(np.ascontiguousarray(docs.reshape(depth, Q).T),
                       np.ascontiguousarray(teams.reshape(depth, Q).T),
                       ranks=np.ascontiguousarray(ranks.reshape(2, depth, Q)
                                                  .transpose(0, 2, 1)))


def _draw(cdf: np.ndarray, weights: np.ndarray, gone: np.ndarray, x: np.ndarray
          ) -> np.ndarray:
    """Per row, the smallest index ``i`` whose remaining cumulative weight
    ``G(i) = cdf[i] - (weight of the drawn indices <= i)`` exceeds ``x`` (the inverse
    CDF of the softmax over the documents left, at ``x = u * remaining weight``).

    No cumulative sum per row: ``i = searchsorted(cdf, x + R)`` with ``R`` the drawn
    weight at or above the last ``i``, repeated until ``R`` stops growing (at most one
    step per drawn document). Every index skipped has ``G <= x``, and the last one has
    ``G > x``, so it is the inverse CDF's; a drawn index never is (its ``G`` equals
    the one before it). The rankings' pads must follow their documents.
    """
    removed = np.where(gone >= 0, weights[np.maximum(gone, 0)], 0.0)
    at = np.searchsorted(cdf, x, side="right")
    todo = np.arange(len(x))
    while len(todo):
        g = gone[todo]
        below = np.where(g <= at[todo, None], removed[todo], 0.0).sum(axis=1)
        nxt = np.searchsorted(cdf, x[todo] + below, side="right")
        moved = nxt != at[todo]
        at[todo] = nxt
        todo = todo[moved]
    return np.minimum(at, len(cdf) - 1)


def softmax_weights(width: int, tau: float = TAU) -> np.ndarray:
    """``1 / rank ** tau`` for ranks ``1..width`` (Hofmann et al.'s softmax,
    before normalising over the documents still available)."""
    return 1.0 / np.arange(1, width + 1, dtype=np.float64) ** tau


def probabilistic(mats: list[np.ndarray], depth: int, rng: np.random.Generator,
                  tau: float = TAU, positions: Positions | None = None) -> Interleaved:
    """Probabilistic interleaving (and multileaving) with a softmax over ranks.

    At each position a run is chosen uniformly at random and draws a document with
    probability proportional to ``1 / rank ** tau`` among its documents not yet shown
    (the drawn document is removed from every run). Each position's probabilities of
    the drawn document under every run are kept (``probs``): since the runs are
    chosen independently per position, the posterior of the assignment factorises
    over positions, which is what :mod:`~relkit.metrics.online.interleave.credit`
    marginalises. A run with no document left is not chosen. With more than two runs
    this is probabilistic multileaving (Schuth et al. 2015) with runs chosen per
    position rather than in rounds (so the marginalisation stays exact).

    References
    ----------
    K. Hofmann, S. Whiteson and M. de Rijke. A probabilistic method for inferring
    preferences from clicks. CIKM 2011.
    A. Schuth, R.-J. Bruintjes, F. Buttner, J. van Doorn, C. Groenland, H. Oosterhuis,
    C.-N. Tran, B. Veeling, J. van der Velde, R. Wechsler, D. Woudenberg and
    M. de Rijke. Probabilistic multileave for online retrieval evaluation. SIGIR 2015.
    """
    n = len(mats)
    Q, w = mats[0].shape
    weights = softmax_weights(w, tau)
    cdf = np.cumsum(weights)        # one for every row: rankings differ only in length
    pos = positions or _positions(mats)
    # Each run's unused weight and count, kept up to date as documents are drawn
    # (a sum over every row's ranking per position would cost width times more); the
    # count (exact) says whether a run still has documents, the weight normalises.
    totals = np.stack([np.where(m >= 0, weights, 0.0).sum(axis=1) for m in mats], axis=1)
    left = np.stack([(m >= 0).sum(axis=1) for m in mats], axis=1)     # (Q, n)
    # the indices (in each run) of the documents already drawn, -1: none
    gone = [np.full((Q, depth), -1, dtype=np.int64) for _ in mats]
    docs = np.full((Q, depth), -1, dtype=np.int64)
    teams = np.full((Q, depth), -1, dtype=np.int64)
    probs = np.zeros((n, Q, depth))
    rows = np.arange(Q)
    for k in range(depth):
        avail = left > 0
        live = avail.any(axis=1)
        team = np.where(avail, rng.random((Q, n)), -1.0).argmax(axis=1)
        u: np.ndarray = np.asarray(rng.random(Q))
        code = np.full(Q, -1, dtype=np.int64)
        src = np.zeros(Q, dtype=np.int64)      # the drawn document's index in its run
        for r in range(n):
            mine = np.flatnonzero(live & (team == r))
            if len(mine):
                src[mine] = _draw(cdf, weights, gone[r][mine, :k], u[mine] * totals[mine, r])
                code[mine] = mats[r][mine, src[mine]]
        for r in range(n):
            # where the drawn document sits in run r: its own index, or looked up
            where = np.where(team == r, src, -1)
            for s in range(n):
                if s != r:
                    pick = team == s
                    where[pick] = pos[s][r][rows[pick], src[pick]]
            where = np.where(live, where, -1)
            found = where >= 0
            got = np.where(found, weights[np.maximum(where, 0)], 0.0)
            p = got / np.where(avail[:, r], totals[:, r], 1.0)
            probs[r, :, k] = np.where(found, p, 0.0)
            gone[r][:, k] = where
            totals[:, r] -= got
            left[:, r] -= found
        docs[:, k] = code
        teams[:, k] = np.where(live, team, -1)
    return Interleaved(docs, teams, probs)
