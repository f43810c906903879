"""Optimized interleaving (Radlinski & Craswell, WSDM 2013), one linear programme per query.

The candidate lists are those whose every prefix is the union of a prefix of A and a
prefix of B (built by appending, at each position, the best unused document of A or of
B). A click on document ``d`` credits ``delta(d) = 1/rank_A(d) - 1/rank_B(d)`` (a
document missing from a ranking has rank ``|ranking| + 1`` there; positive favours A).
The distribution ``p`` over candidates is the linear programme's solution
(``scipy.optimize.linprog``, method ``highs``):

* fidelity: for every ``k``, a user clicking uniformly at random in the top ``k``
  prefers neither run in expectation, ``sum_L p_L sum_{i<=k} delta(L_i) = 0``;
* sensitivity: maximise ``sum_L p_L s(L)``, ``s(L) = sum_k |sum_{i<=k} delta(L_i)| / k``
  (how strongly a click in the top ``k`` separates the runs, weighted by ``1/k`` as
  users click high; a simplified form of the paper's sensitivity, documented in
  docs/interleaving.md).

When the fidelity constraints cannot all hold, slack variables with a large cost keep
the programme feasible (the closest-to-unbiased distribution). This is a per-query
Python loop: up to ``2 ** depth`` candidates per query.
"""

from __future__ import annotations

import numpy as np

from relkit.metrics.online.interleave.methods import Interleaved

SLACK_COST = 1e6


def _candidates(a: list[int], b: list[int], depth: int) -> list[tuple[list[int], list[int]]]:
    """Candidate lists (documents, teams), distinct by their documents."""
    n = min(depth, len(set(a) | set(b)))
    out: dict[tuple[int, ...], list[int]] = {}

    def grow(lst: list[int], teams: list[int], shown: set[int]) -> None:
        if len(lst) == n:
            out.setdefault(tuple(lst), list(teams))
            return
        for team, ranking in ((0, a), (1, b)):
            nxt = next((d for d in ranking if d not in shown), None)
            if nxt is not None:
                grow([*lst, nxt], [*teams, team], shown | {nxt})

    grow([], [], set())
    return [(list(k), v) for k, v in out.items()]


def credits(a: list[int], b: list[int], docs: list[int]) -> np.ndarray:
    """``delta(d)`` of each document (see the module docstring)."""
    ra = {d: i + 1 for i, d in enumerate(a)}
    rb = {d: i + 1 for i, d in enumerate(b)}
    return np.array([1.0 / ra.get(d, len(a) + 1) - 1.0 / rb.get(d, len(b) + 1)
                     for d in docs])


def distribution(a: list[int], b: list[int], depth: int
                 ) -> tuple[list[tuple[list[int], list[int]]], np.ndarray]:
    """The candidate lists of one query and the LP's probability of each.

    References
    ----------
    F. Radlinski and N. Craswell. Optimized interleaving for online retrieval
    evaluation. WSDM 2013.
    """
    from scipy.optimize import linprog

    cands = _candidates(a, b, depth)
    if len(cands) == 1:
        return cands, np.ones(1)
    n = len(cands[0][0])
    cum = np.array([np.cumsum(credits(a, b, docs)) for docs, _ in cands])   # (L, n)
    sens = (np.abs(cum) / np.arange(1, n + 1)).sum(axis=1)
    L = len(cands)
    # variables: p (L), slack+ (n), slack- (n)
    c = np.concatenate([-sens, np.full(2 * n, SLACK_COST)])
    a_eq = np.zeros((n + 1, L + 2 * n))
    a_eq[0, :L] = 1.0
    a_eq[1:, :L] = cum.T / np.arange(1, n + 1)[:, None]
    a_eq[1:, L:L + n] = np.eye(n)
    a_eq[1:, L + n:] = -np.eye(n)
    b_eq = np.zeros(n + 1)
    b_eq[0] = 1.0
    res = linprog(c, A_eq=a_eq, b_eq=b_eq, bounds=(0, None), method="highs")
    p = np.clip(res.x[:L], 0.0, None)
    return cands, p / p.sum()


def optimized(mats: list[np.ndarray], depth: int, rng: np.random.Generator) -> Interleaved:
    """Optimized interleaving of two runs: each query's list drawn from its LP's
    distribution (see the module docstring). Teams: the run whose pointer supplied
    each document (A on a document both offer)."""
    a_mat, b_mat = mats
    Q = a_mat.shape[0]
    docs = np.full((Q, depth), -1, dtype=np.int64)
    teams = np.full((Q, depth), -1, dtype=np.int64)
    for q in range(Q):
        a = [int(d) for d in a_mat[q] if d >= 0]
        b = [int(d) for d in b_mat[q] if d >= 0]
        if not a and not b:
            continue
        cands, p = distribution(a, b, depth)
        pick = int(rng.choice(len(cands), p=p))
        lst, tm = cands[pick]
        docs[q, :len(lst)] = lst
        teams[q, :len(tm)] = tm
    return Interleaved(docs, teams)


def topic_distributions(mats: list[np.ndarray], depth: int
                        ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Every query's candidate lists, their credits and the LP's probabilities, flat.

    For simulations that draw many impressions per query: one linear programme per
    query, then any number of lists drawn with :func:`draw_candidates`.

    Returns
    -------
    docs, credit
        ``(candidates, depth)``: each candidate's documents (``-1`` past its end) and
        each position's credit ``1/rank_A - 1/rank_B`` (0 past the end).
    offsets
        ``(queries + 1,)``: query ``q``'s candidates are rows ``offsets[q]:offsets[q+1]``.
    cdf
        ``(candidates,)``: the cumulative probability within each query (last = 1).
    """
    a_mat, b_mat = mats
    Q = a_mat.shape[0]
    all_docs: list[np.ndarray] = []
    all_credit: list[np.ndarray] = []
    cdfs: list[np.ndarray] = []
    sizes = np.zeros(Q, dtype=np.int64)
    for q in range(Q):
        a = [int(d) for d in a_mat[q] if d >= 0]
        b = [int(d) for d in b_mat[q] if d >= 0]
        cands: list[tuple[list[int], list[int]]]
        if not a and not b:
            cands, p = [([], [])], np.ones(1)
        else:
            cands, p = distribution(a, b, depth)
        d = np.full((len(cands), depth), -1, dtype=np.int64)
        c = np.zeros((len(cands), depth))
        for i, (lst, _) in enumerate(cands):
            d[i, :len(lst)] = lst
            c[i, :len(lst)] = credits(a, b, lst) if lst else 0.0
        cdf = np.cumsum(p)
        cdf[-1] = 1.0
        all_docs.append(d)
        all_credit.append(c)
        cdfs.append(cdf)
        sizes[q] = len(cands)
    offsets = np.concatenate(([0], np.cumsum(sizes)))
    return (np.concatenate(all_docs), np.concatenate(all_credit), offsets,
            np.concatenate(cdfs))


def draw_candidates(queries: np.ndarray, offsets: np.ndarray, cdf: np.ndarray,
                    rng: np.random.Generator) -> np.ndarray:
    """One candidate row per entry of ``queries``, drawn with the LP's probabilities
    (the flat tables of :func:`topic_distributions`)."""
    # the first candidate whose cumulative probability exceeds u, within the query's
    # segment: a search over the flat cdf shifted by the query's index (all in [q, q+1])
    shift = np.repeat(np.arange(len(offsets) - 1, dtype=np.float64), np.diff(offsets))
    keys = shift + cdf
    u = rng.random(len(queries))
    at = np.searchsorted(keys, queries + u, side="right")
    return np.clip(at, offsets[queries], offsets[queries + 1] - 1)
