"""Describe a click log: volumes, CTR by rank, abandonment, dwell time; per group.

Definitions (docs/clicks.md):

- CTR at rank r: the share of results shown at rank r that were clicked at least once
  (``clicked > 0``), over all impressions showing rank r.
- Abandonment: the share of impressions with no click at all.
- Dwell: quantiles (linear interpolation, as ``numpy.quantile``'s default) of
  ``dwell_s`` over clicked results that have one.

Everything is aggregated in DuckDB; Python receives one row per group and rank.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from relkit.metrics.online.source import LogSource

Progress = Callable[[int, int], None]
QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass
class GroupStats:
    """The summary of one group (the whole log when not grouped)."""

    group: str | None
    rows: int = 0
    impressions: int = 0
    sessions: int | None = None
    queries: int = 0
    users: int | None = None
    clicks: int = 0
    clicked_results: int = 0
    abandonment: float = 0.0
    dwell_n: int = 0
    dwell_mean: float | None = None
    dwell: dict[float, float] = field(default_factory=dict)
    ctr: dict[int, tuple[int, int]] = field(default_factory=dict)  # rank -> (shown, clicked)

    @property
    def ctr_overall(self) -> float | None:
        """Clicked results / shown results."""
        return self.clicked_results / self.rows if self.rows else None


def stats(log: LogSource, by: str | None = None, *, progress: Progress | None = None
          ) -> list[GroupStats]:
    """Summaries of ``log``, one per value of field ``by`` (or one for the whole log).

    ``by`` must be a field of the log (``variant``...); rows with no value of it form a
    group ``None``. Groups come sorted by name.
    """
    from relkit.metrics.core.errors import FormatError
    from relkit.metrics.core.registry import did_you_mean
    from relkit.metrics.online.fields import FIELDS

    if by is not None and by not in log.fields:
        if by in FIELDS:  # a canonical field this log lacks: --map can supply it
            raise FormatError(log.path, None, f"a {by!r} field to group by (map one with "
                              f"--map {by}=COLUMN)", f"fields {list(log.fields)}")
        raise FormatError("--by", None, f"a field of {log.path} "
                          f"({', '.join(log.fields)})", f"{by!r}{did_you_mean(by, log.fields)}")
    con, v = log.con, log.view
    key = f"CAST({by} AS VARCHAR)" if by else "NULL::VARCHAR"
    steps, done = 3, 0

    def step() -> None:
        nonlocal done
        done += 1
        if progress is not None:
            progress(done, steps)

    groups: dict[str | None, GroupStats] = {}

    def get(g: str | None) -> GroupStats:
        return groups.setdefault(g, GroupStats(g))

    # Positions: the cheap grouping (few groups), rows and clicks per rank.
    for g, rank, shown, clicked, clicks in con.execute(
            f"SELECT {key} AS g, rank, count(*), count(*) FILTER (WHERE clicked > 0), "
            f"coalesce(sum(clicked), 0) FROM {v} GROUP BY ALL").fetchall():
        s = get(g)
        s.rows += int(shown)
        s.clicked_results += int(clicked)
        s.clicks += int(clicks)
        if rank is not None:
            s.ctr[int(rank)] = (int(shown), int(clicked))
    step()
    # Impressions: one group per impression (the expensive one), then the distinct
    # counts over impressions rather than over rows, in the same query.
    extra = [c for c in ("session_id", "user_id") if log.has(c)]
    anys = "".join(f", any_value({c}) AS {c}" for c in extra)
    distinct = "".join(f", count(DISTINCT {c})" for c in extra)
    for g, n, queries, abandoned, *rest in con.execute(
            f"SELECT g, count(*), count(DISTINCT query_id), "
            f"count(*) FILTER (WHERE NOT coalesce(hit, false)){distinct} FROM ("
            f"SELECT {key} AS g, any_value(query_id) AS query_id{anys}, "
            f"bool_or(clicked > 0) AS hit FROM {v} GROUP BY impression_id, g) "
            f"GROUP BY g").fetchall():
        s = get(g)
        s.impressions, s.queries = int(n), int(queries)
        s.abandonment = int(abandoned) / int(n) if n else 0.0
        got = dict(zip(extra, rest, strict=True))
        s.sessions = int(got["session_id"]) if "session_id" in got else None
        s.users = int(got["user_id"]) if "user_id" in got else None
    step()
    if log.has("dwell_s"):
        qs = ", ".join(map(str, QUANTILES))
        for g, n, mean, values in con.execute(
                f"SELECT {key} AS g, count(*), avg(dwell_s), quantile_cont(dwell_s, [{qs}]) "
                f"FROM {v} WHERE clicked > 0 AND dwell_s IS NOT NULL GROUP BY ALL"
        ).fetchall():
            s = get(g)
            s.dwell_n, s.dwell_mean = int(n), float(mean)
            s.dwell = dict(zip(QUANTILES, map(float, values), strict=True))
    step()
    return [groups[g] for g in sorted(groups, key=lambda g: (g is None, g or ""))]
