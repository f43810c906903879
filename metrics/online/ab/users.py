"""Per-user sufficient statistics of the query metrics, aggregated by DuckDB.

The log (one row per displayed result) is reduced in SQL twice: to one row per
impression (query), then to one row per user with, for each metric, the numerator sum
and the denominator (the user's query count, or their clicked queries for the time to
first click). Python receives those per-user sums only, as numpy arrays, so a log of
10^8 rows costs the memory of its users, not of its rows (DuckDB spills to disk when
its hash tables outgrow memory).

The metrics themselves (see docs/ab.md) and their registry are in
:mod:`.metric_registry`; every name of it is importable from here too, as before.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relkit.metrics.online.ab.errors import ABError
from relkit.metrics.online.ab.metric_registry import METRICS as METRICS
from relkit.metrics.online.ab.metric_registry import UNITS as UNITS
from relkit.metrics.online.ab.metric_registry import Metric as Metric
from relkit.metrics.online.ab.metric_registry import MetricDef as MetricDef
from relkit.metrics.online.ab.metric_registry import Unit as Unit
from relkit.metrics.online.ab.metric_registry import per_user as per_user

if TYPE_CHECKING:
    import duckdb

    from relkit.metrics.online.ab.moments import FloatArray


# Here, not with the registry: it reads this module's METRICS, so a registry put in its
# place (a test's own, with monkeypatch) is the one looked up, as before the split.
def get_metric(name: str) -> Metric:
    """The metric called ``name``; :class:`ABError` listing the known ones otherwise."""
    try:
        return METRICS.lookup(name.strip())
    except ABError:
        raise ABError(f"unknown metric {name!r}; known: {', '.join(METRICS)}") from None


@dataclass
class UserTable:
    """Per-user sums of one log (rows aligned with ``users``), per arm via :meth:`arm`.

    ``num[m]``/``den[m]`` are metric *m*'s numerator and denominator per user, and
    ``sq[m]`` the sum of squared per-impression values (the naive per-impression test's
    variance); ``pre_num``/``pre_den`` the pre-period's (CUPED), when given.
    """

    users: list[str]
    variant: list[str]
    num: dict[str, FloatArray]
    den: dict[str, FloatArray]
    sq: dict[str, FloatArray]
    pre_num: dict[str, FloatArray]
    pre_den: dict[str, FloatArray]


def _seconds(column: str, types: dict[str, str]) -> str:
    t = types.get(column, "").upper()
    if "TIMESTAMP" in t or t == "DATE":
        return f"epoch({column})"
    return f"CAST({column} AS DOUBLE)"


def impression_sql(source: str, metrics: Sequence[Metric], columns: dict[str, str], *,
                   good_dwell: float = 30.0, until: str | None = None) -> str:
    """SQL: one row per (user, impression) with each metric's value and denominator.

    ``columns`` maps the log's column names to their DuckDB types. ``until`` (an SQL
    expression) keeps the impressions shown at or before it.
    """
    for m in metrics:
        missing = [c for c in m.needs if c not in columns]
        if missing:
            raise ABError(f"metric {m.name} needs the column(s) {', '.join(missing)}, "
                          "which the log does not have")
    fmt = {"page1": "coalesce(page, 1) = 1" if "page" in columns else "TRUE",
           "good_dwell": repr(float(good_dwell)),
           "click_s": _seconds("click_ts", columns), "ts_s": _seconds("ts", columns)}
    # One row per impression: an impression id names one page view of one user (the
    # format's rule), so the impression alone is the key and its user any row's; hashing
    # one string key instead of two is the cheaper group-by on 10^8 rows. A log that
    # numbers its impressions per user or per session breaks the rule and would merge
    # page views silently, so the same pass flags an id seen with two users (or two
    # sessions), or with more rows than positions between its lowest and highest rank
    # (two page views of one user: some rank shown twice, by pigeonhole). min/max cost
    # nothing next to the group-by; count(DISTINCT rank) would cost five times it.
    reuse = ["min(user_id) <> max(user_id)",
             "count(rank) > max(rank) - min(rank) + 1"]
    if "session_id" in columns:
        reuse.append("min(session_id) <> max(session_id)")
    cols = ["any_value(user_id) AS user_id",
            f"CASE WHEN {' OR '.join(f'coalesce({c}, false)' for c in reuse)} "
            "THEN impression_id END AS reused"]
    if "session_id" in columns:
        cols.append("any_value(session_id) AS session_id")
    if "ts" in columns:
        cols.append("min(ts) AS ts")
    if "variant" in columns:
        cols += ["any_value(variant) AS variant"]
    for i, m in enumerate(metrics):
        if per_user(m):
            continue
        cols.append(f"{m.value.format(**fmt)} AS v{i}")
        cols.append(f"{m.denominator.format(**fmt)} AS d{i}")
    where = f" WHERE ts <= {until}" if until is not None else ""
    return (f"SELECT {', '.join(cols)} FROM {source}{where} "
            "GROUP BY impression_id")


def user_sql(source: str, metrics: Sequence[Metric], columns: dict[str, str], *,
             good_dwell: float = 30.0, until: str | None = None) -> str:
    """SQL: one row per user: ``user_id``, ``reused`` (the least impression id of the
    user that :func:`impression_sql` flags as reused, NULL when none; see
    :func:`check_impressions`), then ``n{i}``, ``d{i}``, ``s{i}`` per metric."""
    imp = impression_sql(source, metrics, columns, good_dwell=good_dwell, until=until)
    out = ["user_id", "min(reused) AS reused"]
    if "variant" in columns:
        out += ["min(variant)::VARCHAR AS vmin", "max(variant)::VARCHAR AS vmax"]
    for i, m in enumerate(metrics):
        if per_user(m):
            out += [f"count(DISTINCT session_id)::DOUBLE AS n{i}", f"1.0 AS d{i}",
                    f"0.0 AS s{i}"]
        else:
            # ttfc's value is NULL on unclicked queries: sum() skips them
            out += [f"coalesce(sum(v{i}), 0)::DOUBLE AS n{i}", f"sum(d{i})::DOUBLE AS d{i}",
                    f"coalesce(sum(v{i} * v{i}), 0)::DOUBLE AS s{i}"]
    return f"SELECT {', '.join(out)} FROM ({imp}) GROUP BY user_id"


def reused_impression(rows: list[tuple[object, ...]], impression: str, name: str) -> ABError:
    """The error for an impression id used by several page views.

    ``rows`` are the log's (user, session, rank) rows of that id, as either engine
    fetched them (:func:`check_impressions`, :func:`relkit.metrics.spark.ab`).
    """
    from relkit.metrics.online.source import REUSED_HINT, reused_why

    return ABError(f"{name}: impression_id {impression!r} is used by {reused_why(rows)}: "
                   f"{REUSED_HINT}")


def check_impressions(con: duckdb.DuckDBPyConnection, users: str, log: str,
                      name: str = "the log") -> None:
    """Raise :class:`ABError` naming the first impression id of ``log`` (called ``name``)
    used by several page views, as flagged in the per-user table ``users``
    (:func:`user_sql`)."""
    (first,) = con.execute(f"SELECT min(reused) FROM {users}").fetchone() or (None,)
    if first is None:
        return
    session = "session_id" if "session_id" in column_types(con, log) else "NULL"
    rows = con.execute(f"SELECT user_id, {session}, rank FROM {log} "
                       "WHERE impression_id = ?", [first]).fetchall()
    raise reused_impression(rows, str(first), name)


def column_types(con: duckdb.DuckDBPyConnection, view: str) -> dict[str, str]:
    """The view's columns and their DuckDB types."""
    rel = con.table(view)
    return {c: str(t) for c, t in zip(rel.columns, rel.types, strict=True)}


