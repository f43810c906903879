"""Open a click log or an assignment table in DuckDB, with relkit's canonical columns.

:func:`open_log` reads a Parquet, CSV, TSV or JSONL impression log, in the long form
(one row per displayed result) or the SERP-wide form (one row per impression, list
columns ``doc_ids``, ``clicks``... unnested here), and gives a :class:`LogSource`: a
DuckDB view whose columns are the canonical fields of
:mod:`relkit.metrics.online.fields` with their canonical types, plus ``_row``. Nothing
is scanned to open a Parquet file; every later aggregation runs in DuckDB, out of core
(``memory_limit``, spilling to a temporary directory), and Python sees aggregates only.

Text files (CSV, TSV, JSONL) are read with every value as text (so ``007`` stays
``007``) into a temporary DuckDB table, in file order, and converted by SQL: a value
that does not convert is ``NULL`` in the view and reported by :meth:`LogSource.check`
(a :class:`~relkit.metrics.errors.FormatError` naming file, line and column) and by
``relkit clicks validate`` (every problem, counted).

duckdb is imported inside the functions: importing this module costs nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.errors import InputError, RelkitError
from relkit.metrics.online.assignments import AssignmentSource, open_assignments
from relkit.metrics.online.duck import (
    LogFormat,
    _names,
    _q,
    _sq,
    connect,
    log_format,
    raw_view,
    schema_of,
)
from relkit.metrics.online.fields import (
    FIELDS,
    WIDE_LISTS,
    convert_sql,
    expected,
    nan_text_sql,
    needs_check,
    parse_map,
    range_sql,
    range_words,
)
from relkit.metrics.online.logcontract import (
    REUSED_HINT,
    bad_value,
    existing_file,
    map_columns,
    no_rows,
    one_per_rank,
    plan_fields,
    reused_why,
)

if TYPE_CHECKING:
    import duckdb

# connect and LogFormat are part of this module's API (the readers' users need them).
# REUSED_HINT and reused_why too: the contract's, read from here by ab.users.
__all__ = ["REUSED_HINT", "AssignmentSource", "BadValues", "LogFormat", "LogSource", "connect",
           "fetch", "log_format", "open_assignments", "open_log", "reused_why"]


@dataclass(frozen=True)
class BadValues:
    """Values of one column that are not of its field's type: how many, first rows."""

    field: str
    column: str
    count: int
    rows: tuple[int, ...]
    first: str | None
    expected: str


