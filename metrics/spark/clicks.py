"""``clicks fit --engine spark``: click models whose sums Spark aggregates over the log.

The log is coded once (pair codes in the order the DuckDB path gives them: query id,
then document id, byte order) and cached in Spark; every model then reads the cached
rows, never the file again:

- counting models (GCTR, RCTR, DCTR, cascade, SDBN): their counts (clicks, examinations,
  last clicks per pair or rank) are integer aggregations, so the parameters, divided on
  the driver by the numpy path's formulas, are equal to the last bit;
- PBM and UBM by EM: the log is reduced once to its distinct (pair, examination index,
  click) cells with their counts, the numpy path's own reduction, cached and partitioned
  by pair. Each iteration broadcasts the parameters and sums the posteriors of every
  partition's cells (in the numpy path's order within a pair); Spark adds the partial
  sums per examination index, and the driver updates the parameters with the numpy
  path's M-step (:func:`relkit.metrics.online.clickmodels.pbm.m_step`). A pair's sums
  are the numpy path's to the bit; an examination index's are added over partitions in
  another order (a few ulps per iteration), so the parameters agree to about 1e-12;
- DBN, DCM and CCM by EM (:mod:`relkit.metrics.spark.clicks_chain`): the distinct
  sessions with their counts, partitioned and cached; each iteration runs the local
  chain E-step on every partition's sessions and Spark adds the partial sums (again
  equal up to summation order, about 1e-12).

Evaluation (log-likelihood, per-rank perplexity) runs the model's own
``probabilities`` on each partition's sessions and adds the partial sums: the same
numbers up to summation order.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.core.errors import FormatError

if TYPE_CHECKING:
    import pyarrow as pa
    from pyspark.sql import DataFrame, SparkSession

    from relkit.metrics.online.clickmodels.base import ClickModel, Evaluation
    from relkit.metrics.spark.logs import SparkLog

# The models this engine fits (every model of the registry; a model added later needs
# its Spark sums before it is listed here).
SPARK_MODELS: tuple[str, ...] = ("random", "gctr", "rctr", "dctr", "pbm", "ubm", "cascade",
                                 "sdbn", "dbn", "dcm", "ccm")


# Sessions per EM task: large enough that a task's Python start-up is small next to
# its work, small enough that a cluster's executors all get some.
SESSIONS_PER_TASK = 250_000


@dataclass
class CodedLog:
    """A click log coded for the models and cached in Spark.

    Attributes
    ----------
    rows
        Cached DataFrame: ``impression_id``, ``p`` (pair code), ``rank`` (1-based),
        ``c`` (clicked), for ranks ``1..max_rank`` with a document.
    queries, docs
        Pair code -> query id, document id (as :class:`ClickData` has them).
    n_sessions
        Distinct impressions.
    max_rank
        The width of the rank axis (the ``--max-rank`` option).
    """

    spark: SparkSession
    rows: DataFrame
    queries: np.ndarray
    docs: np.ndarray
    n_sessions: int
    max_rank: int

    @property
    def n_pairs(self) -> int:
        return len(self.queries)

    def em_partitions(self) -> int:
        """Partitions of the cached EM input: every core busy, a task at about
        :data:`SESSIONS_PER_TASK` sessions, at most ``spark.sql.shuffle.partitions``.
        Each partition is one Python task per EM iteration: the default 200 of them on
        a log of a few thousand sessions cost minutes of task start-ups for a fit that
        takes half a second on one machine."""
        cap = max(1, int(self.spark.conf.get("spark.sql.shuffle.partitions") or 1))
        cores = max(1, int(self.spark.sparkContext.defaultParallelism))
        return min(cap, max(cores, -(-self.n_sessions // SESSIONS_PER_TASK)))

    def release(self) -> None:
        """Drop the cached rows."""
        self.rows.unpersist()


def code_log(spark: SparkSession, log: SparkLog, max_rank: int = 10) -> CodedLog:
    """Code and cache ``log`` (results at ranks ``1..max_rank`` with a document).

    Raises :class:`FormatError` at an impression showing two results at one rank (named
    by its impression id and rank: Spark has no file row numbers to give).
    """
    import pyarrow as pa
    from pyspark.sql import functions as F

    rows = (log.df.where((F.col("rank") >= 1) & (F.col("rank") <= int(max_rank))
                         & F.col("doc_id").isNotNull())
            .select("impression_id", "query_id", "doc_id", F.col("rank").cast("int")
                    .alias("rank"), (F.col("clicked") > 0).alias("c")))
    dup = (rows.groupBy("impression_id", "rank").count().where(F.col("count") > 1)
           .orderBy("impression_id", "rank").limit(1).collect())
    if dup:
        raise FormatError(log.path, None, f"one result per rank in column "
                          f"{log.columns['rank']!r}", f"a second result at rank "
                          f"{dup[0]['rank']} of impression {dup[0]['impression_id']!r} "
                          "(relkit clicks validate lists them all)")
    pairs = rows.select("query_id", "doc_id").distinct().toArrow()
    # Codes in the DuckDB path's order (ORDER BY query_id, doc_id): Python's str order
    # is code-point order, which is the byte order of UTF-8 both engines sort by.
    order = sorted(zip(pairs.column("query_id").to_pylist(),
                       pairs.column("doc_id").to_pylist(), strict=True))
    queries = np.asarray([q for q, _ in order], dtype=object)
    docs = np.asarray([d for _, d in order], dtype=object)
    codes = spark.createDataFrame(pa.table({
        "query_id": pa.array(list(queries), pa.string()),
        "doc_id": pa.array(list(docs), pa.string()),
        "p": pa.array(np.arange(len(order), dtype=np.int64))}))
    coded = (rows.join(F.broadcast(codes) if len(order) <= 1_000_000 else codes,
                       ["query_id", "doc_id"])
             .select("impression_id", "p", "rank", "c").persist())
    n = coded.select("impression_id").distinct().count()
    return CodedLog(spark, coded, queries, docs, int(n), int(max_rank))


def _by(df: DataFrame, key: str, size: int, *aggs: Any) -> list[np.ndarray]:
    """Per-``key`` integer aggregates as dense int64 arrays of length ``size``."""
    tab = df.groupBy(key).agg(*aggs).toArrow()
    idx = np.asarray(tab.column(key).to_numpy(zero_copy_only=False), dtype=np.int64)
    out = []
    for name in tab.column_names[1:]:
        arr = np.zeros(size, dtype=np.int64)
        arr[idx] = np.asarray(tab.column(name).to_numpy(zero_copy_only=False), dtype=np.int64)
        out.append(arr)
    return out


def _model(name: str) -> ClickModel:
    from relkit.metrics.online.clickmodels.registry import MODELS

    return MODELS[name]()


def fit_spark(data: CodedLog, name: str, *, iterations: int = 50, seed: int = 0
              ) -> ClickModel:
    """Fit model ``name`` (one of :data:`SPARK_MODELS`) on the coded log, as
    ``MODELS[name]().fit(data, iterations=..., seed=...)`` does on a :class:`ClickData`."""
    from pyspark.sql import functions as F

    from relkit.metrics.online.clickmodels.cascade import SDBN, Cascade
    from relkit.metrics.online.clickmodels.ctr import DCTR, GCTR, RCTR, RandomClickModel
    from relkit.metrics.online.clickmodels.sums import ChainModel

    if name not in SPARK_MODELS:
        raise ValueError(f"model {name!r} is not fitted on Spark; use one of "
                         f"{', '.join(SPARK_MODELS)}")
    m = _model(name)
    m.queries, m.docs, m.max_rank = data.queries, data.docs, data.max_rank
    rows, n_p, big_r = data.rows, data.n_pairs, data.max_rank
    click = F.col("c").cast("long")
    (m.counts, clicks) = _by(rows, "p", n_p, F.count("*"), F.sum(click))
    rng = np.random.default_rng(seed)
    if isinstance(m, RandomClickModel):
        m.params = m.fixed_params()   # nothing to fit
    elif isinstance(m, GCTR):
        m.from_counts(clicks.sum(), int(m.counts.sum()))
    elif isinstance(m, RCTR):
        m.from_counts(*_by(rows.withColumn("r", F.col("rank") - 1), "r", big_r,
                           F.count("*"), F.sum(click)))
    elif isinstance(m, DCTR):
        m.from_counts(clicks.astype(np.float64))
    elif isinstance(m, (Cascade, SDBN)):
        m.from_counts(*_cascade_like(data, name))
    elif isinstance(m, ChainModel):
        from relkit.metrics.spark.clicks_chain import fit_chain

        fit_chain(data, m, iterations, rng)
    else:
        _fit_em(data, m, name, iterations, rng)
    return m


def _cascade_like(data: CodedLog, name: str) -> list[np.ndarray]:
    """The counts of the cascade model (examinations, clicks per pair) and of the SDBN
    (examinations, clicks, last clicks) (see :mod:`.cascade`)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    rows, n_p = data.rows, data.n_pairs
    w = Window.partitionBy("impression_id")
    click_rank = F.when(F.col("c"), F.col("rank"))
    if name == "cascade":
        # examined: up to and including the first click (every result without one)
        first = F.coalesce(F.min(click_rank).over(w), F.lit(data.max_rank + 1))
        ex = rows.withColumn("first", first).where(F.col("rank") <= F.col("first"))
        return _by(ex, "p", n_p, F.count("*"), F.sum(F.col("c").cast("long")))
    # SDBN: examined up to the last click (the last shown result without one)
    last = F.coalesce(F.max(click_rank).over(w), F.max("rank").over(w))
    ex = rows.withColumn("last", last).where(F.col("rank") <= F.col("last"))
    return _by(ex, "p", n_p, F.count("*"), F.sum(F.col("c").cast("long")),
               F.sum((F.col("c") & (F.col("rank") == F.col("last"))).cast("long")))


