"""Open an A/B test's assignment table in DuckDB: one row per unit, its variant.

``relkit ab`` reads a click log (:mod:`.source`) and the table saying which unit (user)
was shown which variant; the table is small (one row per unit, not per impression), so
it is checked whole when opened: a unit listed twice, or a value that is not of its
field's type, stops here naming file, row and column. Apart from the log's reader, whose
checks and SERP-wide form it does not share. duckdb is imported inside the functions.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from relkit.metrics.core.errors import FormatError
from relkit.metrics.online.duck import (
    LogFormat,
    _names,
    _q,
    connect,
    log_format,
    raw_view,
    schema_of,
)
from relkit.metrics.online.fields import ASSIGN_FIELDS, convert_sql, expected, parse_map
from relkit.metrics.online.logcontract import existing_file, missing_column

if TYPE_CHECKING:
    import duckdb

@dataclass
class AssignmentSource:
    """An assignment table opened in DuckDB.

    :attr:`view` has ``_row``, ``unit_id`` and ``variant`` (VARCHAR),
    ``first_exposure_ts`` (DOUBLE seconds) when the table has it, and every other column
    of the table under its own name (:attr:`extra`: pre-period metrics for CUPED),
    DOUBLE when all its values are numbers, else VARCHAR.
    """

    con: duckdb.DuckDBPyConnection
    path: str
    format: LogFormat
    view: str
    fields: tuple[str, ...]
    extra: tuple[str, ...]
    columns: dict[str, str]


def open_assignments(path: str | Path, mapping: dict[str, str] | None = None, *,
                     con: duckdb.DuckDBPyConnection | None = None, fmt: str | None = None
                     ) -> AssignmentSource:
    """Open an assignment table (``unit_id, variant[, first_exposure_ts, ...]``).

    ``mapping``, ``con`` and ``fmt`` as in :func:`open_log` (mapping keys: ``unit_id``,
    ``variant``, ``first_exposure_ts``). Raises :class:`InputError` or
    :class:`FormatError` as :func:`open_log` does; a value of ``unit_id`` or ``variant``
    that is missing, or a ``first_exposure_ts`` that is not a time, raises
    :class:`FormatError` naming file, row and column (the table is scanned once: it has
    one row per unit, not per impression).
    """
    path = existing_file(path)
    form = log_format(path, fmt)
    known = {f.name: f for f in ASSIGN_FIELDS}
    mapping = parse_map(mapping, list(known))
    con = con if con is not None else connect()
    raw = raw_view(con, path, form, ())
    schema = schema_of(con, raw, path)
    selects, fields, columns = ["_row"], [], {}
    used = set()
    for f in ASSIGN_FIELDS:
        col = mapping.get(f.name, f.name)
        if col not in schema:
            if f.required or f.name in mapping:
                raise missing_column(path, f.name, mapping, schema)
            continue
        conv = convert_sql(f, _q(col), schema[col])
        if conv is None:
            raise FormatError(path, None, f"column {col!r} (the {f.name}) to hold "
                              f"{expected(f)}", f"type {schema[col]}")
        bad = f"{_q(col)} IS NOT NULL AND ({conv}) IS NULL"
        if f.required:
            bad += f" OR {_q(col)} IS NULL OR trim(CAST({_q(col)} AS VARCHAR)) = ''"
        row = con.execute(f"SELECT min(_row) FROM {raw} WHERE {bad}").fetchone()
        if row and row[0] is not None:
            raise FormatError(path, int(row[0]), f"{expected(f)} in column {col!r}",
                              "a missing or mistyped value")
        selects.append(f"{conv} AS {f.name}")
        fields.append(f.name)
        columns[f.name] = col
        used.add(col)
    # A unit listed twice would be counted twice (the SRM test's counts, each arm's
    # users): a silent wrong number, so it is refused, naming the second line.
    unit = _q(columns["unit_id"])
    dup = con.execute(f"SELECT _row, {unit} FROM (SELECT _row, {unit}, row_number() OVER "
                      f"(PARTITION BY {unit} ORDER BY _row) AS k FROM {raw}) WHERE k = 2 "
                      "ORDER BY _row LIMIT 1").fetchone()
    if dup is not None:
        raise FormatError(path, int(dup[0]), "each unit once", f"{str(dup[1])!r} again")
    extra = [c for c in schema if c not in used and c != "_row"]
    for c in extra:
        t = schema[c]
        if t.startswith("VARCHAR"):
            (nonnum,) = con.execute(f"SELECT count(*) FROM {raw} WHERE {_q(c)} IS NOT NULL AND "
                                f"TRY_CAST(trim({_q(c)}) AS DOUBLE) IS NULL").fetchone() or (1,)
            selects.append(f"TRY_CAST(trim({_q(c)}) AS DOUBLE) AS {_q(c)}" if nonnum == 0
                           else _q(c))
        else:
            selects.append(_q(c))
    view = f"relkit_assign_{next(_names)}"
    con.execute(f"CREATE TEMP VIEW {view} AS SELECT {', '.join(selects)} FROM {raw}")
    return AssignmentSource(con, path, form, view, tuple(fields), tuple(extra), columns)