@dataclass(frozen=True)
class Names:
    """The inputs as the messages name them (the files, as the user typed them)."""

    log: str = "the log"
    assign: str = "the assignment table"
    pre: str = "the pre-period log"


def user_table(con: duckdb.DuckDBPyConnection, log: str, assign: str,
               metrics: Sequence[Metric], *, pre: str | None = None,
               pre_columns: dict[str, str] | None = None,
               good_dwell: float = 30.0, until: str | None = None,
               files: Names | None = None) -> UserTable:
    """Aggregate the log (view ``log``) to per-user sums, arms from the assignment view.

    Every unit of ``assign`` (columns ``unit_id``, ``variant``) is a row, with zeros
    when it has no impressions (intent to treat: an assigned user who never searched
    still counts). A user in the log but not in the assignment, or logged under a
    variant other than their assigned one, is an :class:`ABError` naming the first.
    With ``until``, only impressions up to that time, and the units exposed by then.
    ``pre_columns`` maps a metric to a numeric column of the assignment table holding
    each unit's pre-period value of it (the CUPED covariate, instead of a pre-period
    log): a unit without a value there is an :class:`ABError` naming the column.
    """
    import numpy as np

    files = files or Names()
    types = column_types(con, log)
    # The per-user sums are small (one row per user): kept in a temporary table so the
    # unit checks below do not scan the log again.
    con.execute("CREATE OR REPLACE TEMP TABLE ab_cur AS "
                + user_sql(log, metrics, types, good_dwell=good_dwell, until=until))
    check_impressions(con, "ab_cur", log, files.log)
    _check_units(con, "ab_cur", assign, "variant" in types, files)
    cur = "ab_cur"
    select = ["a.unit_id::VARCHAR AS unit_id", "a.variant::VARCHAR AS variant"]
    for i, m in enumerate(metrics):
        one = "1.0" if per_user(m) else "0.0"
        select += [f"coalesce(c.n{i}, 0.0) AS n{i}", f"coalesce(c.d{i}, {one}) AS d{i}",
                   f"coalesce(c.s{i}, 0.0) AS s{i}"]
    joins = f"LEFT JOIN {cur} c ON c.user_id = a.unit_id"
    if pre is not None:
        con.execute("CREATE OR REPLACE TEMP TABLE ab_pre AS "
                    + user_sql(pre, metrics, column_types(con, pre), good_dwell=good_dwell))
        check_impressions(con, "ab_pre", pre, files.pre)
        joins += " LEFT JOIN ab_pre p ON p.user_id = a.unit_id"
        for i, m in enumerate(metrics):
            one = "1.0" if per_user(m) else "0.0"
            select += [f"coalesce(p.n{i}, 0.0) AS pn{i}", f"coalesce(p.d{i}, {one}) AS pd{i}"]
    cols = pre_columns or {}
    for metric, column in cols.items():
        quoted = '"' + column.replace('"', '""') + '"'
        missing = con.execute(f"SELECT count(*) FROM {assign} WHERE {quoted} IS NULL "
                              f"OR isnan({quoted}::DOUBLE)").fetchone()
        if missing and missing[0]:
            raise missing_covariate(files.assign, column, metric, int(missing[0]))
        i = [m.name for m in metrics].index(metric)
        select += [f"{quoted}::DOUBLE AS cn{i}"]
    where = ""
    if until is not None:
        # The units exposed by then: by the assignment's exposure time when it has one,
        # else those with an impression by then.
        where = (f" WHERE a.first_exposure_ts <= {until}"
                 if "first_exposure_ts" in column_types(con, assign)
                 else " WHERE c.user_id IS NOT NULL")
    sql = (f"SELECT {', '.join(select)} FROM {assign} a {joins}{where} "
           "ORDER BY a.unit_id")
    data = con.execute(sql).fetchnumpy()
    names = [m.name for m in metrics]

    def arr(key: str) -> FloatArray:
        out: FloatArray = np.asarray(data[key], dtype=np.float64)
        return out

    pre_num = {n: arr(f"pn{i}") for i, n in enumerate(names)} if pre else {}
    pre_den = {n: arr(f"pd{i}") for i, n in enumerate(names)} if pre else {}
    for i, n in enumerate(names):
        if n in cols:   # a per-unit value: the covariate's denominator is 1
            pre_num[n] = arr(f"cn{i}")
            pre_den[n] = np.ones_like(pre_num[n])
    return UserTable(
        users=[str(u) for u in data["unit_id"]], variant=[str(v) for v in data["variant"]],
        num={n: arr(f"n{i}") for i, n in enumerate(names)},
        den={n: arr(f"d{i}") for i, n in enumerate(names)},
        sq={n: arr(f"s{i}") for i, n in enumerate(names)},
        pre_num=pre_num, pre_den=pre_den)


