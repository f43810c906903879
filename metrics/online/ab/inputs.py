"""The inputs of ``relkit ab``: the log, assignment and pre-period views, checked.

Shared by the library functions of every A/B command (:mod:`.run`) and the CLI: each
file is opened as a DuckDB view on one connection, its user column checked, and an
error raised in a block is made to name the file (:func:`about`). DuckDB is imported
inside :func:`open_inputs`, so importing this module costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.options import OptionError

if TYPE_CHECKING:
    import duckdb

    from relkit.metrics.online.source import LogSource


def open_inputs(log: Path | None, assign: Path | None, log_map: list[str] | None,
          assign_map: list[str] | None, pre: Path | None = None
          ) -> tuple[duckdb.DuckDBPyConnection, str | None, str, str | None]:
    """The log, assignment and pre-period views on one DuckDB connection."""
    from relkit.metrics.core.options import option_value
    from relkit.metrics.online.ab.errors import ABError
    from relkit.metrics.online.fields import ASSIGN_FIELDS, FIELDS, WIDE_LISTS, parse_map
    from relkit.metrics.online.source import connect, open_assignments, open_log

    with option_value("--map"):
        lmap = parse_map(log_map, [*FIELDS, *WIDE_LISTS])
    with option_value("--assign-map"):
        amap = parse_map(assign_map, [f.name for f in ASSIGN_FIELDS])
    con = connect()
    # Without an assignment table (``power --from-log``) every user of the log is one
    # unit of one arm: the variance is of the users, pooled.
    aview = None
    if assign is not None:
        aview = open_assignments(assign, amap, con=con).view
        if not con.execute(f"SELECT count(*) FROM (SELECT 1 FROM {aview} LIMIT 1)"
                           ).fetchone()[0]:  # type: ignore[index]
            raise ABError(f"{assign}: no rows (an assignment table with no units)")
    views: list[str | None] = []
    for path in (log, pre):
        if path is None:
            views.append(None)
            continue
        source = open_log(path, mapping=lmap, con=con)
        source.check()  # a value not of its field's type: file, row and column named
        if not source.has("user_id"):
            raise ABError(f"{path}: the log has no user_id column (map one with "
                          "--map user_id=COLUMN): A/B tests need the randomisation unit")
        check_users(source)
        views.append(source.view)
    if aview is None:
        assert views[0] is not None
        aview = "relkit_ab_units"
        arm = "min(variant)" if "variant" in con.table(views[0]).columns else "'all'"
        con.execute(f"CREATE TEMP VIEW {aview} AS SELECT user_id AS unit_id, {arm} AS "
                    f"variant FROM {views[0]} GROUP BY user_id")
    return con, views[0], aview, views[1]


def check_users(source: LogSource) -> None:
    """Every row of the log names its user: a row without one is a :class:`FormatError`
    naming its line (the randomisation unit of an A/B test is never guessed)."""
    from relkit.metrics.core.errors import FormatError

    (row,) = source.con.execute(f"SELECT min(_row) FROM {source.view} WHERE user_id IS "
                                "NULL OR trim(user_id) = ''").fetchone() or (None,)
    if row is not None:
        raise FormatError(source.path, int(row), "a user in column "
                          f"{source.columns['user_id']!r}", "no value")


@contextmanager
def about(path: Path) -> Iterator[None]:
    """An :class:`ABError` raised in the block is about the file ``path``: its message
    names it (unless it does already); a parameter out of range names its option."""
    from relkit.metrics.online.ab.errors import ABError, ParameterError

    try:
        yield
    except ParameterError as exc:
        raise OptionError(f"--{exc.param}", str(exc)) from None
    except ABError as exc:
        if str(exc).startswith(str(path)):
            raise
        raise ABError(f"{path}: {exc}") from None


def cuped_columns(specs: list[str], metrics: list[str]) -> dict[str, str]:
    """``--cuped-column METRIC=COLUMN`` values: each metric analysed, at most once."""
    out: dict[str, str] = {}
    for spec in specs:
        name, sep, column = spec.partition("=")
        name, column = name.strip(), column.strip()
        if not sep or not name or not column:
            raise OptionError("--cuped-column", f"expected METRIC=COLUMN; got {spec!r}")
        if name not in metrics:
            raise OptionError("--cuped-column", f"{name!r} is not a metric of this analysis "
                              f"(-m): {', '.join(metrics)}")
        if name in out:
            raise OptionError("--cuped-column", f"{name!r} given twice")
        out[name] = column
    return out


def check_cuped_columns(con: duckdb.DuckDBPyConnection, aview: str,
                         columns: dict[str, str], assign: Path) -> None:
    """Each named column is a numeric column of the assignment table."""
    if not columns:
        return
    from relkit.metrics.online.ab.users import column_types

    types = column_types(con, aview)
    for column in columns.values():
        if column not in types:
            extra = [c for c in types if c not in ("_row", "unit_id", "variant",
                                                   "first_exposure_ts")]
            raise OptionError("--cuped-column", f"{assign} has no column {column!r} "
                              f"(its other columns: {', '.join(extra) or 'none'})")
        if types[column].upper() not in ("DOUBLE", "FLOAT", "BIGINT", "INTEGER", "HUGEINT",
                                         "DECIMAL", "SMALLINT", "REAL"):
            raise OptionError("--cuped-column", f"column {column!r} of {assign} is not "
                              f"numeric ({types[column]})")
