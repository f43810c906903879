"""The click-log contract, once: which column feeds which field, and every check's words.

A click log is read by two backends: DuckDB (:func:`relkit.metrics.online.source.open_log`,
the ``local`` and ``duckdb`` engines) and Spark (:func:`relkit.metrics.spark.logs.read_log`).
Both follow this module: the canonical fields and ``--map`` (:mod:`.fields`), the
SERP-wide form (list columns, ``clicks`` required), the required fields, an
``impression_id`` derived from ``session_id``, ``ts`` and ``query_id`` when absent, and
the errors (a missing column, a column whose type cannot hold its field, a value out of
its field's range, a log without rows, two results at one rank). A backend only says
what its columns are and how it converts one (its SQL); the decisions and the messages
are made here, so the two engines refuse the same files with the same line.

Standard library only.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Generic, TypeVar

from relkit.metrics.core.errors import FormatError, InputError
from relkit.metrics.online.fields import (
    FIELDS,
    LOG_FIELDS,
    WIDE_LISTS,
    Field,
    expected,
    range_words,
)

C = TypeVar("C")   # a backend's converted column (SQL text, a Spark Column)

REUSED_HINT = ("an impression id must name one page view (number them per log, not per "
               "user or session; or drop the column to derive ids from session_id, ts and "
               "query_id)")
# The column a SERP-wide file's ranks come from (the position in its list columns).
WIDE_RANK = "relkit_rank"


def missing_column(path: str, name: str, mapping: Mapping[str, str], have: Iterable[str],
                   also: str = "") -> FormatError:
    """No column for field ``name`` among ``have`` (``also``: what else would do)."""
    col = mapping.get(name, name)
    cols = [c for c in have if c != "_row"]   # DuckDB's row number is not the file's
    return FormatError(path, None, f"a column {col!r} for the {name}{also} "
                       f"(map one with --map {name}=COLUMN)", f"columns {cols}")


def wrong_type(path: str, column: str, f: Field, type_name: str) -> FormatError:
    """Column ``column``'s type cannot hold field ``f``."""
    return FormatError(path, None, f"column {column!r} (the {f.name}) to hold "
                       f"{expected(f)}", f"type {type_name}")


def bad_value(path: str, row: int | None, name: str, column: str, value: object
              ) -> FormatError:
    """A value of field ``name`` not of its type, or out of its range, at ``row``."""
    return FormatError(path, row, f"{range_words(FIELDS[name])} in column {column!r}",
                       repr(value))


def no_rows(path: str) -> InputError:
    """A log without impressions."""
    return InputError(f"{path}: no rows (a log with no impressions)")


def reused_why(rows: list[tuple[object, ...]]) -> str:
    """Whose page views share an impression id, from its (user, session, rank) rows:
    "users 'u1' and 'u2'", "sessions ...", or "two page views (rank 2 twice)"."""
    users = sorted({str(u) for u, _, _ in rows if u is not None})
    if len(users) > 1:
        return f"users {users[0]!r} and {users[1]!r}"
    sessions = sorted({str(s) for _, s, _ in rows if s is not None})
    if len(sessions) > 1:
        return f"sessions {sessions[0]!r} and {sessions[1]!r}"
    ranks = [int(r) for _, _, r in rows if isinstance(r, int)]
    twice = sorted({r for r in ranks if ranks.count(r) > 1})
    return f"two page views (rank {twice[0]} twice)" if twice else "two page views"


def one_per_rank(path: str, row: int | None, impression: object, rank: object,
                 rank_column: str, rows: list[tuple[object, ...]]) -> Exception:
    """The error for two rows at one (impression, rank): an id reused by two users or
    sessions (:class:`InputError`), else a page with two results at one rank."""
    why = reused_why(rows)
    if not why.startswith("two page views"):  # the id names page views of two users
        return InputError(f"{path}: impression_id {impression!r} is used by {why}: "
                          f"{REUSED_HINT}")
    return FormatError(path, row, f"one result per rank in column {rank_column!r}",
                       f"a second result at rank {rank} of impression {impression!r} "
                       "(relkit clicks validate lists every problem)")


