"""The agreement report in four formats, found by name in :data:`FORMATS`.

Text, Markdown and HTML lead with the same summary
(:mod:`relkit.judging.agreement.summary`) and render the same sections
(:mod:`relkit.judging.agreement.sections`); JSON carries every number with its
intervals and status.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass

from relkit.judging.agreement.analysis import Analysis
from relkit.judging.agreement.frame import AgreementError
from relkit.judging.agreement.result import gc_paused
from relkit.judging.agreement.sections import head, sections
from relkit.metrics.core.registry import Registry


def summary_lines(a: Analysis) -> list[str]:
    """The summary as plain lines: headline statistics, then one line per finding."""
    from relkit.judging.agreement.sections import cell
    from relkit.judging.agreement.summary import cards, headline

    h = headline(a)
    named = len(h.levels) > 1
    out = [f"{label}: " + "; ".join(
        (f"{lv} " if named else "") + ("-" if s is None else cell(s))
        + (f" {s.band}" if s is not None and s.band else "")
        for lv, s in zip(h.levels, stats, strict=True)) for label, stats in h.rows]
    for c in cards(a):
        out += [f"{c.title}: {c.lines[0]}", *(f"  {x}" for x in c.lines[1:])]
    return out


def render_text(a: Analysis) -> str:
    lines = head(a) + ["", "== Summary =="] + summary_lines(a)
    for s in sections(a):
        lines += ["", f"== {s.title} =="]
        table = [s.header] + s.rows
        widths = [max(len(r[i]) for r in table) for i in range(len(s.header))]
        lines += ["  ".join(c.ljust(w) for c, w in zip(r, widths, strict=True)).rstrip()
                  for r in table]
        if s.note:
            lines.append(f"({s.note})")
    return "\n".join(lines) + "\n"


def render_markdown(a: Analysis) -> str:
    lines = ["# Assessor agreement", ""] + [h + "  " for h in head(a)]
    lines += ["", "## Summary", ""] + [
        ("- " + x) if not x.startswith("  ") else ("  " + x.strip()) for x in summary_lines(a)]
    for s in sections(a):
        lines += ["", f"## {s.title}", "", "| " + " | ".join(s.header) + " |",
                  "|" + "---|" * len(s.header)]
        lines += ["| " + " | ".join(c.replace("|", "/") for c in r) + " |" for r in s.rows]
        if s.note:
            lines += ["", f"*{s.note}*"]
    return "\n".join(lines) + "\n"


COMPACT_JSON_TABLES = 2000


def render_json(a: Analysis) -> str:
    """Indented, unless there are over COMPACT_JSON_TABLES pair tables (crowd data: the
    indentation alone would add hundreds of megabytes)."""
    tables = sum(len(lv.pairs) + sum(map(len, lv.topic_pairs.values()))
                 for lv in (a.graded, a.binary))
    indent = 2 if tables <= COMPACT_JSON_TABLES else None
    with gc_paused():
        return json.dumps(a.to_dict(), indent=indent, ensure_ascii=False) + "\n"


def render_html(a: Analysis) -> str:
    from relkit.judging.agreement.html import render

    return render(a, head(a), sections(a))


@dataclass(frozen=True)
class ReportFormat:
    """One format of the report: ``render(analysis) -> text``."""

    name: str
    render: Callable[[Analysis], str]


FORMATS: Registry[ReportFormat] = Registry("report format", AgreementError)
FORMATS.register(ReportFormat("text", render_text), ReportFormat("json", render_json),
                 ReportFormat("markdown", render_markdown), ReportFormat("html", render_html))
