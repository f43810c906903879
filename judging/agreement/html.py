"""A self-contained HTML agreement report: a one-screen summary first, details after.

The summary (:mod:`relkit.judging.agreement.summary`) fits a 1280 x 800 screen:
the headline statistics with their intervals, the overlap of relevant sets, the
effect on conclusions, who disagrees with whom and the topics to look at, each
linking to its details. Details follow: the kappa matrix, confusion matrices,
per-topic columns, then every table; the long per-topic tables are folded
(``<details>``). No script, no network: one file to mail to a lead.
"""

from __future__ import annotations

from html import escape

from relkit.judging.agreement.analysis import Analysis, Pair
from relkit.judging.agreement.sections import Section, cell, levels
from relkit.judging.agreement.summary import Card, cards, headline, item_floor
from relkit.judging.agreement.svg import MAX_HEAT, confusion, heat_map, topic_columns

MAX_CONFUSION = 12   # confusion matrices per level
OPEN_CONFUSION = 4   # of which shown unfolded: the pairs that agree least
OPEN_ROWS = 12       # longer tables are folded (<details>), the per-topic ones always
# the tables a lead reads first come first among the details
ORDER = ("overlap", "effect", "overall", "pairs", "gold", "majority", "topics")


def _table(s: Section) -> str:
    head = "".join(f"<th>{escape(h)}</th>" for h in s.header)
    body = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>"
                   for r in s.rows)
    note = f"<p class=note>{escape(s.note)}</p>" if s.note else ""
    table = f"<div class=wide><table><tr>{head}</tr>{body}</table></div>{note}"
    if s.key.startswith("topics-") or len(s.rows) > OPEN_ROWS:
        what = "topics" if s.key.startswith("topics-") else "rows"
        return (f'<section id="{s.key}"><h2>{escape(s.title)}</h2><details>'
                f"<summary>{len(s.rows):,} {what}</summary>{table}</details></section>")
    return f'<section id="{s.key}"><h2>{escape(s.title)}</h2>{table}</section>'


def _card(c: Card) -> str:
    links = " · ".join(f'<a href="#{k}">{escape(t)}</a>' for k, t in c.links)
    return (f"<div class=card><h2>{escape(c.title)}</h2>"
            + "".join(f"<p>{escape(x)}</p>" for x in c.lines)
            + (f"<p class=links>{links}</p>" if links else "") + "</div>")


def _headline(a: Analysis) -> str:
    h = headline(a)
    head = "".join(f"<th>{escape(n)}</th>" for n in h.levels)
    rows = []
    for label, stats in h.rows:
        tds = "".join("<td>-</td>" if s is None else
                      f"<td>{escape(cell(s))}"
                      + (f" <span class=band>{escape(s.band)}</span>" if s.band else "")
                      + "</td>" for s in stats)
        rows.append(f"<tr><th>{escape(label)}</th>{tds}</tr>")
    first = levels(a)[0].name
    return (f"<div class='card headline'><h2>Agreement</h2><table><tr><th></th>{head}</tr>"
            + "".join(rows) + "</table><p class=note>value [95% CI]; Landis &amp; Koch band "
            f"(a label, not a test)</p><p class=links><a href='#overall-{first}'>every "
            "statistic</a></p></div>")


CSS = """
body{font-family:system-ui,sans-serif;margin:0 auto;padding:1em 2em;max-width:1240px;
  color:#222}
h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.15em;margin:1.6em 0 .4em}
p.sub{color:#444;margin:.2em 0 .8em;font-size:14px}
.grid{display:grid;grid-template-columns:repeat(3,1fr);gap:10px}
.card{border:1px solid #ccd;border-radius:6px;padding:.4em .8em;background:#fafbff;
  font-size:13px}
.card h2{font-size:14px;margin:.2em 0 .4em}.card p{margin:.25em 0}
.card.headline{grid-column:span 2}
.card table td,.card table th{border:none;border-bottom:1px solid #e4e4ee;font-size:13px}
.card .band{color:#666;font-size:12px}
.links{font-size:12px}.links a{color:#1a4fa0}
nav.details{margin:.8em 0;font-size:13px}nav.details a{margin-right:1em;color:#1a4fa0}
table{border-collapse:collapse;margin:.4em 0}
td,th{border:1px solid #ccc;padding:2px 6px;font-size:12px;text-align:right;
  white-space:nowrap}
th{background:#f4f4f4}.card th{background:none;text-align:left}
.note{color:#666;font-size:12px}
.conf{margin:0 0 .5em 0}.conf p{font-size:12px;margin:2px 0}
.row{display:flex;flex-wrap:wrap;gap:1em 2em;align-items:flex-start}
figure{margin:0}
.wide{overflow-x:auto}details summary{cursor:pointer;color:#1a4fa0;font-size:13px}
"""


