"""How the lead's screen draws a case: its list row, the opinions side by side, the
final grade. Pure functions of the case and the scale (no widgets, no database)."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from relkit.corpora.types import RelevanceScale
from relkit.judging.store.adjudication import Case
from relkit.judging.tui.safe import cut, safe

STATUS_MARK = {"skipped": "s", "later": "l"}


def row(c: Case) -> Text:
    """The case's line in the list: topic, document, ⚑ ✎ marks, final grade, grades."""
    grades = " ".join(f"{o.assessor}="
                      + (str(o.grade) if o.grade is not None
                         else STATUS_MARK.get(o.status, "?")) for o in c.opinions)
    marks = ("⚑" if c.flagged else " ") + ("✎" if c.noted else " ")
    final = "-" if c.final is None else str(c.final)
    return safe(cut(f"{c.topic:>5} {c.doc:<12} {marks} final {final}  {grades}", 200,
                    pad=False).plain)


def opinions(c: Case, scale: RelevanceScale) -> Table:
    """Every assessor's grade, dwell time, flag and note: one row each, side by side."""
    grid = Table.grid(padding=(0, 1))
    for style in ("bold", "", "dim"):
        grid.add_column(no_wrap=True, style=style)
    grid.add_column(ratio=1, overflow="fold")
    for o in c.opinions:
        grade = (f"{o.grade} {scale.grade(o.grade).label}" if o.grade is not None
                 else {"skipped": "skipped", "later": "put off"}.get(o.status, o.status))
        seen = f"{o.dwell_ms / 1000:.1f} s"
        note = Text("⚑ flagged  ", style="bold") if o.flagged else Text()
        note.append_text(safe(f"note: {o.note}" if o.note else ""))
        grid.add_row(safe(o.assessor), Text(grade), Text(seen), note)
    return grid


def final(c: Case, scale: RelevanceScale) -> Text:
    """The final grade and who gave it, before the reason field."""
    out = Text(" final: ")
    if c.final is None:
        out.append("- (a digit records it)")
    else:
        out.append(f"{c.final} {scale.grade(c.final).label}")
        out.append_text(safe(f" by {c.lead}" if c.lead else ""))
    out.append(" · reason:")
    return out
