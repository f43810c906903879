"""The agreement report's charts as inline SVG: the kappa matrix and per-topic columns.

Plain SVG (rectangles and text), so the report needs no plotting library and no
network. The colour scale is diverging, red (-1) through white (0) to blue (1),
linear in each half, so a legend gradient with three stops shows it exactly.
"""

from __future__ import annotations

from html import escape

import numpy as np

from relkit.judging.agreement.analysis import Level, Pair

MAX_HEAT = 40        # assessors in the matrix
UNDEFINED = "#d9d9d9"
FONT = 'font-size="12" font-family="sans-serif"'


def colour(v: float | None) -> str:
    """Diverging: red (-1) - white (0) - blue (1); grey when undefined."""
    if v is None:
        return UNDEFINED
    x = max(-1.0, min(1.0, v))
    if x >= 0:
        r = g = int(255 - 190 * x)
        return f"rgb({r},{g},255)"
    g = b = int(255 + 190 * x)
    return f"rgb(255,{g},{b})"


def _ink(v: float | None) -> str:
    """Text colour readable on :func:`colour` (white on the darkest fills)."""
    return "#fff" if v is not None and abs(v) > 0.65 else "#111"


def _matrix(lv: Level, assessors: list[str], stat: str) -> list[list[float | None]]:
    idx = {a: i for i, a in enumerate(assessors)}
    n = len(assessors)
    m: list[list[float | None]] = [[None] * n for _ in range(n)]
    for p in lv.pairs:
        if p.a in idx and p.b in idx:
            m[idx[p.a]][idx[p.b]] = m[idx[p.b]][idx[p.a]] = p.stats[stat].value
    return m


def _legend(x: float, y: float, width: float, uid: str, label: str) -> str:
    """A colour bar from -1 to 1 with ticks, plus swatches for 'undefined' and 'self'."""
    out = [f'<g class="legend" id="{uid}-legend">',
           f'<linearGradient id="{uid}-scale"><stop offset="0" stop-color="{colour(-1)}"/>'
           f'<stop offset="0.5" stop-color="{colour(0)}"/>'
           f'<stop offset="1" stop-color="{colour(1)}"/></linearGradient>',
           f'<text x="{x}" y="{y - 6}">{escape(label)}</text>',
           f'<rect x="{x}" y="{y}" width="{width}" height="12" fill="url(#{uid}-scale)" '
           'stroke="#888"/>']
    for t in (-1, -0.5, 0, 0.2, 0.4, 0.6, 0.8, 1):
        tx = x + (t + 1) / 2 * width
        out.append(f'<line x1="{tx}" y1="{y + 12}" x2="{tx}" y2="{y + 16}" stroke="#555"/>'
                   f'<text x="{tx}" y="{y + 28}" text-anchor="middle">{t:g}</text>')
    sy = y + 40
    out.append(f'<rect x="{x}" y="{sy}" width="14" height="14" fill="{UNDEFINED}"/>'
               f'<text x="{x + 20}" y="{sy + 11}">undefined</text>'
               f'<rect x="{x + 100}" y="{sy}" width="14" height="14" '
               f'fill="url(#{uid}-self)" stroke="#999"/>'
               f'<text x="{x + 120}" y="{sy + 11}">diagonal: an assessor with themself</text>')
    out.append("</g>")
    return "".join(out)


