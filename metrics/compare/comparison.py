"""What a comparison of systems holds and shows: :class:`Comparison` and its
:class:`PairTest` rows.

:func:`~relkit.metrics.compare.core.compare` computes the means, intervals and paired
tests; the result is a value the tables, the report, the plots and a notebook read
(``best``, ``wins``, the frames, ``table``), and it lives here, apart from the
computation, so that the readers of a comparison need not import how it was made.
"""

from __future__ import annotations

import string
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from relkit.metrics.compare.formats import FORMATS
from relkit.metrics.compare.scores import Scores
from relkit.metrics.compare.significance import Resampling

if TYPE_CHECKING:
    import pandas as pd

@dataclass(frozen=True)
class PairTest:
    """One tested pair on one measure; ``diff`` is mean(a) - mean(b).

    Attributes
    ----------
    measure : str
        The measure, as named in the comparison.
    a, b : str
        The systems; with a baseline, ``b`` is the baseline.
    diff : float
        Mean over topics of the per-topic differences ``a - b``.
    statistic : float
        The test statistic (t for the t test, the mean difference for the
        resampling tests...).
    p, p_adjusted : float
        Two-sided p-value, before and after the correction for multiple
        comparisons.
    effect : float
        Cohen's :math:`d_z`: mean difference over its standard deviation.
    significant : bool
        ``p_adjusted <= alpha``.

    Examples
    --------
    >>> import numpy as np
    >>> from relkit.metrics.compare import Scores
    >>> from relkit.metrics.compare.core import compare_scores
    >>> scores = Scores(("bm25", "lm"), ("AP",), ("q1", "q2", "q3", "q4"),
    ...                 np.array([[[0.5, 0.6, 0.2, 0.9], [0.1, 0.3, 0.1, 0.5]]]))
    >>> (pair,) = compare_scores(scores).pairs
    >>> pair.a, pair.b, round(pair.diff, 4), round(pair.p, 4), pair.significant
    ('bm25', 'lm', 0.3, 0.024, True)
    """

    measure: str
    a: str
    b: str
    diff: float
    statistic: float
    p: float
    p_adjusted: float
    effect: float
    significant: bool