@dataclass
class LogSource:
    """A click log opened in DuckDB: :attr:`view` has the canonical columns.

    Attributes
    ----------
    con
        The DuckDB connection holding the view (run SQL on it: ``con.execute(...)``).
    path
        The file as given (for messages).
    format
        ``"parquet"``, ``"csv"``, ``"tsv"`` or ``"jsonl"``.
    view
        Name of the view: columns ``_row`` (BIGINT: the line number in a text file, the
        1-based row number in Parquet; in the SERP-wide form the impression's row) and
        each field of :attr:`fields`, typed: ids and ``query`` VARCHAR, ``rank``,
        ``clicked``, ``page`` BIGINT, ``dwell_s`` DOUBLE, ``ts``/``click_ts`` DOUBLE
        seconds (a timestamp becomes seconds since the Unix epoch).
    fields
        The canonical fields the view has, in canonical order; always the required ones
        (``impression_id``, ``query_id``, ``rank``, ``doc_id``, ``clicked``).
    columns
        field -> the column it was read from, as the file names it (``rank`` in the
        SERP-wide form: ``"position in doc_ids"``; a derived ``impression_id``:
        ``"session_id+ts+query_id"``).
    wide
        Whether the file was in the SERP-wide form.
    """

    con: duckdb.DuckDBPyConnection
    path: str
    format: LogFormat
    view: str
    fields: tuple[str, ...]
    columns: dict[str, str]
    wide: bool = False
    _flat: str = ""
    _sources: dict[str, tuple[str, str]] = field(default_factory=dict)

    def relation(self) -> duckdb.DuckDBPyRelation:
        """The view as a DuckDB relation."""
        return self.con.table(self.view)

    def where(self, row: int) -> str:
        """``path:row`` (``row`` as in ``_row``)."""
        return f"{self.path}:{row}"

    def has(self, *names: str) -> bool:
        """Whether the log has every field named."""
        return all(n in self.fields for n in names)

    def bad_values(self, limit: int = 5) -> list[BadValues]:
        """Values that did not convert to their field's type (one scan; none for a typed
        Parquet file, whose columns convert or are refused when opened)."""
        out = []
        for name, (src, dtype) in self._sources.items():
            fld = FIELDS[name]
            if not needs_check(fld, dtype):
                continue
            conv = convert_sql(fld, _q(src), dtype)
            n, rows, first = self.con.execute(
                f"SELECT count(*), list(_row ORDER BY _row)[1:{limit}], "
                f"arg_min(CAST({_q(src)} AS VARCHAR), _row) FROM {self._flat} "
                f"WHERE {_q(src)} IS NOT NULL AND ({conv}) IS NULL "
                f"AND NOT {nan_text_sql(fld, _q(src))}").fetchone() or (0, [], None)
            if n:
                out.append(BadValues(name, self.columns[name], int(n), tuple(rows), first,
                                     expected(fld)))
        return out

    def parquet_stats(self) -> dict[str, tuple[str, str, int]]:
        """field -> (min, max, null count) over the whole file, from the Parquet footer.

        Only for fields read straight from a column of a long-form Parquet file whose
        every row group has statistics (min and max as the footer writes them, as text;
        a bound, possibly truncated). Reads no data: the checks use it to skip a rule
        the statistics prove cannot fire.
        """
        if self.format != "parquet" or self.wide:
            return {}
        by_col: dict[str, list[tuple[Any, Any, Any]]] = {}
        for col, lo, hi, nulls in self.con.execute(
                "SELECT path_in_schema, stats_min_value, stats_max_value, stats_null_count "
                f"FROM parquet_metadata('{_sq(self.path)}')").fetchall():
            by_col.setdefault(str(col), []).append((lo, hi, nulls))
        out = {}
        for name, (col, dtype) in self._sources.items():
            groups = by_col.get(col, [])
            if not groups or any(None in g for g in groups):
                continue
            numeric = not dtype.upper().startswith("VARCHAR")
            key = (lambda v: float(v)) if numeric else (lambda v: v)  # noqa: E731
            try:
                lo = min((g[0] for g in groups), key=key)
                hi = max((g[1] for g in groups), key=key)
            except ValueError:
                continue
            out[name] = (lo, hi, sum(int(g[2]) for g in groups))
        return out

    def range_rules(self) -> list[tuple[str, str, str]]:
        """(field, SQL condition on the view, what the field must be) for each field that
        has a range (``rank`` >= 1, ``clicked`` >= 0, finite times...), leaving out those
        the Parquet footer proves in range."""
        footer = self.parquet_stats()
        out = []
        for name in self.fields:
            f = FIELDS[name]
            cond = range_sql(f, name)
            if cond is None:
                continue
            if name in footer and f.kind in ("int", "float"):
                lo, hi, _ = footer[name]
                try:
                    low, high = float(lo), float(hi)
                except ValueError:
                    low, high = float("nan"), float("nan")
                finite = f.kind == "int" or (abs(low) < float("inf") and abs(high) < float("inf"))
                if finite and (f.minimum is None or low >= f.minimum):
                    continue
            out.append((name, cond, range_words(f)))
        return out

    def check(self) -> None:
        """Raise :class:`FormatError` at the first value that is not of its field's type,
        or out of its range (``rank`` 0, ``clicked`` -1, an infinite ``ts``), or at the
        second row for one (impression, rank); an :class:`InputError` when the log has no
        rows, or a file DuckDB cannot scan (a damaged Parquet page: met here, by the first
        query that reads it)."""
        from relkit.metrics.online.duck import scan_reason

        try:
            self._check()
        except RelkitError:
            raise
        except Exception as exc:
            reason = scan_reason(exc)
            if reason is None:
                raise
            raise InputError(f"{self.path}: cannot read it ({reason})") from None

    def _check(self) -> None:
        if not self.con.execute(f"SELECT count(*) FROM (SELECT 1 FROM {self.view} "
                                "LIMIT 1)").fetchone()[0]:  # type: ignore[index]
            raise no_rows(self.path)
        bad = self.bad_values(limit=1)
        if bad:
            b = min(bad, key=lambda b: b.rows[0])
            raise bad_value(self.path, b.rows[0], b.field, b.column, b.first)
        self._check_values()
        self._check_one_per_rank()

    def _check_one_per_rank(self) -> None:
        # Two rows for one (impression, rank): a line repeated by a join or an export
        # retried. Every command would count its clicks twice (CTR, the arms' means,
        # interleaving's credit), so each stops here, as `clicks fit` always did.
        v = self.view
        dup = self.con.execute(
            f"SELECT impression_id, rank FROM {v} WHERE impression_id IS NOT NULL AND "
            f"rank IS NOT NULL GROUP BY impression_id, rank HAVING count(*) > 1 "
            f"ORDER BY min(_row) LIMIT 1").fetchone()
        if dup is None:
            return
        user = "user_id" if "user_id" in self.fields else "NULL"
        session = "session_id" if "session_id" in self.fields else "NULL"
        rows = self.con.execute(
            f"SELECT {user}, {session}, rank, _row FROM {v} WHERE impression_id = ? "
            "ORDER BY _row", [dup[0]]).fetchall()
        row = next(int(r) for i, (_, _, k, r) in enumerate(rows)
                   if any(k == k2 for _, _, k2, _ in rows[:i]))
        raise one_per_rank(self.path, row, dup[0], dup[1], self.columns["rank"],
                           [r[:3] for r in rows])

    def _check_values(self) -> None:
        rules = self.range_rules()
        if not rules:
            return
        firsts = ", ".join(f"min(_row) FILTER (WHERE {cond})" for _, cond, _ in rules)
        got = self.con.execute(f"SELECT {firsts} FROM {self.view}").fetchone() or ()
        hits = [(row, rule) for row, rule in zip(got, rules, strict=True) if row is not None]
        if hits:
            row, (name, cond, words) = min(hits, key=lambda h: h[0])
            (value,) = self.con.execute(f"SELECT {name} FROM {self.view} WHERE _row = "
                                        f"{int(row)} AND ({cond}) LIMIT 1").fetchone() or (None,)
            raise bad_value(self.path, int(row), name, self.columns[name], value)


