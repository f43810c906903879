"""``ab analyze --engine spark``: the per-user sufficient statistics, aggregated by Spark.

The log is reduced by Spark SQL to one row per user with the very SQL the DuckDB path
runs (:func:`relkit.metrics.online.ab.users.user_sql`: both engines parse it), joined
with the assignment table as :func:`~relkit.metrics.online.ab.users.user_table` does,
and only the per-user sums come back to the driver, as the same
:class:`~relkit.metrics.online.ab.users.UserTable`; the statistics downstream
(:func:`~relkit.metrics.online.ab.analysis.analyze`) are the single-machine code.

Equality with the DuckDB path: every per-user sum of a 0/1 metric and every count is an
integer summed as an integer (exact, whatever the partitioning); the users come back in
the same order (``unit_id``, byte order in both engines), so the report is the same to
the last bit. The one float sum is ``time_to_first_click``'s (and its squares): a
user's clicked queries' times added in the order the engine meets them, which neither
engine fixes; a per-user sum differs by at most a few ulps (relative 1e-15 per user, and
the tests allow 1e-12 on the report).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from relkit.metrics.online.ab.users import (
    Metric,
    Names,
    UserTable,
    missing_covariate,
    moved_user,
    per_user,
    reused_impression,
    stray_user,
    user_sql,
)

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

    from relkit.metrics.spark.logs import SparkAssignments, SparkLog

# The canonical columns are typed as the DuckDB view types them; user_sql asks for
# the types only to turn times into seconds, which the reader has done already.
_TYPES = {"ts": "DOUBLE", "click_ts": "DOUBLE"}

# Spark's types named as DuckDB names them, for the numeric check of a CUPED column.
_NUMERIC = ("double", "float", "bigint", "int", "smallint", "tinyint", "decimal")


def spark_sql(sql: str) -> str:
    """DuckDB's SQL of :mod:`relkit.metrics.online.ab.users` in Spark's dialect: the one
    difference it meets is ``VARCHAR``, which Spark spells ``STRING``."""
    return sql.replace("::VARCHAR", "::STRING")


def _view(df: DataFrame, name: str) -> str:
    df.createOrReplaceTempView(name)
    return name


def spark_user_table(spark: SparkSession, log: SparkLog, assign: SparkAssignments,
                     metrics: Sequence[Metric], *, pre: SparkLog | None = None,
                     pre_columns: dict[str, str] | None = None,
                     good_dwell: float = 30.0) -> UserTable:
    """The :class:`UserTable` of ``log`` and ``assign``, aggregated by Spark.

    Same contract as :func:`relkit.metrics.online.ab.users.user_table` (without
    ``until``): every assigned unit is a row (zeros without impressions), a user of the
    log missing from the assignment or logged under another arm is an :class:`ABError`,
    ``pre`` is a pre-period log and ``pre_columns`` maps a metric to an assignment
    column holding its pre-period value (CUPED).
    """
    import numpy as np

    types = {c: _TYPES.get(c, "VARCHAR") for c in log.fields}
    lv = _view(log.df, "relkit_spark_log")
    av = _view(assign.df, "relkit_spark_assign")
    cur = spark.sql(spark_sql(user_sql(lv, metrics, types, good_dwell=good_dwell)))
    # One row per user: cached so the unit checks and the join do not rescan the log.
    cur = cur.cache()
    cv = _view(cur, "relkit_spark_cur")
    files = Names(log.path, assign.path, pre.path if pre is not None else "")
    try:
        _check_impressions(spark, cv, log, files.log)
        _check_units(spark, cv, av, "variant" in types, files)
        select = ["CAST(a.unit_id AS STRING) AS unit_id", "CAST(a.variant AS STRING) AS variant"]
        for i, m in enumerate(metrics):
            one = "1.0D" if per_user(m) else "0.0D"
            select += [f"coalesce(CAST(c.n{i} AS DOUBLE), 0.0D) AS n{i}",
                       f"coalesce(CAST(c.d{i} AS DOUBLE), {one}) AS d{i}",
                       f"coalesce(CAST(c.s{i} AS DOUBLE), 0.0D) AS s{i}"]
        joins = f"LEFT JOIN {cv} c ON c.user_id = a.unit_id"
        if pre is not None:
            pv = _view(pre.df, "relkit_spark_pre")
            ptypes = {c: _TYPES.get(c, "VARCHAR") for c in pre.fields}
            _view(spark.sql(spark_sql(user_sql(pv, metrics, ptypes, good_dwell=good_dwell))),
                  "relkit_spark_pre_users")
            _check_impressions(spark, "relkit_spark_pre_users", pre, files.pre)
            joins += " LEFT JOIN relkit_spark_pre_users p ON p.user_id = a.unit_id"
            for i, m in enumerate(metrics):
                one = "1.0D" if per_user(m) else "0.0D"
                select += [f"coalesce(CAST(p.n{i} AS DOUBLE), 0.0D) AS pn{i}",
                           f"coalesce(CAST(p.d{i} AS DOUBLE), {one}) AS pd{i}"]
        cols = pre_columns or {}
        names = [m.name for m in metrics]
        for metric, column in cols.items():
            q = "`" + column.replace("`", "``") + "`"
            (missing,) = spark.sql(f"SELECT count(*) FROM {av} WHERE {q} IS NULL "
                                   f"OR isnan(CAST({q} AS DOUBLE))").collect()[0]
            if missing:
                raise missing_covariate(files.assign, column, metric, int(missing))
            select.append(f"CAST(a.{q} AS DOUBLE) AS cn{names.index(metric)}")
        table = spark.sql(f"SELECT {', '.join(select)} FROM {av} a {joins} "
                          "ORDER BY unit_id").toArrow()
    finally:
        cur.unpersist()

    def arr(key: str) -> np.ndarray:
        return np.asarray(table.column(key).to_numpy(zero_copy_only=False),
                          dtype=np.float64)

    pre_num = {n: arr(f"pn{i}") for i, n in enumerate(names)} if pre is not None else {}
    pre_den = {n: arr(f"pd{i}") for i, n in enumerate(names)} if pre is not None else {}
    for i, n in enumerate(names):
        if n in cols:
            pre_num[n] = arr(f"cn{i}")
            pre_den[n] = np.ones_like(pre_num[n])
    return UserTable(
        users=[str(u) for u in table.column("unit_id").to_pylist()],
        variant=[str(v) for v in table.column("variant").to_pylist()],
        num={n: arr(f"n{i}") for i, n in enumerate(names)},
        den={n: arr(f"d{i}") for i, n in enumerate(names)},
        sq={n: arr(f"s{i}") for i, n in enumerate(names)},
        pre_num=pre_num, pre_den=pre_den)


def _check_impressions(spark: SparkSession, users: str, log: SparkLog, name: str) -> None:
    """The DuckDB path's check of reused impression ids
    (:func:`relkit.metrics.online.ab.users.check_impressions`), same message."""
    from pyspark.sql import functions as F

    (first,) = spark.sql(f"SELECT min(reused) FROM {users}").collect()[0]
    if first is None:
        return
    session = F.col("session_id") if log.has("session_id") else F.lit(None)
    rows = (log.df.where(F.col("impression_id") == first)
            .select("user_id", session.alias("s"), "rank").collect())
    raise reused_impression([tuple(r) for r in rows], str(first), name)


def _check_units(spark: SparkSession, users: str, assign: str, has_variant: bool,
                 files: Names) -> None:
    """The DuckDB path's unit checks (:func:`relkit.metrics.online.ab.users._check_units`),
    same messages."""
    stray = spark.sql(f"SELECT CAST(l.user_id AS STRING) AS u FROM {users} l "
                      f"LEFT ANTI JOIN {assign} a ON a.unit_id = l.user_id "
                      "ORDER BY u NULLS LAST LIMIT 1").collect()
    if stray:
        raise stray_user(files, stray[0][0])
    if has_variant:
        bad = spark.sql(
            f"SELECT CAST(l.user_id AS STRING) AS u, CASE WHEN NOT (l.vmin <=> a.variant) "
            f"THEN l.vmin ELSE l.vmax END, a.variant FROM {users} l "
            f"JOIN {assign} a ON a.unit_id = l.user_id "
            "WHERE NOT (l.vmin <=> a.variant) OR NOT (l.vmax <=> a.variant) "
            "ORDER BY u LIMIT 1").collect()
        if bad:
            raise moved_user(files, *bad[0])


def check_cuped_columns(assign: SparkAssignments, columns: dict[str, str]) -> None:
    """Each ``--cuped-column`` names a numeric column of the assignment table
    (:class:`~relkit.metrics.core.options.OptionError` otherwise, as on DuckDB)."""
    from relkit.metrics.core.options import OptionError

    types = {f.name: f.dataType.simpleString() for f in assign.df.schema.fields}
    for column in columns.values():
        if column not in types:
            extra = [c for c in types if c not in ("unit_id", "variant", "first_exposure_ts")]
            raise OptionError("--cuped-column", f"{assign.path} has no column {column!r} "
                              f"(its other columns: {', '.join(extra) or 'none'})")
        if not types[column].startswith(_NUMERIC):
            raise OptionError("--cuped-column", f"column {column!r} of {assign.path} is not "
                              f"numeric ({types[column]})")