@dataclass
class Wide:
    """How a file maps to the fields before its values are read."""

    wide: bool                        # the SERP-wide form (one row per impression)
    lists: dict[str, str]             # list field (doc_ids, clicks...) -> column
    colmap: dict[str, str]            # long-form field -> column (after unnesting)


def map_columns(path: str, mapping: Mapping[str, str], types: Mapping[str, str],
                is_list: Callable[[str], bool]) -> Wide:
    """Check ``--map``'s columns exist and find the form: ``types`` is column -> type
    name (as the backend names types, for messages), ``is_list`` whether a column holds
    lists. A SERP-wide file needs a ``clicks`` list and every list field a list."""
    have = list(types)
    for name, col in mapping.items():
        if col not in types:
            raise missing_column(path, name, mapping, have)
    colmap = {f.name: mapping.get(f.name, f.name) for f in LOG_FIELDS}
    doc_ids = mapping.get("doc_ids", "doc_ids")
    if not (doc_ids in types and is_list(doc_ids)):
        return Wide(False, {}, colmap)
    lists = {k: mapping.get(k, k) for k in WIDE_LISTS if mapping.get(k, k) in types}
    if "clicks" not in lists:
        raise missing_column(path, "clicks", mapping, have, " (a list, the SERP-wide form)")
    for k, c in lists.items():
        if not is_list(c):
            raise FormatError(path, None, f"a list column {c!r} for the {k} "
                              "(the SERP-wide form)", f"type {types[c]}")
    for k, c in lists.items():
        colmap[WIDE_LISTS[k]] = c
    colmap["rank"] = WIDE_RANK
    return Wide(True, lists, colmap)


@dataclass
class Plan(Generic[C]):
    """The fields a log has and where each comes from (:func:`plan_fields`)."""

    selects: list[tuple[str, C]] = field(default_factory=list)   # field -> converted
    columns: dict[str, str] = field(default_factory=dict)        # field -> column, as said
    sources: dict[str, tuple[str, str]] = field(default_factory=dict)  # (column, type)
    derive: list[str] | None = None   # impression_id from these columns, when absent

    @property
    def fields(self) -> tuple[str, ...]:
        """The fields present, in canonical order (a derived impression_id first)."""
        return tuple(["impression_id"] * (self.derive is not None)
                     + [n for n, _ in self.selects])


def plan_fields(path: str, mapping: Mapping[str, str], colmap: Mapping[str, str],
                types: Mapping[str, str], convert: Callable[[str, str, str], C | None],
                have: list[str]) -> Plan[C]:
    """Each field's column and its conversion, ``convert(field, column, type)`` (None:
    the type cannot hold the field); ``types`` are the columns after unnesting, ``have``
    the file's own (for messages). Required fields must be there; ``impression_id`` is
    derived when the file has ``session_id``, ``ts`` and ``query_id``."""
    plan: Plan[C] = Plan()
    for f in LOG_FIELDS:
        col = colmap[f.name]
        if col not in types:
            if f.name == "impression_id":
                continue  # derived below, or reported missing
            if f.required:
                raise missing_column(path, f.name, mapping, have)
            continue
        conv = convert(f.name, col, types[col])
        if conv is None:
            raise wrong_type(path, col, f, types[col])
        plan.selects.append((f.name, conv))
        plan.columns[f.name] = "position in " + colmap["doc_id"] if col == WIDE_RANK else col
        plan.sources[f.name] = (col, types[col])
    if "impression_id" not in plan.columns:
        parts = [colmap[n] for n in ("session_id", "ts", "query_id")]
        if not all(p in types for p in parts):
            raise missing_column(path, "impression_id", mapping, have,
                                 " (or session_id, ts and query_id to derive it from)")
        plan.derive = parts
        plan.columns["impression_id"] = "+".join(parts)
    return plan


def existing_file(path: str | os.PathLike[str]) -> str:
    """``path`` as text once it names a file: a click log's or an assignment table's
    missing path or directory is one line naming it, before DuckDB is asked to read it."""
    from relkit.metrics.core.errors import not_a_file

    path = str(path)
    if not os.path.exists(path) or os.path.isdir(path):   # (a pipe is read)
        raise InputError(f"{path}: {not_a_file(path)}")
    return path