def heat_map(lv: Level, assessors: list[str], stat: str = "cohen_kappa",
             uid: str = "kappa") -> str:
    """The pairwise matrix of ``stat``, its diagonal hatched, with a colour legend."""
    n = len(assessors)
    if n < 2 or n > MAX_HEAT:
        return f"<p>(matrix shown for 2 to {MAX_HEAT} assessors; there are {n})</p>"
    m = _matrix(lv, assessors, stat)
    c = max(24, min(48, 520 // n))
    # cut in the middle: names often differ only at the end (judge-v1, judge-v2)
    names = [a if len(a) <= 22 else a[:10] + "…" + a[-11:] for a in assessors]
    left = 12 + 7 * max(map(len, names))
    top = 10 + int(5 * max(map(len, names)))
    legend_w = 300
    width = max(left + n * c, left + legend_w) + 20
    height = top + n * c + 90
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" class="matrix" id="{uid}-svg" '
           f'width="{width}" height="{height}" {FONT} role="img" '
           f'aria-label="pairwise {stat} matrix">',
           f'<defs><pattern id="{uid}-self" width="6" height="6" '
           'patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
           '<rect width="6" height="6" fill="#f2f2f2"/>'
           '<line x1="0" y1="0" x2="0" y2="6" stroke="#aaa" stroke-width="2"/>'
           '</pattern></defs>']
    for i, a in enumerate(names):
        out.append(f'<text x="{left - 6}" y="{top + i * c + c / 2 + 4}" '
                   f'text-anchor="end">{escape(a)}</text>')
        out.append(f'<text transform="translate({left + i * c + c / 2 + 4},{top - 6}) '
                   f'rotate(-45)">{escape(a)}</text>')
    for i in range(n):
        for j in range(n):
            x, y = left + j * c, top + i * c
            who = f"{escape(assessors[i])} / {escape(assessors[j])}"
            if i == j:
                out.append(f'<rect class="diag" x="{x}" y="{y}" width="{c}" height="{c}" '
                           f'fill="url(#{uid}-self)" stroke="#fff"><title>{who}: self'
                           '</title></rect>')
                continue
            v = m[i][j]
            text = "–" if v is None else f"{v:.2f}"
            out.append(f'<rect class="cell" x="{x}" y="{y}" width="{c}" height="{c}" '
                       f'fill="{colour(v)}" stroke="#fff"><title>{who}: {text}</title></rect>'
                       f'<text x="{x + c / 2}" y="{y + c / 2 + 4}" text-anchor="middle" '
                       f'fill="{_ink(v)}" font-size="{11 if c < 36 else 12}">{text}</text>')
    out.append(_legend(left, top + n * c + 34, legend_w, uid, "Cohen's kappa"))
    out.append("</svg>")
    return "".join(out)


def confusion(p: Pair, labels: list[str]) -> str:
    """One pair's confusion table, cells shaded by count (darkest: the largest)."""
    t = np.asarray(p.table)
    top = max(int(t.max()), 1)
    k = p.stats.get("cohen_kappa")
    kappa = "" if k is None or k.value is None else f", kappa {k.value:.2f}"
    rows = [f"<div class=conf><p>rows: {escape(p.a)}; columns: {escape(p.b)}{kappa}</p>"
            "<table><tr><th></th>" + "".join(f"<th>{escape(x)}</th>" for x in labels)
            + "</tr>"]
    for i, lab in enumerate(labels):
        cells = "".join(
            f'<td style="background:{colour(float(t[i, j]) / top)};'
            f'color:{_ink(float(t[i, j]) / top)}">{int(t[i, j]):,}</td>'
            for j in range(len(labels)))
        rows.append(f"<tr><th>{escape(lab)}</th>{cells}</tr>")
    return "".join(rows) + "</table></div>"


def topic_columns(lv: Level, stat: str = "fleiss_kappa", width: int = 1000,
                  height: int = 180) -> str:
    """One column per topic, sorted by ``stat`` (the lowest, to look at, on the left)."""
    items: list[tuple[str, float]] = sorted(
        ((t, v) for t, d in lv.per_topic.items()
         if stat in d and (v := d[stat].value) is not None), key=lambda tv: (tv[1], tv[0]))
    if not items:
        return ""
    left, top, bottom = 40, 10, 40
    bw = min(24.0, width / len(items))
    plot_w = bw * len(items)

    def y(v: float) -> float:
        return top + (1 - v) / 2 * height

    out = [f'<svg xmlns="http://www.w3.org/2000/svg" id="topic-svg" width="{left + plot_w + 20}"'
           f' height="{top + height + bottom}" {FONT} role="img" '
           f'aria-label="per-topic {stat}, sorted">']
    for tick in (-1, -0.5, 0, 0.5, 1):
        out.append(f'<line x1="{left}" y1="{y(tick)}" x2="{left + plot_w}" y2="{y(tick)}" '
                   f'stroke="{"#444" if tick == 0 else "#ddd"}"/><text x="{left - 4}" '
                   f'y="{y(tick) + 4}" text-anchor="end">{tick:g}</text>')
    for i, (t, v) in enumerate(items):
        y0, y1 = sorted((y(0), y(v)))
        out.append(f'<rect x="{left + i * bw:.2f}" y="{y0:.2f}" width="{max(bw - 1, 0.8):.2f}" '
                   f'height="{max(y1 - y0, 0.8):.2f}" fill="{colour(v)}" stroke="#557" '
                   f'stroke-width="{0.5 if bw > 3 else 0}"><title>topic {escape(t)}: '
                   f'{v:.3f}</title></rect>')
        if len(items) <= 40:
            out.append(f'<text transform="translate({left + i * bw + bw / 2 + 4},'
                       f'{top + height + 6}) rotate(-90)" text-anchor="end">'
                       f'{escape(t[:8])}</text>')
    if len(items) > 40:
        out.append(f'<text x="{left}" y="{top + height + 16}">{len(items)} topics, sorted: '
                   'the lowest on the left (hover a column for its topic)</text>')
    out.append("</svg>")
    return "".join(out)