@dataclass(frozen=True)
class Comparison:
    """Everything a table or report shows; build it with
    :func:`~relkit.metrics.compare.core.compare`.

    Attributes
    ----------
    scores : Scores
        The per-topic values compared.
    test, correction : str
        Names of the paired test and of the correction for multiple comparisons.
    alpha : float
        Significance level applied to the adjusted p-values.
    resampling : Resampling
        Samples and seed of the resampling tests and bootstrap intervals.
    baseline : str or None
        The system every other one was tested against; ``None``: every pair.
    means : numpy.ndarray
        Mean over topics, measures x systems.
    ci_level : float or None
        Confidence level of the intervals; ``None`` when none were asked for.
    ci_method : str
        ``"t"`` or ``"bootstrap"``.
    ci_low, ci_high : numpy.ndarray or None
        Interval bounds, measures x systems.
    pairs : tuple of PairTest
        Every tested pair on every measure, measure by measure.

    Examples
    --------
    Three systems, every pair tested (t test, Holm's correction):

    >>> import numpy as np
    >>> from relkit.metrics.compare import Scores
    >>> from relkit.metrics.compare.core import compare_scores
    >>> scores = Scores(("bm25", "lm", "qlm"), ("AP",), ("q1", "q2", "q3", "q4"),
    ...                 np.array([[[0.5, 0.6, 0.2, 0.9],
    ...                            [0.1, 0.3, 0.1, 0.5],
    ...                            [0.6, 0.7, 0.3, 0.9]]]))
    >>> cmp = compare_scores(scores)
    >>> cmp.means.round(4)
    array([[0.55 , 0.25 , 0.625]])
    >>> cmp.best("AP"), cmp.wins("AP", "lm"), cmp.letter("lm")
    ({'qlm'}, ([], ['bm25', 'qlm']), 'b')
    >>> print(cmp.table("markdown"))
    | System | AP |
    |---|---:|
    | (a) bm25 | 0.5500<sup>b</sup> |
    | (b) lm | 0.2500 |
    | (c) qlm | **0.6250**<sup>b</sup> |
    <BLANKLINE>
    Mean over 4 topics; best in bold (and every mean printed the same). paired Student's t ...
    >>> cmp.pairs_frame()[["a", "b", "diff", "p_adjusted", "significant"]].round(4)
          a    b   diff  p_adjusted  significant
    0  bm25   lm  0.300      0.0480         True
    1  bm25  qlm -0.075      0.0577        False
    2    lm  qlm -0.375      0.0283         True
    """

    scores: Scores
    test: str
    correction: str
    alpha: float
    resampling: Resampling
    baseline: str | None
    means: np.ndarray                          # measures x systems
    ci_level: float | None
    ci_method: str
    ci_low: np.ndarray | None
    ci_high: np.ndarray | None
    pairs: tuple[PairTest, ...]

    # The dataclass's repr printed the score matrix and every pair (thousands of characters):
    # one line, and in a notebook the report's table (relkit.metrics.compare.view).
    def __repr__(self) -> str:
        from relkit.metrics.compare.view import comparison_repr

        return comparison_repr(self)

    def _repr_html_(self) -> str:
        from relkit.metrics.compare.view import comparison_html

        return comparison_html(self)

    def plot(self, measures: Sequence[str] | None = None, ax: Any = None) -> Any:
        """Bars of each system's mean per measure (intervals when asked for), drawn on
        ``ax`` or a new figure; returns the matplotlib Axes."""
        from relkit.metrics.compare.view import plot_means

        return plot_means(self, None if measures is None else list(measures), ax)

    @property
    def systems(self) -> tuple[str, ...]:
        return self.scores.systems

    @property
    def measures(self) -> tuple[str, ...]:
        return self.scores.measures

    def letter(self, system: str) -> str:
        """The short label of a system in significance marks (a, b, c...).

        Parameters
        ----------
        system : str

        Returns
        -------
        str
            ``a`` for the first system and so on; numbers from 1 past 26 systems.

        Raises
        ------
        CompareError
            If there is no such system.
        """
        i = self.scores.system_index(system)
        return string.ascii_lowercase[i] if len(self.systems) <= 26 else str(i + 1)

    def best(self, measure: str) -> set[str]:
        """The systems with the highest mean on ``measure``, up to floating-point noise.

        A mean equal to the highest but for the last bits (53/60 summed in another
        order) is best too; a lower mean is not, however it prints. The tables bold
        :meth:`shown_best`.

        Parameters
        ----------
        measure : str

        Returns
        -------
        set of str

        Raises
        ------
        CompareError
            If ``measure`` is not in the comparison.
        """
        return self._tied(measure, None)

    def shown_best(self, measure: str, digits: int | None = None) -> set[str]:
        """The systems a reader sees as best on ``measure``: :meth:`best` and every
        mean printed as the highest does to ``digits`` decimals (default
        :data:`relkit.metrics.compare.ties.DIGITS`, as the tables print): the rule of
        :mod:`relkit.metrics.compare.ties`, which every table format bolds.

        Parameters
        ----------
        measure : str
        digits : int, optional

        Returns
        -------
        set of str

        Raises
        ------
        CompareError
            If ``measure`` is not in the comparison.
        """
        from relkit.metrics.compare.ties import DIGITS

        return self._tied(measure, DIGITS if digits is None else digits)

    def _tied(self, measure: str, digits: int | None) -> set[str]:
        from relkit.metrics.compare.ties import tied_with_best

        row = self.means[self.scores.measure_index(measure)]
        return {s for s, best in zip(self.systems, tied_with_best(row, digits), strict=True)
                if best}

    def wins(self, measure: str, system: str) -> tuple[list[str], list[str]]:
        """Systems that ``system`` is significantly better / worse than on ``measure``.

        Parameters
        ----------
        measure, system : str

        Returns
        -------
        better, worse : list of str
            Among the pairs tested (with a baseline, only against the baseline),
            in the order of :attr:`pairs`.
        """
        better: list[str] = []
        worse: list[str] = []
        for p in self.pairs:
            if p.measure != measure or not p.significant or system not in (p.a, p.b):
                continue
            other = p.b if p.a == system else p.a
            up = (p.diff > 0) == (p.a == system)
            (better if up else worse).append(other)
        return better, worse

    def summary_frame(self) -> pd.DataFrame:
        """One row per system and measure: mean, interval, significance.

        Returns
        -------
        pandas.DataFrame
            ``system, measure, mean, ci_low, ci_high, better_than, worse_than``;
            the last two are space-separated system names (see :meth:`wins`).
        """
        import pandas as pd

        rows = []
        for m, meas in enumerate(self.measures):
            for s, sys_ in enumerate(self.systems):
                better, worse = self.wins(meas, sys_)
                rows.append({
                    "system": sys_, "measure": meas, "mean": float(self.means[m, s]),
                    "ci_low": None if self.ci_low is None else float(self.ci_low[m, s]),
                    "ci_high": None if self.ci_high is None else float(self.ci_high[m, s]),
                    "better_than": " ".join(better), "worse_than": " ".join(worse)})
        return pd.DataFrame(rows)

    def pairs_frame(self) -> pd.DataFrame:
        """One row per tested pair and measure.

        Returns
        -------
        pandas.DataFrame
            The fields of :class:`PairTest` as columns.
        """
        import pandas as pd

        cols = list(PairTest.__dataclass_fields__)
        return pd.DataFrame([[getattr(p, c) for c in cols] for p in self.pairs], columns=cols)

    def table(self, fmt: str = "markdown") -> str:
        """The systems x measures table as text.

        Parameters
        ----------
        fmt : str, default "markdown"
            A name from :data:`FORMATS`: ``markdown``,
            ``latex``, ``csv``, ``json``, ``rich``.

        Returns
        -------
        str
            Means (with intervals when asked for), the best in bold, significance
            marks, and a note on the test, correction and alpha.

        Raises
        ------
        CompareError
            For an unknown format (close names suggested).
        """
        return FORMATS.lookup(fmt).render(self)
