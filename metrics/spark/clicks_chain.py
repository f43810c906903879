"""``clicks fit --engine spark`` for the chain models (DBN, DCM, CCM), by exact EM.

The local path (:mod:`relkit.metrics.online.clickmodels.chain`) reduces the log to its
distinct sessions with their counts and runs the E-step block by block. Here Spark does
the reduction (each impression coded as the local path codes a session row: ``pair * 2
+ click`` per rank, ``-1`` where nothing is shown, grouped with a count), the distinct
sessions are partitioned and cached, and every iteration is one ``mapInArrow`` pass:
each partition turns its sessions into the local path's blocks
(:func:`~relkit.metrics.online.clickmodels.chain.block_of`), runs the local E-step
(:func:`~relkit.metrics.online.clickmodels.chain.e_step`) and sends back its partial
sums, which Spark adds; the driver applies the model's M-step.

The fixed counts (impressions, clicks, cells above the last click) are sums of integer
weights, so they are the local path's exactly. The posterior sums are the same terms
added in another order (partition by partition instead of block by block), so each
iteration's sums agree to a few ulps and the fitted parameters and EM trace to about
1e-12 (EM is a contraction near its fixed point: the rounding does not grow).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from relkit.metrics.online.clickmodels.base import ClickModel
    from relkit.metrics.online.clickmodels.chain import Pages


class CodedLog(Protocol):
    """What this module reads of :class:`relkit.metrics.spark.clicks.CodedLog` (a
    protocol: :mod:`.clicks` imports this module)."""

    spark: SparkSession
    rows: DataFrame
    max_rank: int

    @property
    def n_pairs(self) -> int: ...

    def em_partitions(self) -> int: ...

CHAIN_MODELS = ("dbn", "dcm", "ccm")

# Sums with one value per rank; scalars; every other sum has one value per pair.
_BY_RANK = frozenset({"n_obs", "went_on", "on"})
_SCALAR = frozenset({"log_t", "g_num", "g_den", "go", "exam_obs", "z1_on", "z0_on",
                     "z1_all", "z0_all"})
_COMMON = ("n_pair", "n_click", "n_tail", "pre_skip")
_FIXED = {"dbn": (*_COMMON, "pre_click"), "dcm": (*_COMMON, "n_obs", "went_on"),
          "ccm": (*_COMMON, "pre_click", "last_obs")}
_ITER = {"dbn": ("log_t", "a_sub", "s_num", "g_num", "g_den"),
         "dcm": ("log_t", "a_sub", "on"),
         "ccm": ("log_t", "a_sub", "go", "exam_obs", "z_last", "z1_on", "z0_on", "z1_all",
                 "z0_all")}


def fixed_sums(name: str, pg: Pages, n_p: int, r_max: int) -> dict[str, np.ndarray]:
    """The counts of block ``pg`` that do not change over the iterations (the
    ``fixed_counts`` of the model's local ``_fit``)."""
    from relkit.metrics.online.clickmodels.chain import fixed_counts
    from relkit.metrics.online.clickmodels.dcm import _obs_last

    def by_pair(cells: Callable[[Pages], Any]) -> np.ndarray:
        return fixed_counts([pg], cells, n_p)

    out = {"n_pair": by_pair(lambda b: b.shown), "n_click": by_pair(lambda b: b.click),
           "n_tail": by_pair(lambda b: b.tail),
           "pre_skip": by_pair(lambda b: b.pre & ~b.click)}
    if name in ("dbn", "ccm"):
        out["pre_click"] = by_pair(lambda b: b.pre & b.click)
    if name == "dcm":
        out["n_obs"] = fixed_counts([pg], lambda b: (b.click & b.pre) | _obs_last(b), r_max,
                                    by="rank")
        out["went_on"] = fixed_counts([pg], lambda b: b.click & b.pre, r_max, by="rank")
    if name == "ccm":
        o = pg.l_obs
        out["last_obs"] = np.bincount(pg.l_pair[o], pg.weight[o], n_p + 1)[:n_p]
    return out


def iteration_sums(name: str, pg: Pages, theta: tuple[Any, ...], n_p: int, r_max: int
                   ) -> dict[str, np.ndarray]:
    """One E-step's partial sums over block ``pg`` at parameters ``theta`` (the loop
    body of the model's local ``_fit``)."""
    from relkit.metrics.online.clickmodels.chain import e_step

    a_ext = np.append(theta[0], 0.0)
    a = a_ext[pg.pair]
    o = pg.l_obs
    if name == "dbn":
        _, sigma, gamma = theta
        sl = np.append(sigma, 0.0)[pg.l_pair]
        post = e_step(pg, a, gamma, np.where(pg.has, gamma * (1 - sl), 1.0))
        keep_on = float(((1 - sl) * gamma * post.on)[o].sum())
        keep_stop = float(((1 - sl) * (1 - gamma) * post.inv)[o].sum())
        extra = {"s_num": np.bincount(pg.l_pair, sl * post.inv, n_p + 1)[:n_p],
                 "g_num": np.array([post.go + keep_on]),
                 "g_den": np.array([post.exam_obs + keep_on + keep_stop])}
    elif name == "dcm":
        lam = theta[1]
        kl = lam[pg.l_rank]
        post = e_step(pg, a, 1.0, np.where(pg.has, kl, 1.0))
        extra = {"on": np.bincount(pg.l_rank[o], (kl * post.on)[o], r_max)}
    else:
        _, t1, t2, t3 = theta
        al = a_ext[pg.l_pair]
        post = e_step(pg, a, t1, np.where(pg.has, t2 * (1 - al) + t3 * al, 1.0))
        al, on, inv = al[o], post.on[o], post.inv[o]
        z1o, z0o = al * t3 * on, (1 - al) * t2 * on
        z1 = z1o + al * (1 - t3) * inv
        extra = {"go": np.array([post.go]), "exam_obs": np.array([post.exam_obs]),
                 "z_last": np.bincount(pg.l_pair[o], z1, n_p + 1)[:n_p],
                 "z1_on": np.array([z1o.sum()]), "z0_on": np.array([z0o.sum()]),
                 "z1_all": np.array([z1.sum()]),
                 "z0_all": np.array([(z0o + (1 - al) * (1 - t2) * inv).sum()])}
    a_sub = np.bincount(pg.pair.ravel(), (post.exam * a).ravel(), n_p + 1)[:n_p]
    return {"log_t": np.array([post.log_t]), "a_sub": a_sub, **extra}


def distinct_sessions(data: CodedLog) -> DataFrame:
    """The distinct sessions (``s``: ``max_rank`` codes ``pair * 2 + click``, ``-1``
    where nothing is shown) with their counts ``w``, partitioned and cached."""
    from pyspark.sql import functions as F

    big_r = data.max_rank

    def code(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import numpy as np
        import pyarrow as pa

        got = list(batches)
        if not got:
            return
        tab = pa.Table.from_batches(got)
        imp = tab.column("impression_id").to_numpy(zero_copy_only=False)
        _, s = np.unique(imp.astype(str), return_inverse=True)
        codes = np.full((int(s.max()) + 1, big_r), -1, dtype=np.int64)
        clicked = np.asarray(tab.column("c").to_numpy(zero_copy_only=False), dtype=np.int64)
        codes[s, tab.column("rank").to_numpy() - 1] = tab.column("p").to_numpy() * 2 + clicked
        offsets = pa.array(np.arange(codes.shape[0] + 1, dtype=np.int32) * big_r)
        yield pa.RecordBatch.from_arrays(
            [pa.ListArray.from_arrays(offsets, pa.array(codes.ravel()))], ["s"])

    parts = data.em_partitions()
    return (data.rows.repartition("impression_id").mapInArrow(code, "s array<long>")
            .groupBy("s").agg(F.count("*").alias("w"))
            .repartition(parts, "s").persist())


def _sums(sessions: DataFrame, name: str, n_p: int, r_max: int, theta: Any
          ) -> dict[str, Any]:
    """Partial sums of every partition (fixed counts when ``theta`` is None), added by
    Spark: one array per sum name (a float for the scalars)."""
    from pyspark.sql import functions as F

    from relkit.metrics.online.clickmodels.chain import BLOCK

    def partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import numpy as np
        import pyarrow as pa

        from relkit.metrics.online.clickmodels.chain import block_of

        got = list(batches)
        if not got:
            return
        tab = pa.Table.from_batches(got)
        uniq = (tab.column("s").combine_chunks().flatten().to_numpy()
                .reshape(-1, r_max))
        weight = tab.column("w").to_numpy()
        total: dict[str, np.ndarray] = {}
        par = None if theta is None else theta.value
        for i in range(0, len(uniq), BLOCK):
            pg = block_of(uniq[i : i + BLOCK], weight[i : i + BLOCK], n_p)
            part = (fixed_sums(name, pg, n_p, r_max) if par is None
                    else iteration_sums(name, pg, par, n_p, r_max))
            for k, v in part.items():
                total[k] = total[k] + v if k in total else v
        if not total:
            return
        # only the nonzero entries: a partition sees few of the pairs
        nz = {k: np.flatnonzero(v) for k, v in total.items()}
        yield pa.RecordBatch.from_arrays(
            [pa.array([k for k in total for _ in nz[k]], pa.string()),
             pa.array(np.concatenate([nz[k] for k in total]).astype(np.int64)),
             pa.array(np.concatenate([total[k][nz[k]] for k in total]).astype(np.float64))],
            ["k", "i", "v"])

    out = (sessions.mapInArrow(partition, "k string, i long, v double")
           .groupBy("k", "i").agg(F.sum("v").alias("v")).toArrow())
    k = np.asarray(out.column("k").to_pylist(), dtype=object)
    i = np.asarray(out.column("i").to_numpy(zero_copy_only=False), dtype=np.int64)
    v = np.asarray(out.column("v").to_numpy(zero_copy_only=False), dtype=np.float64)
    res: dict[str, Any] = {}
    for key in _FIXED[name] if theta is None else _ITER[name]:
        size = 1 if key in _SCALAR else r_max if key in _BY_RANK else n_p
        arr = np.zeros(size)
        arr[i[k == key]] = v[k == key]
        res[key] = float(arr[0]) if key in _SCALAR else arr
    return res


def fit_chain(data: CodedLog, m: ClickModel, name: str, iterations: int,
              rng: np.random.Generator) -> None:
    """Fit DBN, DCM or CCM (``name``) into ``m`` on the coded log, drawing the initial
    parameters from ``rng`` as the model's local ``_fit`` does."""
    from relkit.metrics.online.clickmodels.chain import log0

    n_p, r_max = data.n_pairs, data.max_rank
    sessions = distinct_sessions(data)
    sc = data.spark.sparkContext

    def sums(theta: tuple[Any, ...]) -> dict[str, Any]:
        b = sc.broadcast(theta)
        try:
            return _sums(sessions, name, n_p, r_max, b)
        finally:
            b.unpersist()

    try:
        f = _sums(sessions, name, n_p, r_max, None)
        step = {"dbn": _dbn, "dcm": _dcm, "ccm": _ccm}[name]
        m.params, m.trace = step(f, sums, n_p, r_max, iterations, rng, log0)
    finally:
        sessions.unpersist()


Sums = Callable[[tuple[Any, ...]], dict[str, Any]]
Log0 = Callable[[Any], Any]


def _dbn(f: dict[str, Any], sums: Sums, n_p: int, r_max: int, iterations: int,
         rng: np.random.Generator, log0: Log0) -> tuple[dict[str, Any], list[float]]:
    """DBN's EM loop (:class:`~relkit.metrics.online.clickmodels.dbn.DBN`)."""
    alpha = rng.uniform(0.4, 0.6, n_p)
    sigma = rng.uniform(0.4, 0.6, n_p)
    gamma = float(rng.uniform(0.4, 0.6))
    n_pair, n_click, n_tail = f["n_pair"], f["n_click"], f["n_tail"]
    pre_skip, pre_click = f["pre_skip"], f["pre_click"]
    n_pre = float(pre_skip.sum() + pre_click.sum())
    trace: list[float] = []
    for _ in range(iterations + 1):
        s = sums((alpha, sigma, gamma))
        ll = (n_click @ log0(alpha) + pre_skip @ log0(1 - alpha)
              + pre_click @ log0(1 - sigma) + n_pre * float(log0(np.array(gamma))))
        trace.append(float(ll + s["log_t"]))
        if len(trace) > iterations:
            break
        alpha = np.where(n_pair > 0, (n_click + alpha * n_tail - s["a_sub"])
                         / np.maximum(n_pair, 1), alpha)
        sigma = np.where(n_click > 0, s["s_num"] / np.maximum(n_click, 1), sigma)
        g_den = n_pre + s["g_den"]
        gamma = (n_pre + s["g_num"]) / g_den if g_den > 0 else gamma
    return {"alpha": alpha, "sigma": sigma, "gamma": np.array([gamma])}, trace


def _dcm(f: dict[str, Any], sums: Sums, n_p: int, r_max: int, iterations: int,
         rng: np.random.Generator, log0: Log0) -> tuple[dict[str, Any], list[float]]:
    """DCM's EM loop (:class:`~relkit.metrics.online.clickmodels.dcm.DCM`)."""
    alpha = rng.uniform(0.4, 0.6, n_p)
    lam = rng.uniform(0.4, 0.6, r_max)
    n_pair, n_click, n_tail = f["n_pair"], f["n_click"], f["n_tail"]
    pre_skip, n_obs, went_on = f["pre_skip"], f["n_obs"], f["went_on"]
    trace: list[float] = []
    for _ in range(iterations + 1):
        s = sums((alpha, lam))
        ll = n_click @ log0(alpha) + pre_skip @ log0(1 - alpha) + went_on @ log0(lam)
        trace.append(float(ll + s["log_t"]))
        if len(trace) > iterations:
            break
        alpha = np.where(n_pair > 0, (n_click + alpha * n_tail - s["a_sub"])
                         / np.maximum(n_pair, 1), alpha)
        lam = np.where(n_obs > 0, (went_on + s["on"]) / np.maximum(n_obs, 1e-300), lam)
    return {"alpha": alpha, "lambda": lam}, trace


def _ccm(f: dict[str, Any], sums: Sums, n_p: int, r_max: int, iterations: int,
         rng: np.random.Generator, log0: Log0) -> tuple[dict[str, Any], list[float]]:
    """CCM's EM loop (:class:`~relkit.metrics.online.clickmodels.ccm.CCM`)."""
    alpha = rng.uniform(0.4, 0.6, n_p)
    t1, t2, t3 = (float(x) for x in rng.uniform(0.4, 0.6, 3))
    n_click, n_tail = f["n_click"], f["n_tail"]
    pre_skip, pre_click = f["pre_skip"], f["pre_click"]
    n_skip = float(pre_skip.sum())
    n_alpha = f["n_pair"] + pre_click + f["last_obs"]
    trace: list[float] = []
    for _ in range(iterations + 1):
        s = sums((alpha, t1, t2, t3))
        kappa = t2 * (1 - alpha) + t3 * alpha
        ll = (n_click @ log0(alpha) + pre_skip @ log0(1 - alpha)
              + n_skip * float(log0(np.array(t1))) + pre_click @ log0(kappa))
        trace.append(float(ll + s["log_t"]))
        if len(trace) > iterations:
            break
        z_pre = pre_click * alpha * t3 / np.maximum(kappa, 1e-300)
        num = n_click + alpha * n_tail - s["a_sub"] + z_pre + s["z_last"]
        alpha = np.where(n_alpha > 0, num / np.maximum(n_alpha, 1e-300), alpha)
        zp1 = float(z_pre.sum())
        zp0 = float(pre_click.sum()) - zp1
        if n_skip + s["exam_obs"] > 0:
            t1 = (n_skip + s["go"]) / (n_skip + s["exam_obs"])
        if zp1 + s["z1_all"] > 0:
            t3 = (zp1 + s["z1_on"]) / (zp1 + s["z1_all"])
        if zp0 + s["z0_all"] > 0:
            t2 = (zp0 + s["z0_on"]) / (zp0 + s["z0_all"])
    return {"alpha": alpha, "tau": np.array([t1, t2, t3])}, trace
