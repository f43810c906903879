"""``clicks fit --engine spark`` for the chain models (DBN, DCM, CCM), by exact EM.

The local path (:mod:`relkit.metrics.online.clickmodels.chain`) reduces the log to its
distinct sessions with their counts and runs the E-step block by block. Here Spark does
the reduction (each impression coded as the local path codes a session row: ``pair * 2
+ click`` per rank, ``-1`` where nothing is shown, grouped with a count), the distinct
sessions are partitioned and cached, and every iteration is one ``mapInArrow`` pass:
each partition turns its sessions into the local path's blocks
(:func:`~relkit.metrics.online.clickmodels.chain.block_of`), runs the local E-step
(:func:`~relkit.metrics.online.clickmodels.chain.e_step`) and sends back its partial
sums, which Spark adds; the driver applies the model's M-step. Which sums a model
needs, and its M-step, are the model's own
(:class:`~relkit.metrics.online.clickmodels.sums.ChainModel`): the local and the Spark
engine run the same code on their blocks and only add the sums differently.

The fixed counts (impressions, clicks, cells above the last click) are sums of integer
weights, so they are the local path's exactly. The posterior sums are the same terms
added in another order (partition by partition instead of block by block), so each
iteration's sums agree to a few ulps and the fitted parameters and EM trace to about
1e-12 (EM is a contraction near its fixed point: the rounding does not grow).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from relkit.metrics.online.clickmodels.sums import ChainModel, Sums, Theta


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


@dataclass
class SparkSessions:
    """The distinct sessions of a coded log, partitioned and cached in Spark."""

    rows: DataFrame
    n_pairs: int
    max_rank: int


def em_sums(model: ChainModel, sessions: SparkSessions, theta: Theta | None, into: Sums
            ) -> Sums:
    """The partial sums of every partition, added by Spark, then into ``into``: the
    model's fixed counts when ``theta`` is None, else one E-step's sums at ``theta``
    (broadcast). The Spark engine's ``em_sums``."""
    n_p, r_max = sessions.n_pairs, sessions.max_rank
    blank = type(model)()    # what the tasks need of the model: its methods
    shared = None if theta is None else sessions.rows.sparkSession.sparkContext.broadcast(
        theta)
    try:
        got = _partition_sums(sessions.rows, blank, n_p, r_max, shared)
    finally:
        if shared is not None:
            shared.unpersist()
    for key, value in got.items():
        into[key] = into[key] + value
    return into


def _partition_sums(rows: DataFrame, model: ChainModel, n_p: int, r_max: int, theta: Any
                    ) -> dict[str, Any]:
    """Every partition's sums (fixed counts when ``theta`` is None), added by Spark."""
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
            part = (model.fixed_sums(pg, n_p, r_max) if par is None
                    else model.block_sums(pg, par, n_p, r_max))
            for k, v in part.items():
                v = np.atleast_1d(np.asarray(v, dtype=np.float64))
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

    out = (rows.mapInArrow(partition, "k string, i long, v double")
           .groupBy("k", "i").agg(F.sum("v").alias("v")).toArrow())
    k = np.asarray(out.column("k").to_pylist(), dtype=object)
    i = np.asarray(out.column("i").to_numpy(zero_copy_only=False), dtype=np.int64)
    v = np.asarray(out.column("v").to_numpy(zero_copy_only=False), dtype=np.float64)
    shapes = model.fixed_shapes if theta is None else model.sum_shapes
    got: dict[str, Any] = {}
    for key, shape in shapes.items():
        size = 1 if shape == "scalar" else r_max if shape == "rank" else n_p
        arr = np.zeros(size)
        arr[i[k == key]] = v[k == key]
        got[key] = float(arr[0]) if shape == "scalar" else arr
    return got


def fit_chain(data: CodedLog, m: ChainModel, iterations: int, rng: np.random.Generator
              ) -> None:
    """Fit DBN, DCM or CCM ``m`` on the coded log by its own EM
    (:meth:`~relkit.metrics.online.clickmodels.sums.ChainModel.fit_on`), drawing the
    initial parameters from ``rng`` as the local fit does."""
    sessions = SparkSessions(distinct_sessions(data), data.n_pairs, data.max_rank)
    try:
        m.fit_on(em_sums, sessions, data.n_pairs, data.max_rank, iterations, rng)
    finally:
        sessions.rows.unpersist()
