"""``relkit clicks stats``'s two tables, as text or in a table format.

The summary (one row per group) and CTR by rank (one row per group and rank), built as
plain headers and rows; ``text`` aligns them for reading, the formats of
:data:`relkit.metrics.core.tables.TABLE_FORMATS` write them for programs.
"""

from __future__ import annotations

import io
import json

from relkit.metrics.core.tables import TABLE_FORMATS, Cell, cell_text
from relkit.metrics.online.stats import QUANTILES, GroupStats

Table = tuple[list[str], list[list[Cell]]]


def _q(q: float) -> str:
    return f"dwell_p{round(q * 100)}"


def summary_table(groups: list[GroupStats], by: str | None) -> Table:
    """One row per group: volumes, overall CTR, abandonment, dwell quantiles."""
    head = ["rows", "impressions", "sessions", "queries", "users", "clicks", "ctr",
            "abandonment", "dwell_n", "dwell_mean", *map(_q, QUANTILES)]
    rows: list[list[Cell]] = []
    for g in groups:
        rows.append([g.rows, g.impressions, g.sessions, g.queries, g.users, g.clicks,
                     g.ctr_overall, g.abandonment, g.dwell_n, g.dwell_mean,
                     *(g.dwell.get(q) for q in QUANTILES)])
    return _grouped(head, rows, groups, by)


def ctr_table(groups: list[GroupStats], by: str | None) -> Table:
    """One row per group and rank: results shown, clicked, CTR."""
    head = ["rank", "shown", "clicked", "ctr"]
    rows: list[list[Cell]] = []
    keys: list[GroupStats] = []
    for g in groups:
        for rank in sorted(g.ctr):
            shown, clicked = g.ctr[rank]
            rows.append([rank, shown, clicked, clicked / shown if shown else None])
            keys.append(g)
    return _grouped(head, rows, keys, by)


def _grouped(head: list[str], rows: list[list[Cell]], groups: list[GroupStats],
             by: str | None) -> Table:
    if by is None:
        return head, rows
    return [by, *head], [[g.group, *r] for g, r in zip(groups, rows, strict=True)]


def tidy_table(tables: dict[str, Table], by: str | None) -> Table:
    """Both tables as one, a value per row: ``section, [by,] rank, name, value``.

    ``section`` is ``summary`` (``rank`` empty) or ``ctr_by_rank``; ``name`` is the
    column of that table (``impressions``, ``ctr``...). One header, one parseable table.
    """
    keys = [by] if by is not None else []
    out: list[list[Cell]] = []
    for section, (head, rows) in tables.items():
        fixed = len(keys) + (section == "ctr_by_rank")
        for r in rows:
            rank = r[len(keys)] if section == "ctr_by_rank" else None
            out.extend([section, *r[:len(keys)], rank, name, value]
                       for name, value in zip(head[fixed:], r[fixed:], strict=True))
    return ["section", *keys, "rank", "name", "value"], out


def _aligned(table: Table) -> str:
    head, rows = table
    cells = [head, *[[cell_text(x, "-") for x in r] for r in rows]]
    width = [max(len(r[i]) for r in cells) for i in range(len(head))]
    return "".join("  ".join(c.rjust(w) if i else c.ljust(w)
                             for i, (c, w) in enumerate(zip(r, width, strict=True))).rstrip()
                   + "\n" for r in cells)


def render(groups: list[GroupStats], by: str | None, fmt: str = "text") -> str:
    """Both tables in ``fmt`` (``text`` or a table format's name)."""
    tables = {"summary": summary_table(groups, by), "ctr_by_rank": ctr_table(groups, by)}
    if fmt == "text":
        return "\n".join(f"{name.replace('_', ' ')}:\n{_aligned(t)}"
                         for name, t in tables.items())
    if fmt.lower() == "json":
        return json.dumps({name: [dict(zip(h, r, strict=True)) for r in rows]
                           for name, (h, rows) in tables.items()}, indent=2) + "\n"
    form = TABLE_FORMATS.lookup(fmt)
    if fmt.lower() in ("tsv", "csv"):  # for programs: one table, not two in one file
        head, rows = tidy_table(tables, by)
        buf = io.StringIO()
        form.write(head, rows, buf, "")
        return buf.getvalue()
    out = []
    for head, rows in tables.values():
        buf = io.StringIO()
        form.write(head, rows, buf, "")
        out.append(buf.getvalue())
    return "\n".join(out)
