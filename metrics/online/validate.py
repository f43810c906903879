"""Check a click log: every problem counted, with the first rows it is on.

The rules (each a :class:`Problem` kind; docs/clicks.md lists them for users):

``type``
    a value that is not of its field's type (``rank`` ``abc``);
``missing``
    a required field (``impression_id``, ``query_id``, ``rank``, ``doc_id``,
    ``clicked``) with no value;
``range``
    ``rank`` or ``page`` below 1, ``clicked`` or ``dwell_s`` below 0, an infinite
    ``dwell_s``, ``ts`` or ``click_ts``;
``duplicate``
    two rows for one (``impression_id``, ``rank``);
``rank-gap``
    an impression whose ranks are not 1, 2, ..., n (a position never shown between
    shown ones, or no rank 1);
``unshown-click``
    a click (``clicked`` > 0) on a position that shows no document (no ``doc_id``; in
    the SERP-wide form a ``clicks`` list longer than ``doc_ids``);
``clock``
    a ``click_ts`` before its page's ``ts``, or a page whose ``ts`` is earlier than the
    page before it in the same session (file order).

All counting runs in DuckDB; the per-position rules work on one aggregate row per
impression (a bit mask of the ranks shown), so a 100M-row log is grouped once.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from relkit.metrics.online.fields import FIELDS
from relkit.metrics.online.source import LogSource

Progress = Callable[[int, int], None]


@dataclass(frozen=True)
class Problem:
    """One kind of problem in one column: how many rows (or impressions), first rows."""

    rule: str
    column: str
    message: str
    count: int
    rows: tuple[int, ...]
    unit: str = "row"

    def line(self, path: str) -> str:
        """The problem as one line: ``path:row: column ...`` or, for many, a count."""
        if self.count == 1 and self.rows:
            more = f" (rows {', '.join(map(str, self.rows))})" if len(self.rows) > 1 else ""
            return f"{path}:{self.rows[0]}: {self.column}: {self.message}{more} [{self.rule}]"
        first = ", ".join(map(str, self.rows))
        return (f"{path}: {self.column}: {self.message} [{self.rule}]: {self.count:,} "
                f"{self.unit}s (first at rows {first})")


@dataclass(frozen=True)
class Summary:
    """What was checked: rows and impressions."""

    rows: int
    impressions: int


def _t(x: object) -> tuple[Any, ...]:
    """A DuckDB struct as a tuple (named structs come as dicts, unnamed as tuples)."""
    return tuple(x.values()) if isinstance(x, dict) else tuple(x)  # type: ignore[arg-type]


def _first_rows(log: LogSource, where: str, limit: int) -> tuple[int, ...]:
    got = log.con.execute(f"SELECT _row FROM {log.view} WHERE {where} "
                          f"ORDER BY _row LIMIT {limit}").fetchall()
    return tuple(int(r) for (r,) in got)


def _row_rules(log: LogSource) -> list[tuple[str, str, str, str]]:
    """(rule, field, SQL condition on the view, message) for the rules on single rows.

    A rule the Parquet footer's statistics prove cannot fire (no nulls, minimum in
    range) is left out, so a clean Parquet log's string columns are not even read.
    """
    out = []
    bad = {b.field for b in log.bad_values(limit=1)}
    footer = log.parquet_stats()

    def present(name: str) -> bool:
        """Whether ``name`` may have a missing (NULL or, for ids, empty) value."""
        if name not in footer:
            return True
        lo, _, nulls = footer[name]
        return nulls > 0 or (FIELDS[name].kind == "id" and lo == "")

    for name in log.fields:
        f = FIELDS[name]
        if f.required and name not in bad and present(name):
            cond = f"{name} IS NULL"
            if f.kind == "id":
                cond += f" OR {name} = ''"
            if name == "doc_id":  # a click there is an unshown click, reported as such
                cond = f"({cond}) AND coalesce(clicked, 0) <= 0"
            out.append(("missing", name, cond, "no value"))
    out += [("range", name, cond, f"expected {words}") for name, cond, words in
            log.range_rules()]
    if present("doc_id"):
        out.append(("unshown-click", "clicked",
                    "clicked > 0 AND (doc_id IS NULL OR doc_id = '')",
                    "a click on a position that shows no document"))
    if log.has("ts", "click_ts"):
        out.append(("clock", "click_ts", "click_ts < ts", "click before the page was shown"))
    return out


def validate(log: LogSource, *, limit: int = 5, progress: Progress | None = None
             ) -> tuple[list[Problem], Summary]:
    """Every problem in ``log`` (see the module's rules) and what was checked.

    Parameters
    ----------
    log
        An opened log (:func:`~relkit.metrics.online.source.open_log`).
    limit
        How many first rows each problem names.
    progress
        Called as ``progress(done, total)`` after each step.
    """
    steps, done = 4, 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, steps)

    con, v = log.con, log.view
    problems = [Problem("type", b.column, f"expected {b.expected}, found {b.first!r}",
                        b.count, b.rows) for b in log.bad_values(limit)]
    step()
    rules = _row_rules(log)
    sessions = log.has("session_id", "ts")
    # One scan, one group per impression. Ranks 1..63 as bits of one integer:
    # duplicates show as more ranks than bits set, gaps as a mask that is not
    # 2^max - 1. Impressions with other ranks are checked exactly, by a second scan.
    # The row rules as one condition: a clean log (the usual case) pays for one test
    # per row; the rules are counted one by one only when some row fails it.
    any_rule = " OR ".join(f"({cond})" for _, _, cond, _ in rules) or "false"
    session = ", any_value(session_id) AS session_id, min(ts) AS ts" if sessions else ""
    imp = (f"SELECT impression_id, count(*) AS rows, count(rank) AS n, max(rank) AS mx, "
           f"min(rank) AS mn, min(_row) AS first_row{session}, "
           f"bit_or(CASE WHEN rank BETWEEN 1 AND 63 THEN (1::UBIGINT << (rank - 1)::UBIGINT) "
           f"ELSE 0::UBIGINT END) AS mask, count(*) FILTER (WHERE {any_rule}) AS bad "
           f"FROM {v} GROUP BY impression_id")
    high = "(mx > 63 OR mn < 1)"
    dup = f"impression_id IS NOT NULL AND NOT {high} AND n > bit_count(mask)"
    gap = (f"impression_id IS NOT NULL AND NOT {high} AND n > 0 AND "
           # CASE: DuckDB evaluates the shift on rows the other terms rule out too
           f"mask <> CASE WHEN mx BETWEEN 1 AND 63 THEN (1::UBIGINT << mx::UBIGINT) - 1 END")
    first = "first_row, impression_id"
    back = (f"(SELECT (count(*), min(first_row, {limit})) FROM (SELECT first_row, ts < lag(ts) "
            "OVER (PARTITION BY session_id ORDER BY first_row) AS back FROM imp "
            "WHERE session_id IS NOT NULL) WHERE back)")
    got = con.execute(
        f"WITH imp AS MATERIALIZED ({imp}) SELECT sum(rows), count(impression_id), "
        f"count(*) FILTER (WHERE {high}), "
        f"count(*) FILTER (WHERE {dup}), min(({first}), {limit}) FILTER (WHERE {dup}), "
        f"count(*) FILTER (WHERE {gap}), min(({first}), {limit}) FILTER (WHERE {gap}), "
        f"{back if sessions else 'NULL'}, sum(bad) FROM imp").fetchone()
    step()
    assert got is not None
    total, impressions, n_high, n_dup, dups, n_gap, gaps, backs, bad = got
    counts = [0] * len(rules)
    if bad:
        counts = list(con.execute("SELECT " + ", ".join(
            f"count(*) FILTER (WHERE {cond})" for _, _, cond, _ in rules) + f" FROM {v}"
        ).fetchone() or counts)
    for (rule, name, cond, message), n in zip(rules, counts, strict=True):
        if n:
            problems.append(Problem(rule, log.columns.get(name, name), message, int(n),
                                    _first_rows(log, cond, limit)))
    found = {"duplicate": (int(n_dup), [_t(x) for x in dups or []]),
             "rank-gap": (int(n_gap), [_t(x) for x in gaps or []])}
    if n_high:  # impressions with ranks past 63 or below 1: counted exactly
        for rule, cond in (("duplicate", "n > d"), ("rank-gap", "d <> mx OR mn <> 1")):
            more = con.execute(
                f"SELECT count(*), min((first_row, impression_id), {limit}) FROM ("
                f"SELECT impression_id, count(*) AS n, count(DISTINCT rank) AS d, "
                f"max(rank) AS mx, min(rank) AS mn, min(_row) AS first_row FROM {v} "
                f"WHERE impression_id IN (SELECT impression_id FROM ({imp}) WHERE {high}) "
                f"GROUP BY impression_id) WHERE {cond}").fetchone()
            if more and more[0]:
                n, items = found[rule]
                found[rule] = (n + int(more[0]),
                               sorted(items + [_t(x) for x in more[1]])[:limit])
    step()
    rank_col = log.columns.get("rank", "rank")
    for rule, message in (("duplicate", "a rank shown twice in one impression"),
                          ("rank-gap", "ranks of an impression are not 1..n "
                           "(a position never shown)")):
        n, items = found[rule]
        if not n:
            continue
        if rule == "duplicate":
            ids = ", ".join("'" + str(i).replace("'", "''") + "'" for _, i in items)
            rows = _first_rows(log, f"impression_id IN ({ids}) QUALIFY count(*) OVER "
                               f"(PARTITION BY impression_id, rank) > 1", limit)
        else:
            rows = tuple(int(r) for r, _ in items)
        problems.append(Problem(rule, rank_col, message, n, rows, "impression"))
    n_back, backs = _t(backs) if backs else (0, [])
    if n_back:
        problems.append(Problem("clock", log.columns["ts"], "page shown earlier than the "
                                "page before it in its session", int(n_back),
                                tuple(int(r) for r in backs), "impression"))
    step()
    problems.sort(key=lambda p: (p.rows[0] if p.rows else 0, p.column, p.rule))
    return problems, Summary(int(total or 0), int(impressions))