def _check_units(con: duckdb.DuckDBPyConnection, users: str, assign: str,
                 has_variant: bool, files: Names) -> None:
    stray = con.execute(f"SELECT l.user_id::VARCHAR FROM {users} l "
                        f"ANTI JOIN {assign} a ON a.unit_id = l.user_id "
                        "ORDER BY 1 LIMIT 1").fetchone()
    if stray is not None:
        raise stray_user(files, stray[0])
    if has_variant:
        bad = con.execute(
            f"SELECT l.user_id::VARCHAR, CASE WHEN l.vmin IS DISTINCT FROM a.variant::VARCHAR "
            f"THEN l.vmin ELSE l.vmax END, a.variant::VARCHAR FROM {users} l "
            f"JOIN {assign} a ON a.unit_id = l.user_id "
            "WHERE l.vmin IS DISTINCT FROM a.variant::VARCHAR "
            "OR l.vmax IS DISTINCT FROM a.variant::VARCHAR ORDER BY 1 LIMIT 1").fetchone()
        if bad is not None:
            raise moved_user(files, *bad)


# The unit errors, worded once for both engines (relkit.metrics.spark.ab raises them too).
def stray_user(files: Names, user: object) -> ABError:
    """A user of the log that the assignment table does not have."""
    if user is None:
        return ABError(f"{files.log}: a row has no user_id (every row needs the user "
                       "it was shown to)")
    return ABError(f"{files.log}: user {user!r} is not in {files.assign}")


def moved_user(files: Names, user: object, logged: object, assigned: object) -> ABError:
    """A user logged under another arm than the one assigned."""
    return ABError(f"{files.log}: user {user!r} is logged under variant {logged!r} but "
                   f"{files.assign} assigns {assigned!r}")


def missing_covariate(assign: str, column: str, metric: str, count: int) -> ABError:
    """Units without a value in the ``--cuped-column`` column."""
    return ABError(f"{assign}: column {column!r} (the pre-period {metric}) has no value "
                   f"for {count:,} units")


def ctr_by_rank(con: duckdb.DuckDBPyConnection, log: str, assign: str,
                max_rank: int = 10) -> list[tuple[str, int, float]]:
    """(variant, rank, CTR) for ranks 1..``max_rank``: clicked rows / shown rows."""
    rows = con.execute(
        f"SELECT a.variant::VARCHAR, l.rank::INTEGER, avg(CASE WHEN l.clicked > 0 THEN 1.0 "
        f"ELSE 0.0 END) FROM {log} l JOIN {assign} a ON a.unit_id = l.user_id "
        f"WHERE l.rank <= {int(max_rank)} GROUP BY ALL ORDER BY 1, 2").fetchall()
    return [(str(v), int(r), float(c)) for v, r, c in rows]
