"""From a static strategy's judging order to a :class:`~relkit.pooling.pool.Pool`.

Strategies with a vectorised builder (:data:`FAST`) are built by it, with
the same output as the generic path (tests/test_pool_fast_path.py checks it):
``depth`` through :func:`relkit.pooling.depth.depth_pool`, 2-3x faster than
ordering the candidates topic by topic in Python.

Budgets are common to every static strategy: ``budget`` keeps the first N
documents of each topic in the strategy's order; ``total`` splits a global
budget across topics (:func:`split_budget`). Without either, a strategy keeps
every candidate (for ``depth``: the depth-k pool).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from relkit.metrics.data import Run
from relkit.pooling.candidates import Candidates
from relkit.pooling.errors import PoolingError
from relkit.pooling.pool import Pool, PoolEntry, natural


def split_budget(total: int, available: Mapping[str, int]) -> dict[str, int]:
    """Split ``total`` judgments evenly across topics, never more than a topic has.

    Water-filling: topics with fewer candidates than the even share take all
    of theirs, the rest is shared again among the others; what an even split
    leaves over goes one each to the first topics in natural order. So the
    split is deterministic and uses ``min(total, sum(available))`` judgments.

    >>> split_budget(10, {"1": 2, "2": 10, "3": 10})
    {'1': 2, '2': 4, '3': 4}
    """
    if isinstance(total, bool) or not isinstance(total, int) or total < 0:
        raise PoolingError(f"The 'total' budget must be an int >= 0; got {total!r}")
    out: dict[str, int] = {}
    open_ = sorted(available, key=natural)
    left = total
    while open_:
        share = left // len(open_)
        small = [t for t in open_ if available[t] <= share]
        if not small:
            extra = left - share * len(open_)
            for n, t in enumerate(open_):
                out[t] = share + (1 if n < extra else 0)
            break
        for t in small:
            out[t] = available[t]
            left -= available[t]
        open_ = [t for t in open_ if t not in small]
    return {t: out.get(t, 0) for t in sorted(available, key=natural)}


def judging_order(strategy: str, cands: Candidates, params: Mapping[str, Any] | None = None
                  ) -> dict[str, list[tuple[str, float]]]:
    """A static strategy's full order per topic: ``[(doc, priority), ...]``."""
    from relkit.pooling.strategies import get

    s = get(strategy)
    if s.kind != "static" or s.order is None:
        raise PoolingError(f"{strategy!r} is adaptive: it picks documents as judgments "
                           "arrive; replay it with `relkit pool-simulate` or drive it with "
                           "relkit.pooling.adaptive.AdaptivePool")
    return s.order(cands, s.validate(params or {}))


def build_pool(strategy: str, runs: Mapping[str, Run], params: Mapping[str, Any] | None = None,
               *, topics: Sequence[str] | None = None, depth: int | Mapping[str, int] | None = None,
               budget: int | None = None, total: int | None = None,
               topic_budgets: Mapping[str, int] | None = None, floor: int | None = None,
               vectorised: bool = True) -> Pool:
    """Pool ``runs`` with a static strategy.

    ``depth`` cuts each run before the strategy sees it (the candidates; for
    the ``depth`` strategy its own ``depth`` parameter does that). ``budget``
    (per topic) and ``total`` (global) cut the strategy's order;
    ``topic_budgets`` gives some topics their own budget (the others take
    ``budget``, or keep every candidate without one).
    ``floor`` makes the pool a hybrid (:func:`with_floor`): every run's top
    ``floor`` documents first, then the strategy's order fills the budget.
    ``vectorised=False`` takes the generic path even where :data:`FAST` has a
    builder (the tests and ``bench/pool_bench.py`` compare the two).
    """
    if budget is not None and total is not None:
        raise PoolingError("give a per-topic budget or a total budget, not both")
    if budget is not None and (isinstance(budget, bool) or not isinstance(budget, int)
                               or budget < 1):
        raise PoolingError(f"The 'budget' parameter of pooling must be an int >= 1; "
                           f"got {budget!r}")
    if topic_budgets is not None:
        if total is not None:
            raise PoolingError("give per-topic budgets or a total budget, not both")
        for t, b in topic_budgets.items():
            if isinstance(b, bool) or not isinstance(b, int) or b < 1:
                raise PoolingError(f"The budget of topic {t!r} must be an int >= 1; got {b!r}")
    if floor is not None and (isinstance(floor, bool) or not isinstance(floor, int)
                              or floor < 1):
        raise PoolingError(f"The 'floor' of a hybrid pool must be an int >= 1; got {floor!r}")
    fast = FAST.get(strategy) if vectorised and floor is None else None
    if fast is not None:
        from relkit.pooling.strategies import get

        return fast(runs, get(strategy).validate(params or {}), topics, depth,
                    _Budget(budget, topic_budgets or {}), total)
    cands = Candidates.from_runs(runs, depth, topics)
    order = judging_order(strategy, cands, params)
    floors: dict[str, int] = {}
    if floor is not None:
        order, floors = with_floor(cands, order, floor)
    keep = _keep(total, _Budget(budget, topic_budgets or {}),
                 {t: len(v) for t, v in order.items()})
    keep = {t: max(k, floors.get(t, 0)) for t, k in keep.items()}
    entries = []
    for t, docs in order.items():
        prov = cands.provenance(t)
        for d, prio in docs[:keep[t]]:
            entries.append(PoolEntry(t, d, prio, tuple(prov[d])))
    return Pool(tuple(entries))