def _kappa_key(p: Pair) -> float:
    v = p.stats["cohen_kappa"].value if "cohen_kappa" in p.stats else None
    return 2.0 if v is None else v


def _nav(links: list[tuple[str, str]]) -> str:
    return ("<nav class=details>Details: "
            + "".join(f'<a href="#{k}">{escape(t)}</a>' for k, t in links) + "</nav>")


def _matrices(a: Analysis, peers: list[str]) -> str:
    lvs = levels(a)
    if len(peers) > MAX_HEAT:
        body = (f"<p class=note>The matrix is drawn for up to {MAX_HEAT} assessors; there are "
                f"{len(peers):,}: see the <a href='#pairs-{lvs[0].name}'>pairs table</a> "
                "(--format json has every pair).</p>")
    else:
        body = "".join(f"<figure id='kappa-{lv.name}'><figcaption>{escape(lv.name)}"
                       "</figcaption>" + heat_map(lv, peers, uid=f"kappa-{lv.name}")
                       + "</figure>" for lv in lvs)
    return ("<section id=kappa-matrix><h2>Pairwise Cohen's kappa</h2><div class=row>"
            + body + "</div></section>")


def _confusions(a: Analysis) -> str:
    """Against gold when there is one, else each pair; the least agreement first, the
    first level's :data:`OPEN_CONFUSION` open, the rest folded."""
    lvs = levels(a)
    parts = ["<section id=confusion><h2>Confusion matrices</h2>"]
    for i, lv in enumerate(lvs):
        pairs = lv.gold or lv.pairs
        floor = item_floor([int(p.table.sum()) for p in pairs])
        shown = sorted((p for p in pairs if p.table.sum() >= floor),
                       key=lambda p: _kappa_key(p))[:MAX_CONFUSION]
        if not shown:
            continue
        what = (f"the {len(shown)} of {len(pairs)} pairs that agree least"
                if len(pairs) > len(shown) else "the pairs, least agreement first")
        what += f" (among pairs with >= {floor} common items)" if floor else ""
        # a two-grade scale's own labels say more than '<1' / '>=1'
        labels = a.graded.labels if len(lvs) == 1 else lv.labels
        tables = [confusion(p, labels) for p in shown]
        opened = OPEN_CONFUSION if i == 0 else 0
        parts.append(f"<p class=note>{escape(lv.name)}: {escape(what)}</p><div class=row>"
                     + "".join(tables[:opened]) + "</div>")
        if tables[opened:]:
            parts.append(f"<details><summary>{len(tables) - opened} more ({escape(lv.name)})"
                         "</summary><div class=row>" + "".join(tables[opened:])
                         + "</div></details>")
    return "".join(parts) + "</section>"


def render(a: Analysis, head: list[str], sections: list[Section]) -> str:
    """The page: title, one line of counts, the summary screen, then the details."""
    peers = [x for x in a.assessors if x != a.gold]
    first = levels(a)[0]
    order = sorted(sections, key=lambda s: ORDER.index(s.key.split("-")[0]))
    nav = _nav([("kappa-matrix", "kappa matrix"), ("confusion", "confusion matrices"),
                ("topic-chart", "per topic")]
               + [(s.key, s.title) for s in order
                  if s.key.startswith(("overall", "overlap", "effect"))]
               + [("notes", "notes")])
    parts = ["<!DOCTYPE html><html lang='en'><head><meta charset='utf-8'>"
             f"<title>Assessor agreement</title><style>{CSS}</style></head><body>",
             "<h1>Assessor agreement</h1>",
             f"<p class=sub>{escape(head[0].removeprefix('Assessor agreement: '))}. "
             f"{escape(head[1])}.</p>",
             "<section id=summary><div class=grid>", _headline(a),
             *(_card(c) for c in cards(a)), "</div>", nav, "</section>",
             _matrices(a, peers), _confusions(a),
             f"<section id=topic-chart><h2>Fleiss' kappa per topic ({escape(first.name)})"
             "</h2>" + topic_columns(first) + "</section>",
             *(_table(s) for s in order),
             "<section id=notes><h2>Notes</h2>"
             + "".join(f"<p class=note>{escape(h)}</p>" for h in head[2:]) + "</section>",
             "</body></html>\n"]
    return "".join(parts)
