"""A self-contained HTML agreement report: tables plus inline SVG charts.

Charts are drawn as plain SVG (a few rectangles), so the report needs no
plotting library and no network: one file to mail to a lead.
"""

from __future__ import annotations

from html import escape

import numpy as np

from relkit.judging.agreement.analysis import Analysis, Level, Pair
from relkit.judging.agreement.sections import Section

MAX_HEAT = 40        # assessors in the heat map
MAX_CONFUSION = 12   # confusion matrices shown per level


def _colour(v: float | None) -> str:
    """Diverging: red (-1) - white (0) - blue (1); grey when undefined."""
    if v is None:
        return "#dddddd"
    x = max(-1.0, min(1.0, v))
    if x >= 0:
        r = g = int(255 - 190 * x)
        return f"rgb({r},{g},255)"
    g = b = int(255 + 190 * x)
    return f"rgb(255,{g},{b})"


def heat_map(lv: Level, assessors: list[str], stat: str = "cohen_kappa") -> str:
    n = len(assessors)
    if n < 2 or n > MAX_HEAT:
        return f"<p>(heat map shown for 2 to {MAX_HEAT} assessors; there are {n})</p>"
    idx = {a: i for i, a in enumerate(assessors)}
    m: list[list[float | None]] = [[None] * n for _ in range(n)]
    for p in lv.pairs:
        if p.a in idx and p.b in idx:
            v = p.stats[stat].value
            m[idx[p.a]][idx[p.b]] = m[idx[p.b]][idx[p.a]] = v
    c, left, top = 34, 140, 120
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + n * c + 10}" '
           f'height="{top + n * c + 10}" font-size="11" font-family="sans-serif">']
    for i, a in enumerate(assessors):
        out.append(f'<text x="{left - 4}" y="{top + i * c + c / 2 + 4}" '
                   f'text-anchor="end">{escape(a[:20])}</text>')
        out.append(f'<text transform="translate({left + i * c + c / 2 + 4},{top - 4}) '
                   f'rotate(-60)">{escape(a[:20])}</text>')
        for j in range(n):
            v = 1.0 if i == j else m[i][j]
            label = "" if i == j else ("–" if v is None else f"{v:.2f}")
            out.append(f'<rect x="{left + j * c}" y="{top + i * c}" width="{c}" height="{c}" '
                       f'fill="{_colour(v)}" stroke="#fff"><title>{escape(a)} / '
                       f'{escape(assessors[j])}: {label or "self"}</title></rect>')
            out.append(f'<text x="{left + j * c + c / 2}" y="{top + i * c + c / 2 + 4}" '
                       f'text-anchor="middle">{label}</text>')
    out.append("</svg>")
    return "".join(out)


def confusion(p: Pair, labels: list[str]) -> str:
    t = np.asarray(p.table)
    top = max(int(t.max()), 1)
    rows = ["<table class=conf><tr><th>" + escape(p.a) + " \\ " + escape(p.b) + "</th>"
            + "".join(f"<th>{escape(x)}</th>" for x in labels) + "</tr>"]
    for i, lab in enumerate(labels):
        cells = "".join(
            f'<td style="background:{_colour(float(t[i, j]) / top)}">{int(t[i, j])}</td>'
            for j in range(len(labels)))
        rows.append(f"<tr><th>{escape(lab)}</th>{cells}</tr>")
    return "".join(rows) + "</table>"


def topic_bars(lv: Level, stat: str = "fleiss_kappa") -> str:
    items = [(t, d[stat].value) for t, d in lv.per_topic.items()]
    if not items:
        return ""
    h, left, width = 16, 90, 400
    mid = left + width / 2
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{left + width + 60}" '
           f'height="{len(items) * h + 30}" font-size="11" font-family="sans-serif">',
           f'<line x1="{mid}" y1="0" x2="{mid}" y2="{len(items) * h}" stroke="#888"/>']
    for i, (t, v) in enumerate(items):
        y = i * h
        out.append(f'<text x="{left - 4}" y="{y + 12}" text-anchor="end">{escape(t)}</text>')
        if v is None:
            out.append(f'<text x="{mid + 4}" y="{y + 12}" fill="#888">undefined</text>')
            continue
        x0, x1 = sorted((mid, mid + v * width / 2))
        out.append(f'<rect x="{x0}" y="{y + 2}" width="{max(x1 - x0, 0.5)}" height="{h - 4}" '
                   f'fill="{_colour(v)}" stroke="#557"><title>{escape(t)}: {v:.3f}</title>'
                   f'</rect><text x="{max(x1, mid) + 4}" y="{y + 12}">{v:.2f}</text>')
    out.append(f'<text x="{left}" y="{len(items) * h + 20}">-1</text>'
               f'<text x="{mid}" y="{len(items) * h + 20}">0</text>'
               f'<text x="{left + width - 8}" y="{len(items) * h + 20}">1</text></svg>')
    return "".join(out)


def _table(s: Section) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in s.header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>"
                   for r in s.rows)
    note = f"<p class=note>{escape(s.note)}</p>" if s.note else ""
    return f"<h2>{escape(s.title)}</h2><table><tr>{head}</tr>{body}</table>{note}"


CSS = ("body{font-family:sans-serif;margin:2em;max-width:1200px}table{border-collapse:collapse;"
       "margin:.5em 0}td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px;"
       "text-align:right}th{background:#f4f4f4}.note{color:#666;font-size:12px}"
       ".conf{display:inline-table;margin-right:1em}")


def render(a: Analysis, head: list[str], sections: list[Section]) -> str:
    peers = [x for x in a.assessors if x != a.gold]
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'><title>Assessor agreement"
             f"</title><style>{CSS}</style></head><body><h1>Assessor agreement</h1>"]
    parts += [f"<p>{escape(h)}</p>" for h in head]
    for lv in (a.graded, a.binary):
        parts.append(f"<h2>Pairwise Cohen's kappa ({escape(lv.name)})</h2>")
        parts.append(heat_map(lv, peers))
        shown = (lv.gold or lv.pairs)[:MAX_CONFUSION]
        if shown:
            parts.append(f"<h2>Confusion matrices ({escape(lv.name)})</h2><div>")
            parts += [confusion(p, lv.labels) for p in shown]
            parts.append("</div>")
        if lv.per_topic:
            parts.append(f"<h2>Fleiss' kappa per topic ({escape(lv.name)})</h2>")
            parts.append(topic_bars(lv))
    parts += [_table(s) for s in sections]
    parts.append("</body></html>\n")
    return "".join(parts)
