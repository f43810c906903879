"""The pieces every rendering of a comparison shares: values, marks, labels, legend.

Marks are the same in every format. With a baseline, a system significantly
better than it gets an up mark, worse a down mark. Without one (all pairs),
each system gets a letter (a, b, c...) and each value the letters of the
systems it is significantly better than. Every format ends with the legend
naming the test and the correction.

Every rendering takes its marks, values, labels and the marks' sentence from here: the
report's tables (:mod:`~relkit.metrics.compare.tables`, ``html_tables``, ``terminal``)
and the notebook's (:mod:`~relkit.metrics.compare.view`). The comparison's own methods
call the notebook's, so this module takes the comparison by its public surface
(:class:`Shown`), not by importing :mod:`relkit.metrics.compare.core`: that import, even
for types only, would close a cycle core -> view -> cells -> core.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

from relkit.metrics.compare.significance import get_test
from relkit.metrics.compare.ties import DIGITS

if TYPE_CHECKING:
    import numpy as np

    from relkit.metrics.compare.scores import Scores
    from relkit.metrics.compare.significance import Resampling


class Shown(Protocol):
    """What a rendering reads of a comparison
    (:class:`relkit.metrics.compare.core.Comparison` has it all)."""

    @property
    def scores(self) -> Scores: ...
    @property
    def test(self) -> str: ...
    @property
    def correction(self) -> str: ...
    @property
    def alpha(self) -> float: ...
    @property
    def resampling(self) -> Resampling: ...
    @property
    def baseline(self) -> str | None: ...
    @property
    def means(self) -> np.ndarray: ...
    @property
    def ci_level(self) -> float | None: ...
    @property
    def ci_method(self) -> str: ...
    @property
    def ci_low(self) -> np.ndarray | None: ...
    @property
    def ci_high(self) -> np.ndarray | None: ...

    def letter(self, system: str) -> str: ...
    def wins(self, measure: str, system: str) -> tuple[list[str], list[str]]: ...


def marks_sentence(cmp: Shown, up: str = "▲", down: str = "▼") -> str:
    """What the marks mean: the baseline's up/down marks, or the letters."""
    if cmp.baseline is not None:
        return f"{up}/{down}: significantly better/worse than the baseline {cmp.baseline}."
    return "Letters: significantly better than the systems with those letters."


def legend(cmp: Shown, up: str = "▲", down: str = "▼") -> str:
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
    return f"{head} {marks_sentence(cmp, up, down)}"


def mark(cmp: Shown, measure: str, system: str, up: str = "▲", down: str = "▼") -> str:
    """The significance mark of one cell ('' when none)."""
    better, worse = cmp.wins(measure, system)
    if cmp.baseline is not None:
        if system == cmp.baseline:
            return ""
        return up if better else down if worse else ""
    return "".join(sorted(cmp.letter(s) for s in better))


def value(cmp: Shown, m: int, s: int, digits: int = DIGITS) -> str:
    text = f"{cmp.means[m, s]:.{digits}f}"
    if cmp.ci_low is not None and cmp.ci_high is not None:
        text += f" [{cmp.ci_low[m, s]:.3f}, {cmp.ci_high[m, s]:.3f}]"
    return text


def label(cmp: Shown, system: str) -> str:
    if cmp.baseline is None:
        return f"({cmp.letter(system)}) {system}"
    return f"{system} (baseline)" if system == cmp.baseline else system
