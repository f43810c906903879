"""The systems x measures table in several formats, one small object per format.

Marks are the same in every format. With a baseline, a system significantly
better than it gets an up mark, worse a down mark. Without one (all pairs),
each system gets a letter (a, b, c...) and each value the letters of the
systems it is significantly better than. The best mean of each measure is in
bold. Every format ends with a legend naming the test and the correction.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from relkit.metrics.compare.registry import Registry

if TYPE_CHECKING:
    from relkit.metrics.compare.core import Comparison


@dataclass(frozen=True)
class Format:
    """One output format: ``render(comparison) -> text``."""

    name: str
    aliases: tuple[str, ...]
    description: str
    render: Callable[[Comparison], str]


FORMATS: Registry[Format] = Registry("table format")


def get_format(name: str) -> Format:
    return FORMATS.get(name)


def legend(cmp: Comparison, up: str = "▲", down: str = "▼") -> str:
    """One sentence saying what the marks mean."""
    from relkit.metrics.compare.significance import get_test

    test = get_test(cmp.test)
    how = f"{test.description}"
    if test.resampling:
        how += f" ({cmp.resampling.samples} samples, seed {cmp.resampling.seed})"
    corr = "no correction" if cmp.correction == "none" else f"{cmp.correction} correction"
    head = (f"Mean over {len(cmp.scores.topics)} topics; best in bold. {how}, {corr}, "
            f"alpha = {cmp.alpha:g}.")
    if cmp.ci_level is not None:
        head += f" [low, high]: {cmp.ci_level:.0%} {cmp.ci_method} interval of the mean."
    if cmp.baseline is not None:
        return head + (f" {up}/{down}: significantly better/worse than the baseline "
                       f"{cmp.baseline}.")
    return head + " Letters: significantly better than the systems with those letters."


def mark(cmp: Comparison, measure: str, system: str, up: str = "▲", down: str = "▼") -> str:
    """The significance mark of one cell ('' when none)."""
    better, worse = cmp.wins(measure, system)
    if cmp.baseline is not None:
        if system == cmp.baseline:
            return ""
        return up if better else down if worse else ""
    return "".join(sorted(cmp.letter(s) for s in better))


def value(cmp: Comparison, m: int, s: int, digits: int = 4) -> str:
    text = f"{cmp.means[m, s]:.{digits}f}"
    if cmp.ci_low is not None and cmp.ci_high is not None:
        text += f" [{cmp.ci_low[m, s]:.3f}, {cmp.ci_high[m, s]:.3f}]"
    return text


def _label(cmp: Comparison, system: str) -> str:
    if cmp.baseline is None:
        return f"({cmp.letter(system)}) {system}"
    return f"{system} (baseline)" if system == cmp.baseline else system


def markdown(cmp: Comparison) -> str:
    """A GitHub-flavoured Markdown table (marks as ``<sup>``) and the legend."""
    head = ["System", *cmp.measures]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" + "---:|" * len(cmp.measures)]
    for s, system in enumerate(cmp.systems):
        cells = [_label(cmp, system).replace("|", "\\|")]
        for m, meas in enumerate(cmp.measures):
            text = value(cmp, m, s)
            if system in cmp.best(meas):
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
        cells = [latex_escape(_label(cmp, system))]
        for m, meas in enumerate(cmp.measures):
            text = value(cmp, m, s)
            if system in cmp.best(meas):
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


for _f in (
    Format("rich", ("terminal", "term"), "a table for the terminal", _rich),
    Format("markdown", ("md",), "GitHub Markdown", markdown),
    Format("latex", ("tex",), "LaTeX with booktabs", latex),
    Format("csv", (), "CSV, one row per system and measure", csv),
    Format("json", (), "JSON: settings, summary and every tested pair", as_json),
):
    FORMATS.register(_f)