def _cells(data: CodedLog, name: str) -> tuple[DataFrame, int]:
    """The distinct (pair, examination index, click) cells with counts, and the number
    of examination indices (ranks for PBM; rank x previous click for UBM)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    big_r = data.max_rank
    rows = data.rows
    if name == "pbm":
        exam = F.col("rank") - 1
        n_exam = big_r
    else:
        w = (Window.partitionBy("impression_id").orderBy("rank")
             .rowsBetween(Window.unboundedPreceding, -1))
        prev = F.coalesce(F.max(F.when(F.col("c"), F.col("rank"))).over(w), F.lit(0))
        exam = (F.col("rank") - 1) * (big_r + 1) + prev
        n_exam = big_r * (big_r + 1)
    cells = (rows.select("p", exam.cast("long").alias("e"), F.col("c"))
             .groupBy("p", "e", "c").agg(F.count("*").alias("w")))
    return cells, n_exam


def _fit_em(data: CodedLog, m: ClickModel, name: str, iterations: int,
            rng: np.random.Generator) -> None:
    """PBM/UBM by EM (see :func:`relkit.metrics.online.clickmodels.pbm._em`)."""
    from pyspark.sql import functions as F

    from relkit.metrics.online.clickmodels.pbm import m_step, normalise

    n_p = data.n_pairs
    cells, n_exam = _cells(data, name)
    alpha = rng.uniform(0.4, 0.6, n_p)
    gamma = rng.uniform(0.4, 0.6, n_exam)
    # Partitioned by pair and sorted as numpy's cell keys ((pair, exam, click)): every
    # pair's cells sit in one partition in numpy's order. Cached: the 50 iterations
    # read these cells, not the log.
    parts = data.em_partitions()
    cells = (cells.repartitionByRange(parts, "p").sortWithinPartitions("p", "e", "c")
             .persist())
    wl = F.col("w")
    n_a, c_a = _by(cells, "p", n_p, F.sum(wl), F.sum(F.when(F.col("c"), wl).otherwise(0)))
    n_g, c_g = _by(cells, "e", n_exam, F.sum(wl), F.sum(F.when(F.col("c"), wl).otherwise(0)))
    n_a_f, n_g_f = n_a.astype(np.float64), n_g.astype(np.float64)
    c_a_f, c_g_f = c_a.astype(np.float64), c_g.astype(np.float64)
    noclick = cells.where(~F.col("c")).select("p", "e", "w")
    sc = data.spark.sparkContext
    trace: list[float] = []
    try:
        for _ in range(iterations + 1):
            b = sc.broadcast((alpha, gamma))
            post_a, post_g, ll = _e_step(noclick, b, n_p, n_exam)
            b.unpersist()
            trace.append(float(c_a_f @ np.log(np.maximum(alpha, 1e-300))
                               + c_g_f @ np.log(np.maximum(gamma, 1e-300)) + ll))
            if len(trace) > iterations:
                break
            alpha, gamma = m_step(alpha, gamma, n_a_f, n_g_f, c_a_f + post_a, c_g_f + post_g)
    finally:
        cells.unpersist()
    alpha, gamma = normalise(alpha, gamma)
    m.params = {"alpha": alpha, "gamma": gamma}
    m.trace = trace


def _e_step(noclick: DataFrame, params: Any, n_p: int, n_exam: int
            ) -> tuple[np.ndarray, np.ndarray, float]:
    """One E-step over the unclicked cells: per-pair and per-index posterior sums and
    the log-likelihood term ``sum w ln(1 - alpha gamma)``."""
    from pyspark.sql import functions as F

    def partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import numpy as np
        import pyarrow as pa

        alpha, gamma = params.value
        got = list(batches)
        if not got:
            return
        tab = pa.Table.from_batches(got)
        pair = tab.column("p").to_numpy()
        exam = tab.column("e").to_numpy()
        w = tab.column("w").to_numpy().astype(np.float64)
        a, g = alpha[pair], gamma[exam]
        one_minus = np.maximum(1 - a * g, 1e-300)
        inv = w / one_minus
        # The pair's sums in numpy's order (bincount adds in array order); only the
        # pairs of this partition are sent back.
        pa_sum = np.bincount(pair, a * (1 - g) * inv)
        seen = np.unique(pair)
        pg = np.bincount(exam, g * (1 - a) * inv, n_exam)
        seen_g = np.flatnonzero(np.bincount(exam, minlength=n_exam))
        ll = float(np.log(one_minus) @ w)
        kind = np.concatenate([np.zeros(len(seen), np.int8), np.ones(len(seen_g), np.int8),
                               np.full(1, 2, np.int8)])
        idx = np.concatenate([seen, seen_g, [0]]).astype(np.int64)
        val = np.concatenate([pa_sum[seen], pg[seen_g], [ll]])
        yield pa.RecordBatch.from_arrays([pa.array(kind), pa.array(idx), pa.array(val)],
                                         ["k", "i", "v"])

    out = (noclick.mapInArrow(partition, "k tinyint, i long, v double")
           .groupBy("k", "i").agg(F.sum("v").alias("v")).toArrow())
    k = np.asarray(out.column("k").to_numpy(zero_copy_only=False))
    i = np.asarray(out.column("i").to_numpy(zero_copy_only=False), dtype=np.int64)
    v = np.asarray(out.column("v").to_numpy(zero_copy_only=False), dtype=np.float64)
    post_a = np.zeros(n_p)
    post_a[i[k == 0]] = v[k == 0]
    post_g = np.zeros(n_exam)
    post_g[i[k == 1]] = v[k == 1]
    return post_a, post_g, float(v[k == 2].sum())


def evaluate_spark(model: ClickModel, data: CodedLog) -> Evaluation:
    """Log-likelihood and per-rank perplexity (as
    :func:`relkit.metrics.online.clickmodels.base.evaluate`), each partition's sessions
    through the model's own ``probabilities``, the partial sums added by Spark."""
    from pyspark.sql import functions as F

    from relkit.metrics.online.clickmodels.base import EPS, Evaluation

    big_r = data.max_rank
    b = data.spark.sparkContext.broadcast(model)

    def partition(batches: Iterator[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import numpy as np
        import pyarrow as pa

        got = list(batches)
        if not got:
            return
        m = b.value
        tab = pa.Table.from_batches(got)
        imp = tab.column("impression_id").to_numpy(zero_copy_only=False)
        _, s = np.unique(imp.astype(str), return_inverse=True)
        r = tab.column("rank").to_numpy() - 1
        pair = np.full((int(s.max()) + 1, big_r), -1, dtype=np.int64)
        click = np.zeros(pair.shape, dtype=bool)
        pair[s, r] = tab.column("p").to_numpy()
        click[s, r] = tab.column("c").to_numpy(zero_copy_only=False)
        shown = pair >= 0
        cond, marg = m.probabilities(pair, click)
        cond = np.clip(cond, EPS, 1 - EPS)
        marg = np.clip(marg, EPS, 1 - EPS)
        ll = np.where(shown, np.where(click, np.log(cond), np.log1p(-cond)), 0.0).sum()
        lg = np.where(shown, np.where(click, np.log2(marg), np.log2(1 - marg)), 0.0)
        kind = np.concatenate([[0], np.ones(big_r), np.full(big_r, 2)]).astype(np.int8)
        idx = np.concatenate([[0], np.arange(big_r), np.arange(big_r)]).astype(np.int64)
        val = np.concatenate([[ll], lg.sum(axis=0), shown.sum(axis=0).astype(np.float64)])
        yield pa.RecordBatch.from_arrays([pa.array(kind), pa.array(idx), pa.array(val)],
                                         ["k", "i", "v"])

    try:
        out = (data.rows.repartition("impression_id")
               .mapInArrow(partition, "k tinyint, i long, v double")
               .groupBy("k", "i").agg(F.sum("v").alias("v")).toArrow())
    finally:
        b.unpersist()
    k = np.asarray(out.column("k").to_numpy(zero_copy_only=False))
    i = np.asarray(out.column("i").to_numpy(zero_copy_only=False), dtype=np.int64)
    v = np.asarray(out.column("v").to_numpy(zero_copy_only=False), dtype=np.float64)
    lg = np.zeros(big_r)
    lg[i[k == 1]] = v[k == 1]
    n_r = np.zeros(big_r, dtype=np.int64)
    n_r[i[k == 2]] = np.rint(v[k == 2]).astype(np.int64)
    ll = float(v[k == 0].sum())
    with np.errstate(invalid="ignore", divide="ignore"):
        perp = np.where(n_r > 0, 2.0 ** (-lg / np.maximum(n_r, 1)), np.nan)
    n = max(data.n_sessions, 1)
    return Evaluation(float(ll / n), [float(x) for x in perp], [int(x) for x in n_r])
