"""The systems x measures table in several formats, registered in :data:`FORMATS`.

Values, marks and the legend are the same in every format
(:mod:`relkit.metrics.compare.cells`); the best mean of each measure is in bold.
"""

from __future__ import annotations

import json
import math
from typing import TYPE_CHECKING

from relkit.metrics.compare.cells import label, legend, mark, value
from relkit.metrics.compare.formats import FORMATS, Format

if TYPE_CHECKING:
    from relkit.metrics.compare.core import Comparison


def markdown(cmp: Comparison) -> str:
    """A GitHub-flavoured Markdown table (marks as ``<sup>``) and the legend."""
    head = ["System", *cmp.measures]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * len(cmp.measures)]
    for s, system in enumerate(cmp.systems):
        cells = [label(cmp, system).replace("|", "\\|")]
        for m, meas in enumerate(cmp.measures):
            text = value(cmp, m, s)
            if system in cmp.shown_best(meas):
                text = f"**{text}**"
            sup = mark(cmp, meas, system)
            cells.append(text + (f"<sup>{sup}</sup>" if sup else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n\n" + legend(cmp) + "\n"


_LATEX_SPECIAL = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_SPECIAL.get(c, c) for c in text)


def latex(cmp: Comparison) -> str:
    r"""A ``table`` with a booktabs ``tabular`` (needs ``\usepackage{booktabs}``)."""
    up, down = r"$^{\uparrow}$", r"$^{\downarrow}$"
    rows = [r"\begin{table}", r"\centering",
            r"\begin{tabular}{l" + "r" * len(cmp.measures) + "}", r"\toprule",
            " & ".join(["System", *(latex_escape(m) for m in cmp.measures)]) + r" \\",
            r"\midrule"]
    for s, system in enumerate(cmp.systems):
        cells = [latex_escape(label(cmp, system))]
        for m, meas in enumerate(cmp.measures):
            text = value(cmp, m, s)
            if system in cmp.shown_best(meas):
                text = rf"\textbf{{{text}}}"
            sig = mark(cmp, meas, system, up, down)
            if sig and cmp.baseline is None:
                sig = rf"\textsuperscript{{{sig}}}"
            cells.append(text + sig)
        rows.append(" & ".join(cells) + r" \\")
    caption = latex_escape(legend(cmp, "UP", "DOWN")).replace(
        "UP", r"$\uparrow$").replace("DOWN", r"$\downarrow$")
    rows += [r"\bottomrule", r"\end{tabular}", rf"\caption{{{caption}}}", r"\end{table}"]
    return "\n".join(rows) + "\n"


def csv(cmp: Comparison) -> str:
    """One row per system and measure (see :meth:`Comparison.summary_frame`)."""
    return str(cmp.summary_frame().to_csv(index=False))


def _clean(x: object) -> object:
    if isinstance(x, float) and not math.isfinite(x):
        return None
    return x


def as_json(cmp: Comparison) -> str:
    """Settings, the summary rows and every tested pair, as one JSON object."""
    summary = [{k: _clean(v) for k, v in row.items()}
               for row in cmp.summary_frame().to_dict(orient="records")]
    pairs = [{k: _clean(v) for k, v in row.items()}
             for row in cmp.pairs_frame().to_dict(orient="records")]
    doc = {
        "settings": {"test": cmp.test, "correction": cmp.correction, "alpha": cmp.alpha,
                     "samples": cmp.resampling.samples, "seed": cmp.resampling.seed,
                     "baseline": cmp.baseline, "ci": cmp.ci_level, "ci_method": cmp.ci_method,
                     "topics": len(cmp.scores.topics)},
        "systems": list(cmp.systems), "measures": list(cmp.measures),
        "summary": summary, "pairs": pairs,
    }
    return json.dumps(doc, indent=2, default=float) + "\n"


def _rich(cmp: Comparison) -> str:
    from relkit.metrics.compare.terminal import render_text

    return render_text(cmp)


FORMATS.register(
    Format("rich", ("terminal", "term"), "a table for the terminal", _rich),
    Format("markdown", ("md",), "GitHub Markdown", markdown),
    Format("latex", ("tex",), "LaTeX with booktabs", latex),
    Format("csv", (), "CSV, one row per system and measure", csv),
    Format("json", (), "JSON: settings, summary and every tested pair", as_json),
)