def _wide(con: duckdb.DuckDBPyConnection, raw: str, schema: dict[str, str],
          lists: dict[str, str]) -> tuple[str, dict[str, str]]:
    """The SERP-wide view unnested: one row per position, list columns as scalars.

    ``lists`` maps a list field (``doc_ids``...) to its column. Returns the flat view
    and the mapping of the long-form fields to its columns.
    """
    cols = [lists[k] for k in WIDE_LISTS if k in lists]
    longest = "greatest(" + ", ".join(f"coalesce(len({_q(c)}), 0)" for c in cols) + ")" \
        if len(cols) > 1 else f"coalesce(len({_q(cols[0])}), 0)"
    scalars = [_q(c) for c in schema if c not in cols and c != "_row"]
    # unnest() of several lists in one SELECT zips them, padding the shorter with NULL:
    # a click past the shown results becomes a row with no doc_id (validate reports it).
    name = f"relkit_flat_{next(_names)}"
    select = [*scalars, "_row", f"unnest(range(1, {longest} + 1)) AS relkit_rank",
              *(f"unnest({_q(c)}) AS {_q(c)}" for c in cols)]
    con.execute(f"CREATE TEMP VIEW {name} AS SELECT {', '.join(select)} FROM {raw}")
    remap = {WIDE_LISTS[k]: lists[k] for k in WIDE_LISTS if k in lists}
    remap["rank"] = "relkit_rank"
    return name, remap


