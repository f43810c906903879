"""The click log's canonical fields, their types, and ``--map name=column`` parsing.

One place says what a field is: its canonical type (``id`` fields are ``VARCHAR``,
never numbers, so ``007`` stays ``007``), whether the long form requires it, and the
SQL that converts a source column of any DuckDB type into it. The readers
(:mod:`relkit.metrics.online.source`) and ``relkit clicks validate`` both build on it,
so what is read and what is checked cannot drift. Standard library only.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from relkit.metrics.core.errors import FormatError
from relkit.metrics.core.registry import did_you_mean

Kind = Literal["id", "int", "float", "time", "text"]


@dataclass(frozen=True)
class Field:
    """A canonical column: name, kind (``id``, ``int``, ``float``, ``time``, ``text``),
    whether the long form requires it, the smallest value it may take, and what it is."""

    name: str
    kind: Kind
    required: bool
    minimum: int | None
    description: str


# The long form, one row per displayed result. impression_id is required but derived
# from session_id + ts + query_id when the log has no such column.
LOG_FIELDS: tuple[Field, ...] = (
    Field("impression_id", "id", True, None, "one result page shown once (a SERP view)"),
    Field("query_id", "id", True, None, "the query the page answers"),
    Field("rank", "int", True, 1, "1-based position of the result on the page"),
    Field("doc_id", "id", True, None, "the result shown at that position"),
    Field("clicked", "int", True, 0, "clicks on the result (0/1, or a count)"),
    Field("user_id", "id", False, None, "the user (the A/B randomisation unit)"),
    Field("variant", "id", False, None, "the A/B arm the user was assigned to"),
    Field("session_id", "id", False, None, "the search session"),
    Field("ts", "time", False, None, "when the page was shown (seconds)"),
    Field("click_ts", "time", False, None, "when the result was first clicked (seconds)"),
    Field("dwell_s", "float", False, 0, "seconds spent on the clicked result"),
    Field("page", "int", False, 1, "1-based result page number"),
    Field("query", "text", False, None, "the query's text"),
)
FIELDS: dict[str, Field] = {f.name: f for f in LOG_FIELDS}

# The SERP-wide form: one row per impression, these list columns aligned by position;
# they unnest to the long form's field of the same meaning.
WIDE_LISTS: dict[str, str] = {"doc_ids": "doc_id", "clicks": "clicked",
                              "click_ts_list": "click_ts", "dwell_s_list": "dwell_s"}

ASSIGN_FIELDS: tuple[Field, ...] = (
    Field("unit_id", "id", True, None, "the randomisation unit (usually a user)"),
    Field("variant", "id", True, None, "the arm the unit was assigned to"),
    Field("first_exposure_ts", "time", False, None, "the unit's first exposure (seconds)"),
)

KIND_WORDS: dict[Kind, str] = {
    "id": "an id (a string)", "int": "an integer", "float": "a number",
    "time": "a time (seconds, or an ISO 8601 timestamp)", "text": "text",
}

_INTEGER_TYPES = ("TINYINT", "SMALLINT", "INTEGER", "BIGINT", "HUGEINT", "UTINYINT",
                  "USMALLINT", "UINTEGER", "UBIGINT", "UHUGEINT")
_WIDE_INTEGERS = ("HUGEINT", "UBIGINT", "UHUGEINT")
_FLOAT_TYPES = ("FLOAT", "DOUBLE", "REAL")


def expected(field: Field) -> str:
    """What a value of ``field`` must be, in words (``an integer >= 1``)."""
    word = KIND_WORDS[field.kind]
    return word if field.minimum is None else f"{word} >= {field.minimum}"


def parse_map(specs: str | Iterable[str] | dict[str, str] | None,
              allowed: Iterable[str]) -> dict[str, str]:
    """``--map`` values (``"rank=position"``, comma-separated or repeated) as a dict.

    Keys must be among ``allowed`` (canonical field names); values are the log's own
    column names. ``None`` or nothing gives ``{}``.

    >>> parse_map(["rank=pos,doc_id=url", "clicked=click"], ["rank", "doc_id", "clicked"])
    {'rank': 'pos', 'doc_id': 'url', 'clicked': 'click'}
    """
    known = list(allowed)
    if specs is None:
        return {}
    if isinstance(specs, dict):
        pairs = list(specs.items())
    else:
        parts = [specs] if isinstance(specs, str) else list(specs)
        pairs = []
        for part in (p for s in parts for p in s.split(",") if s):
            key, eq, col = part.partition("=")
            if not eq or not key.strip() or not col.strip():
                raise FormatError("--map", None, "name=column pairs (names: "
                                  f"{', '.join(known)})", repr(part))
            pairs.append((key.strip(), col.strip()))
    out: dict[str, str] = {}
    for key, col in pairs:
        if key not in known:
            raise FormatError("--map", None, f"a field among {', '.join(known)}",
                              f"{key!r}{did_you_mean(key, known)}")
        out[key] = col
    return out


def convert_sql(field: Field, src: str, dtype: str) -> str | None:
    """SQL turning the source column ``src`` (DuckDB type ``dtype``) into ``field``'s type.

    Returns ``None`` when no value of that type can be one of ``field`` (a list for a
    rank). A value that cannot be converted becomes ``NULL`` (``relkit clicks validate``
    reports those; see :func:`bad_sql`).
    """
    t = dtype.upper()
    if t.endswith("]") or t.startswith(("STRUCT", "MAP", "UNION")):
        return None
    text = t in ("VARCHAR", "JSON") or t.startswith("VARCHAR")
    if field.kind in ("id", "text"):
        if t in _FLOAT_TYPES and field.kind == "id":
            return None  # 1.0 vs 1: a float is never an id
        return f"CAST({src} AS VARCHAR)"
    if field.kind == "int":
        if t in _WIDE_INTEGERS:  # past int64: NULL, reported as not an integer
            return f"TRY_CAST({src} AS BIGINT)"
        if t in _INTEGER_TYPES:
            return f"CAST({src} AS BIGINT)"
        if t == "BOOLEAN":
            return f"CAST({src} AS BIGINT)"
        num = f"TRY_CAST(trim({src}) AS DOUBLE)" if text else f"CAST({src} AS DOUBLE)"
        if not text and not (t in _FLOAT_TYPES or t.startswith("DECIMAL")):
            return None
        # TRY_CAST: a whole number past int64 (1e20) is NULL, reported as a bad value
        exact = f"CASE WHEN {num} = trunc({num}) THEN TRY_CAST({num} AS BIGINT) END"
        if text and field.name == "clicked":
            return (f"CASE lower(trim({src})) WHEN 'true' THEN 1 WHEN 'false' THEN 0 "
                    f"ELSE {exact} END")
        return exact
    # A float or a time that is NaN is missing (pandas writes a missing float as NaN,
    # and NaN compares above every number in DuckDB: 'dwell_s >= 30' would hold).
    if field.kind == "float":
        if text:
            return _nan_is_null(f"TRY_CAST(trim({src}) AS DOUBLE)")
        if t in _INTEGER_TYPES or t in _FLOAT_TYPES or t.startswith("DECIMAL"):
            return _nan_is_null(f"CAST({src} AS DOUBLE)")
        return None
    # time: seconds as a DOUBLE, from a timestamp, a number, or text holding either
    if t.startswith(("TIMESTAMP", "DATE")):
        return f"epoch_us(CAST({src} AS TIMESTAMP)) / 1e6"
    if t in _INTEGER_TYPES or t in _FLOAT_TYPES or t.startswith("DECIMAL"):
        return _nan_is_null(f"CAST({src} AS DOUBLE)")
    if text:
        return _nan_is_null(f"coalesce(TRY_CAST(trim({src}) AS DOUBLE), "
                            f"epoch_us(TRY_CAST(trim({src}) AS TIMESTAMP)) / 1e6)")
    return None


def _nan_is_null(sql: str) -> str:
    # isnan, not nullif(x, 'NaN'): a NaN read from Parquet (another bit pattern) is not
    # equal to DuckDB's own NaN literal.
    return f"CASE WHEN isnan({sql}) THEN NULL ELSE {sql} END"


def nan_text_sql(field: Field, src: str) -> str:
    """SQL true where the text ``src`` is a NaN of a float or time field: a missing
    value (:func:`convert_sql` gives NULL), not one that failed to convert."""
    if field.kind not in ("float", "time"):
        return "false"
    return f"coalesce(isnan(TRY_CAST(trim(CAST({src} AS VARCHAR)) AS DOUBLE)), false)"


def range_sql(field: Field, name: str) -> str | None:
    """SQL true where the converted value ``name`` is out of ``field``'s range: below its
    minimum, or an infinite float or time; None when the field has no range."""
    conds = []
    if field.minimum is not None:
        conds.append(f"{name} < {field.minimum}")
    if field.kind in ("float", "time"):
        conds.append(f"NOT isfinite({name})")
    return " OR ".join(conds) or None


def range_words(field: Field) -> str:
    """What a value of ``field`` must be, range included (``a finite number >= 0``)."""
    word = KIND_WORDS[field.kind]
    if field.kind in ("float", "time"):
        word = "a finite " + word.removeprefix("a ")
    return word if field.minimum is None else f"{word} >= {field.minimum}"


def needs_check(field: Field, dtype: str) -> bool:
    """Whether converting a ``dtype`` column to ``field`` can fail on some values."""
    t = dtype.upper()
    if field.kind in ("id", "text"):
        return False
    if field.kind == "int":
        return t in _WIDE_INTEGERS or (t not in _INTEGER_TYPES and t != "BOOLEAN")
    if field.kind == "float":
        return t.startswith("VARCHAR") or t == "JSON"
    return t.startswith("VARCHAR") or t == "JSON"