def pool(runs: Any, strategy: str = "depth", *, depth: int | None = 100,
         budget: int | None = None, total: int | None = None,
         topics: Sequence[str] | None = None, params: Mapping[str, Any] | None = None,
         floor: int | None = None) -> Pool:
    """Pool runs with a static strategy: the documents to judge, per topic.

    The library side of ``relkit pool``: the same pool as the command with the same
    options (it calls :func:`build_pool`). Adaptive strategies (``mtf``, ``bandit``...)
    pick documents as judgments arrive: ``relkit pool --db`` or
    :class:`relkit.pooling.adaptive.AdaptivePool` drive them.

    Parameters
    ----------
    runs : mapping of str to run, or sequence of runs
        ``{name: run}`` (names go into each entry's provenance), or runs named by
        their run ids; each a :class:`~relkit.metrics.data.Run`, a TREC run path or
        anything :meth:`Run.coerce <relkit.metrics.data.Run.coerce>` takes.
    strategy : str, default "depth"
        A static strategy's name (``relkit pool-strategies`` lists them): ``depth``,
        ``fusion``, ``move-to-front``...
    depth : int or None, default 100
        Pool from the top ``depth`` documents of every run (the candidates of every
        strategy; for ``depth``, the pool itself); ``None``: whole runs.
    budget, total : int, optional
        At most ``budget`` documents per topic, or a ``total`` split evenly across
        topics (:func:`split_budget`); not both.
    topics : sequence of str, optional
        Only these topics.
    params : mapping, optional
        The strategy's parameters (``{"method": "rrf"}`` for ``fusion``).
    floor : int, optional
        A hybrid pool: every run's top ``floor`` documents first (never cut by the
        budget), then the strategy's order up to the budget.

    Returns
    -------
    Pool
        Entries (topic, document, priority, provenance) in file order; ``write()``
        saves the ``pool.tsv`` the command writes, ``sizes()`` counts per topic.

    Raises
    ------
    PoolingError
        For an unknown or adaptive strategy, a bad parameter or budget, or no runs.

    Examples
    --------
    The depth-2 pool of two runs: each topic's top two documents of either run.

    >>> from relkit import pool
    >>> a = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 1.0}, "q2": {"d4": 1.0}}
    >>> b = {"q1": {"d3": 3.0, "d1": 2.0}, "q2": {"d5": 2.0, "d4": 1.0}}
    >>> p = pool({"a": a, "b": b}, depth=2)
    >>> p
    <Pool: 5 documents over 2 topics>
    >>> [(e.topic, e.doc, e.runs) for e in p]
    [('q1', 'd1', ('a', 'b')), ('q1', 'd2', ('a',)), ('q1', 'd3', ('b',)),
     ('q2', 'd4', ('a', 'b')), ('q2', 'd5', ('b',))]
    >>> len(pool({"a": a, "b": b}, "fusion", params={"method": "rrf"}, budget=1))
    2
    """
    from relkit.metrics.convert import named_runs

    named = named_runs(runs)
    params = dict(params or {})
    if strategy == "depth" and depth is not None:
        params.setdefault("depth", str(depth))
    return build_pool(strategy, named, params, topics=topics, depth=depth, budget=budget,
                      total=total, floor=floor)