def open_log(path: str | Path, *, mapping: dict[str, str] | None = None,
             con: duckdb.DuckDBPyConnection | None = None, fmt: str | None = None
             ) -> LogSource:
    """Open an impression log as a DuckDB view with the canonical columns.

    Parameters
    ----------
    path
        A ``.parquet``, ``.csv``, ``.tsv`` or ``.jsonl`` file (``.gz`` for the text ones),
        long form or SERP-wide form (a list column ``doc_ids``).
    mapping
        Canonical field -> the file's column name (``{"rank": "position"}``), as
        ``--map rank=position`` gives it (:func:`~relkit.metrics.online.fields.parse_map`);
        for the SERP-wide form also ``doc_ids``, ``clicks``, ``click_ts_list`` and
        ``dwell_s_list``. Fields not mapped are read from the column of their own name.
    con
        The DuckDB connection to use (default: a new one from :func:`connect`).
    fmt
        ``"parquet"``, ``"csv"``, ``"tsv"`` or ``"jsonl"``; default from the suffix.

    Returns
    -------
    LogSource
        Its ``view`` has ``_row`` and the fields present, typed (see :class:`LogSource`);
        ``impression_id`` is derived from ``session_id``, ``ts`` and ``query_id``
        (joined by ``|``) when the file has no such column.

    Raises
    ------
    InputError
        The file does not exist or is a directory.
    FormatError
        The file cannot be read in its format; a required column (or a mapped one) is
        missing; a column's type cannot hold its field (a list for ``rank``, a float for
        an id); a ``mapping`` key is not a field. The message names file and column.
        Values are not scanned here: call :meth:`LogSource.check` (or ``relkit clicks
        validate``) for values that do not convert.
    """
    path = existing_file(path)
    form = log_format(path, fmt)
    mapping = parse_map(mapping, [*FIELDS, *WIDE_LISTS])
    con = con if con is not None else connect()
    lists = tuple(mapping.get(k, k) for k in WIDE_LISTS)
    raw = raw_view(con, path, form, lists)
    schema = schema_of(con, raw, path)
    types = {c: t for c, t in schema.items() if c != "_row"}
    form_of = map_columns(path, mapping, types, lambda c: schema[c].endswith("[]"))
    wide, flat, colmap = form_of.wide, raw, form_of.colmap
    if wide:
        flat, _remap = _wide(con, raw, schema, form_of.lists)
        schema = schema_of(con, flat, path)
    plan = plan_fields(path, mapping, colmap, schema,
                       lambda name, col, dtype: convert_sql(FIELDS[name], _q(col), dtype),
                       [c for c in schema if c != "_row"])
    selects = ["_row", *(f"{conv} AS {name}" for name, conv in plan.selects)]
    if plan.derive is not None:
        derived = ", ".join(f"CAST({_q(p)} AS VARCHAR)" for p in plan.derive)
        selects.insert(1, f"concat_ws('|', {derived}) AS impression_id")
    fields, columns, sources = plan.fields, plan.columns, plan.sources
    view = f"relkit_log_{next(_names)}"
    con.execute(f"CREATE TEMP VIEW {view} AS SELECT {', '.join(selects)} FROM {flat}")
    return LogSource(con, path, form, view, fields, columns, wide, flat, sources)


def fetch(log: LogSource | AssignmentSource, sql: str) -> list[tuple[Any, ...]]:
    """Rows of ``sql`` run on the log's connection (``{view}`` stands for its view)."""
    return log.con.execute(sql.format(view=log.view)).fetchall()
