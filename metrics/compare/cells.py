"""The pieces every rendering of a comparison shares: values, marks, labels, legend.

Marks are the same in every format. With a baseline, a system significantly
better than it gets an up mark, worse a down mark. Without one (all pairs),
each system gets a letter (a, b, c...) and each value the letters of the
systems it is significantly better than. Every format ends with the legend
naming the test and the correction.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from relkit.metrics.compare.significance import get_test
from relkit.metrics.compare.ties import DIGITS

if TYPE_CHECKING:
    from relkit.metrics.compare.core import Comparison


def legend(cmp: Comparison, up: str = "▲", down: str = "▼") -> str:
    """One sentence saying what the marks mean."""
    test = get_test(cmp.test)
    how = f"{test.description}"
    if test.resampling:
        how += f" ({cmp.resampling.samples} samples, seed {cmp.resampling.seed})"
    corr = "no correction" if cmp.correction == "none" else f"{cmp.correction} correction"
    head = (f"Mean over {len(cmp.scores.topics)} topics; best in bold (and every mean "
            f"printed the same). {how}, {corr}, "
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


def value(cmp: Comparison, m: int, s: int, digits: int = DIGITS) -> str:
    text = f"{cmp.means[m, s]:.{digits}f}"
    if cmp.ci_low is not None and cmp.ci_high is not None:
        text += f" [{cmp.ci_low[m, s]:.3f}, {cmp.ci_high[m, s]:.3f}]"
    return text


def label(cmp: Comparison, system: str) -> str:
    if cmp.baseline is None:
        return f"({cmp.letter(system)}) {system}"
    return f"{system} (baseline)" if system == cmp.baseline else system