def with_floor(cands: Candidates, order: Mapping[str, list[tuple[str, float]]], floor: int
               ) -> tuple[dict[str, list[tuple[str, float]]], dict[str, int]]:
    """A hybrid order: the depth-``floor`` pool first, then the strategy's order.

    The floor is TREC's guarantee (every run's top ``floor`` judged, so no run
    is unjudged near the top) and the strategy spends the rest of the budget
    where it expects relevant documents. Floor documents go in depth order (best rank,
    then docno), with priority ``top + 1 / best rank`` (``top``: the strategy's
    highest priority on the topic) so "priority order" presents them first;
    the others keep the strategy's priority. A budget smaller than a topic's
    floor is raised to it: the floor is never cut. Returns the order and each
    topic's floor size.
    """
    out: dict[str, list[tuple[str, float]]] = {}
    sizes: dict[str, int] = {}
    for t, docs in order.items():
        best = {d: min(k for _, k in p) for d, p in cands.provenance(t).items()}
        fl = sorted((d for d, k in best.items() if k <= floor), key=lambda d: (best[d], d))
        top = max((p for _, p in docs), default=0.0)
        head = set(fl)
        out[t] = [(d, top + 1.0 / best[d]) for d in fl] + [x for x in docs if x[0] not in head]
        sizes[t] = len(fl)
    return out, sizes


@dataclass(frozen=True)
class _Budget:
    """The per-topic budget: ``per_topic`` overrides ``default`` (None: no cut)."""

    default: int | None
    per_topic: Mapping[str, int]

    def of(self, topic: str) -> int | None:
        return self.per_topic.get(topic, self.default)

    @property
    def none(self) -> bool:
        return self.default is None and not self.per_topic


def _keep(total: int | None, budget: _Budget, sizes: Mapping[str, int]) -> dict[str, int]:
    if total is not None:
        return split_budget(total, sizes)
    return {t: n if budget.of(t) is None else min(n, budget.of(t) or 0)
            for t, n in sizes.items()}


def _depth_fast(runs: Mapping[str, Run], params: dict[str, Any], topics: Sequence[str] | None,
                depth: int | Mapping[str, int] | None, budget: _Budget,
                total: int | None) -> Pool:
    """The ``depth`` strategy through :func:`~relkit.pooling.depth.depth_pool`.

    Same pool as the generic path: candidates cut at ``depth`` (their ranks
    are the provenance), the documents whose best rank is within the
    strategy's ``depth`` kept, and a budget cutting each topic's order (best
    rank, then docno; ``relkit.pooling.strategies.depth``).
    """
    from relkit.pooling.depth import depth_pool

    k = params["depth"]
    # Cut at the candidates' depth, not k: the provenance lists every candidate rank.
    full = depth_pool(runs, depth, topics)
    if isinstance(depth, int) and depth <= k and budget.none and total is None:
        return full               # every candidate is within k, nothing cut: still arrays
    if isinstance(depth, int) and depth <= k:
        entries = list(full)      # every candidate is within k
    else:
        entries = [e for e in full if (e.best_rank or 0) <= k]
    if budget.none and total is None:
        return full if len(entries) == len(full) else Pool.presorted(tuple(entries))
    by_topic: dict[str, list[PoolEntry]] = {}
    for e in entries:
        by_topic.setdefault(e.topic, []).append(e)
    keep = _keep(total, budget, {t: len(v) for t, v in by_topic.items()})
    chosen: set[int] = set()
    for t, es in by_topic.items():
        es.sort(key=lambda e: (e.best_rank, e.doc))
        chosen.update(id(e) for e in es[:keep[t]])
    return Pool.presorted(tuple(e for e in entries if id(e) in chosen))


# Vectorised builders by strategy name: (runs, validated params, topics, depth, budget,
# total) -> Pool, identical to the generic path's pool.
FAST: dict[str, Callable[..., Pool]] = {"depth": _depth_fast}
