"""Click logs and assignment tables as Spark DataFrames with relkit's canonical columns.

The Spark twin of :mod:`relkit.metrics.online.source`: the same formats (Parquet, CSV,
TSV, JSONL; long form or SERP-wide form), the same ``--map name=column``, the same
canonical fields and conversions (:func:`relkit.metrics.online.fields.convert_sql`,
rewritten for Spark's types), so the aggregations of :mod:`.ab` and :mod:`.clicks` see
the values DuckDB sees. Text files are read with every value as text (``007`` stays
``007``), as the DuckDB reader does. Paths may be anything Spark reads (``hdfs://``,
``s3a://``, a directory of Parquet parts); only local paths are checked for existence
here.

A value that does not convert is reported by :func:`check` as a
:class:`~relkit.metrics.core.errors.FormatError` naming file, row and column; finding the
row number costs a second pass, taken only when something is wrong.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from relkit.metrics.core.errors import FormatError, InputError
from relkit.metrics.online.fields import (
    ASSIGN_FIELDS,
    FIELDS,
    WIDE_LISTS,
    Field,
    expected,
    parse_map,
)
from relkit.metrics.online.logcontract import (
    WIDE_RANK,
    bad_value,
    map_columns,
    missing_column,
    no_rows,
    one_per_rank,
    plan_fields,
    wrong_type,
)

if TYPE_CHECKING:
    from pyspark.sql import Column, DataFrame, SparkSession

# ``_row`` is the 1-based line of a text file (after the header), the 1-based row of a
# Parquet file: computed on the error path only (see :func:`_row_of`).
_TEXT = {"csv", "tsv", "jsonl"}


def spark_format(path: str, fmt: str | None = None) -> str:
    """``parquet``, ``csv``, ``tsv`` or ``jsonl`` from ``fmt`` or the path's suffix.

    A directory (Spark's own output: ``part-*.parquet``) is Parquet.
    """
    if fmt is not None:
        form = fmt.lower()
    else:
        name = path.lower().rstrip("/")
        if name.endswith(".gz"):
            name = name[:-3]
        suffix = name.rsplit(".", 1)[-1] if "." in name.rsplit("/", 1)[-1] else ""
        form = {"parquet": "parquet", "pq": "parquet", "csv": "csv", "tsv": "tsv",
                "jsonl": "jsonl", "ndjson": "jsonl", "json": "jsonl"}.get(suffix, "")
        if not form and (suffix == "" or _is_local_dir(path)):
            form = "parquet"
    if form not in ("parquet", "csv", "tsv", "jsonl"):
        raise FormatError(path, None, "a .parquet, .csv, .tsv or .jsonl file", "the suffix "
                          f"{os.path.splitext(path)[1] or '(none)'!r}")
    return form


def _is_local(path: str) -> bool:
    return "://" not in path or path.startswith("file://")


def _is_local_dir(path: str) -> bool:
    return _is_local(path) and os.path.isdir(path.removeprefix("file://"))


def _check_path(path: str) -> None:
    if _is_local(path):
        local = path.removeprefix("file://")
        if not any(c in local for c in "*?[") and not os.path.exists(local):
            raise InputError(f"{path}: no such file")


def _read_raw(spark: SparkSession, path: str, form: str, lists: tuple[str, ...]) -> DataFrame:
    """The file's own columns; text files as strings (lists of strings for ``lists``)."""
    from pyspark.errors import PySparkException

    try:
        if form == "parquet":
            return spark.read.parquet(path)
        if form in ("csv", "tsv"):
            return (spark.read.option("header", "true").option("inferSchema", "false")
                    .option("sep", "," if form == "csv" else "\t").option("quote", '"')
                    .option("escape", '"').option("mode", "FAILFAST").csv(path))
        df = spark.read.option("primitivesAsString", "true").option("mode", "FAILFAST") \
            .json(path)
        return df
    except PySparkException as exc:
        raise FormatError(path, None, f"a readable {form} file",
                          _first_line(str(exc))) from None


def _first_line(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else "an error"
    return line[:300]


def _dtype(df: DataFrame, col: str) -> Any:
    return df.schema[col].dataType


def _convert(f: Field, col: Column, dtype: Any, text: bool) -> Column | None:
    """Spark's version of :func:`relkit.metrics.online.fields.convert_sql`."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    ints = (T.ByteType, T.ShortType, T.IntegerType, T.LongType)
    floats = (T.FloatType, T.DoubleType)
    if isinstance(dtype, (T.ArrayType, T.StructType, T.MapType)):
        return None
    if f.kind in ("id", "text"):
        if isinstance(dtype, floats) and f.kind == "id":
            return None  # 1.0 vs 1: a float is never an id
        return col.cast("string")
    if f.kind == "int":
        if isinstance(dtype, (ints, T.BooleanType)):
            return col.cast("bigint")
        if not text and not isinstance(dtype, (*floats, T.DecimalType)):
            return None
        num = F.trim(col).try_cast("double") if text else col.cast("double")
        exact = F.when(num == F.floor(num), num.try_cast("bigint"))
        if text and f.name == "clicked":
            low = F.lower(F.trim(col))
            return F.when(low == "true", F.lit(1).cast("bigint")) \
                .when(low == "false", F.lit(0).cast("bigint")).otherwise(exact)
        return exact
    if f.kind == "float":
        if text:
            return _nan_is_null(F.trim(col).try_cast("double"))
        if isinstance(dtype, (*ints, *floats, T.DecimalType)):
            return _nan_is_null(col.cast("double"))
        return None
    if isinstance(dtype, (T.TimestampType, T.TimestampNTZType, T.DateType)):
        return F.unix_micros(col.cast("timestamp")) / 1e6
    if isinstance(dtype, (*ints, *floats, T.DecimalType)):
        return _nan_is_null(col.cast("double"))
    if text or isinstance(dtype, T.StringType):
        s = F.trim(col)
        return _nan_is_null(F.coalesce(s.try_cast("double"),
                                       F.unix_micros(s.try_cast("timestamp")) / 1e6))
    return None


def _nan_is_null(col: Column) -> Column:
    """NaN as a missing value, as the DuckDB reader has it
    (:func:`relkit.metrics.online.fields.convert_sql`)."""
    from pyspark.sql import functions as F

    return F.when(~F.isnan(col), col)


def _bad(f: Field, src: Column, conv: Column) -> Column:
    """Where a value of ``f`` did not convert (a NaN text is missing, not bad) or is
    out of its range (:func:`relkit.metrics.online.fields.range_sql`)."""
    from pyspark.sql import functions as F

    bad = src.isNotNull() & conv.isNull()
    if f.kind in ("float", "time"):
        num = F.trim(src.cast("string")).try_cast("double")
        bad = bad & ~F.coalesce(F.isnan(num), F.lit(False))
        bad = bad | F.coalesce(F.abs(conv) == float("inf"), F.lit(False))
    if f.minimum is not None:
        bad = bad | F.coalesce(conv < f.minimum, F.lit(False))
    return bad


@dataclass
class SparkLog:
    """A click log as a Spark DataFrame with the canonical columns (see
    :class:`relkit.metrics.online.source.LogSource`, whose fields these mirror)."""

    path: str
    format: str
    df: DataFrame
    fields: tuple[str, ...]
    columns: dict[str, str]
    wide: bool = False
    _raw: Any = None
    # (field, source column, converted column, where the value is bad)
    _checks: list[tuple[str, Any, Any, Any]] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        """Whether the log has every field named."""
        return all(n in self.fields for n in names)


def _quoted(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def read_log(spark: SparkSession, path: str | Path, *, mapping: dict[str, str] | None = None,
             fmt: str | None = None) -> SparkLog:
    """Read an impression log into Spark, as :func:`~relkit.metrics.online.source.open_log`
    opens it in DuckDB (same fields, types, derived ``impression_id``, SERP-wide form).

    Raises
    ------
    InputError
        A local path that does not exist.
    FormatError
        Unreadable file, missing or mistyped column, unknown ``mapping`` key.
    """
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    path = str(path)
    _check_path(path)
    form = spark_format(path, fmt)
    mapping = parse_map(mapping, [*FIELDS, *WIDE_LISTS])
    raw = _read_raw(spark, path, form, tuple(mapping.get(k, k) for k in WIDE_LISTS))
    text = form in _TEXT
    have = list(raw.columns)
    form_of = map_columns(path, mapping, {c: _dtype(raw, c).simpleString() for c in have},
                          lambda c: isinstance(_dtype(raw, c), T.ArrayType))
    flat = raw
    if form_of.wide:
        cols = list(form_of.lists.values())
        # arrays_zip pads the shorter lists with NULL, as DuckDB's unnest does: a click
        # past the shown results becomes a row with no doc_id.
        zipped = F.arrays_zip(*[F.col(_quoted(c)).alias(c) for c in cols])
        scalars = [_quoted(c) for c in have if c not in cols]
        flat = raw.select(*scalars, F.posexplode(zipped).alias("relkit_pos", "relkit_z"))
        flat = flat.select(*scalars, (F.col("relkit_pos") + 1).cast("bigint")
                           .alias(WIDE_RANK),
                           *[F.col("relkit_z")[c].alias(c) for c in cols])

    def convert(name: str, col: str, _type: str) -> Column | None:
        dtype = _dtype(flat, col)
        return _convert(FIELDS[name], F.col(_quoted(col)), dtype,
                        text or isinstance(dtype, T.StringType))

    plan = plan_fields(path, mapping, form_of.colmap,
                       {c: _dtype(flat, c).simpleString() for c in flat.columns}, convert,
                       have)
    selects = [conv.alias(name) for name, conv in plan.selects]
    checks: list[tuple[str, Any, Any, Any]] = []
    for name, conv in plan.selects:
        if FIELDS[name].kind not in ("id", "text"):
            src = F.col(_quoted(plan.sources[name][0]))
            checks.append((name, src, conv, _bad(FIELDS[name], src, conv)))
    if plan.derive is not None:
        # Only a grouping key: its text need not match DuckDB's, only be one per
        # (session, ts, query), which concat_ws of the three texts is.
        selects.insert(0, F.concat_ws("|", *[F.col(_quoted(p)).cast("string")
                                            for p in plan.derive]).alias("impression_id"))
    fields, columns, wide = plan.fields, plan.columns, form_of.wide
    return SparkLog(path, form, flat.select(*selects), fields, columns, wide, flat, checks)


def check(log: SparkLog) -> None:
    """Raise :class:`FormatError` at the first value not of its field's type or out of
    its range, or two rows for one (impression, rank); :class:`InputError` when the log
    has no rows (as :meth:`relkit.metrics.online.source.LogSource.check`): one scan of
    the columns that can fail, a second to find the row when one does, one grouping."""
    from pyspark.sql import functions as F

    aggs = [F.count(F.lit(1)).alias("relkit_rows")]
    aggs += [F.sum(F.when(bad, 1).otherwise(0)).alias(name)
             for name, _, _, bad in log._checks]
    counts = log._raw.agg(*aggs).collect()[0].asDict()
    if not counts["relkit_rows"]:
        raise no_rows(log.path)
    bad = [c for c in log._checks if counts[c[0]]]
    if bad:
        row, name, value = _first_bad(log, bad)
        raise bad_value(log.path, row, name, log.columns[name], value)
    # Two rows for one (impression, rank), as the DuckDB engine refuses them (named by
    # impression and rank: Spark has no file row numbers to give).
    dup = (log.df.where(F.col("impression_id").isNotNull() & F.col("rank").isNotNull())
           .groupBy("impression_id", "rank").count().where(F.col("count") > 1)
           .orderBy("impression_id", "rank").limit(1).collect())
    if dup:
        imp = dup[0]["impression_id"]
        cols = [F.col(c) if log.has(c) else F.lit(None) for c in ("user_id", "session_id")]
        rows = [tuple(r) for r in log.df.where(F.col("impression_id") == imp)
                .select(*cols, F.col("rank").cast("long")).collect()]
        raise one_per_rank(log.path, None, imp, dup[0]["rank"], log.columns["rank"], rows)


def _first_bad(log: SparkLog, bad: list[tuple[str, Any, Any, Any]]
               ) -> tuple[int | None, str, Any]:
    """(row, field, value) of the first bad value in file order: the value as read when
    it did not convert, else as converted (an out-of-range -1, as DuckDB reports it).

    Rows are numbered in file order by zipWithIndex (partitions of one file keep its
    order): a text file's row is its line (the header is line 1), Parquet's 1-based.
    """
    first = 2 if log.format in ("csv", "tsv") else 1
    if log.wide:
        first = 1  # the impression's row in the SERP-wide form is not recoverable here
    from pyspark.sql import functions as F

    flags = [F.struct(F.lit(name).alias("f"), src.cast("string").alias("v"),
                      conv.alias("c")).alias(f"b{i}")
             for i, (name, src, conv, _) in enumerate(bad)]
    conds = [cond for _, _, _, cond in bad]
    picked = log._raw.select(*[F.when(c, s) for c, s in zip(conds, flags, strict=True)])
    hit = (picked.rdd.zipWithIndex()
           .filter(lambda t: any(x is not None for x in t[0]))
           .first())
    values = [x for x in hit[0] if x is not None]
    row = None if log.wide else int(hit[1]) + first
    value = values[0]["v"] if values[0]["c"] is None else values[0]["c"]
    return row, values[0]["f"], value


@dataclass
class SparkAssignments:
    """An assignment table as a Spark DataFrame: ``unit_id``, ``variant`` (strings),
    ``first_exposure_ts`` (seconds) when present, the other columns under their own
    names (numbers as doubles when every value is one)."""

    path: str
    df: DataFrame
    fields: tuple[str, ...]
    extra: tuple[str, ...]
    columns: dict[str, str]


def read_assignments(spark: SparkSession, path: str | Path,
                     mapping: dict[str, str] | None = None, *, fmt: str | None = None
                     ) -> SparkAssignments:
    """Read an assignment table, as :func:`~relkit.metrics.online.source.open_assignments`
    does (a missing ``unit_id``/``variant`` or a bad ``first_exposure_ts`` is a
    :class:`FormatError` naming file, row and column)."""
    from pyspark.sql import functions as F
    from pyspark.sql import types as T

    path = str(path)
    _check_path(path)
    form = spark_format(path, fmt)
    known = {f.name: f for f in ASSIGN_FIELDS}
    mapping = parse_map(mapping, list(known))
    raw = _read_raw(spark, path, form, ())
    text = form in _TEXT
    have = list(raw.columns)
    selects: list[Column] = []
    fields: list[str] = []
    columns: dict[str, str] = {}
    problems = []
    for f in ASSIGN_FIELDS:
        col = mapping.get(f.name, f.name)
        if col not in have:
            if f.required or f.name in mapping:
                raise missing_column(path, f.name, mapping, have)
            continue
        dtype = _dtype(raw, col)
        src = F.col(_quoted(col))
        conv = _convert(f, src, dtype, text or isinstance(dtype, T.StringType))
        if conv is None:
            raise wrong_type(path, col, f, dtype.simpleString())
        cond = src.isNotNull() & conv.isNull()
        if f.required:
            cond = cond | src.isNull() | (F.trim(src.cast("string")) == "")
        problems.append((f, col, cond))
        selects.append(conv.alias(f.name))
        fields.append(f.name)
        columns[f.name] = col
    extra = [c for c in have if c not in columns.values()]
    numeric_checks = {}
    for c in extra:
        if isinstance(_dtype(raw, c), T.StringType):
            numeric_checks[c] = F.sum(F.when(F.col(_quoted(c)).isNotNull() & F.trim(
                F.col(_quoted(c))).try_cast("double").isNull(), 1).otherwise(0)).alias(c)
    aggs = [F.sum(F.when(cond, 1).otherwise(0)).alias(f"p{i}")
            for i, (_, _, cond) in enumerate(problems)] + list(numeric_checks.values())
    counts = raw.agg(*aggs).collect()[0].asDict() if aggs else {}
    for i, (f, col, cond) in enumerate(problems):
        if counts.get(f"p{i}"):
            first = 2 if form in ("csv", "tsv") else 1
            idx = (raw.select(F.when(cond, F.lit(1)).alias("bad")).rdd.zipWithIndex()
                   .filter(lambda t: t[0][0] is not None).first()[1])
            raise FormatError(path, int(idx) + first, f"{expected(f)} in column {col!r}",
                              "a missing or mistyped value")
    for c in extra:
        q = F.col(_quoted(c))
        if c in numeric_checks and counts.get(c) == 0:
            selects.append(F.trim(q).try_cast("double").alias(c))
        else:
            selects.append(q.alias(c))
    return SparkAssignments(path, raw.select(*selects), tuple(fields), tuple(extra), columns)
