"""Compare systems: means (with intervals), paired tests, corrections, effect sizes.

Which pairs are tested: each system against the baseline when one is named,
otherwise every pair. The correction for multiple comparisons is applied per
measure over the pairs tested for that measure (the family of hypotheses one
column of the table makes).
"""

from __future__ import annotations

import string
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal, get_args

import numpy as np

from relkit.metrics.compare.corrections import get_correction
from relkit.metrics.compare.effect import bootstrap_interval, cohens_dz, t_interval
from relkit.metrics.compare.errors import CompareError
from relkit.metrics.compare.formats import FORMATS
from relkit.metrics.compare.scores import DEFAULT_MEASURES, Scores, score_matrix
from relkit.metrics.compare.significance import Resampling, get_test
from relkit.metrics.core.params import bad_param

if TYPE_CHECKING:
    import pandas as pd

    from relkit.metrics.data import Qrels, Run

CIMethod = Literal["t", "bootstrap"]
CI_METHODS = get_args(CIMethod)


@dataclass(frozen=True)
class PairTest:
    """One tested pair on one measure; ``diff`` is mean(a) - mean(b)."""

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
    """Everything a table or report shows; build it with :func:`compare`."""

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

    @property
    def systems(self) -> tuple[str, ...]:
        return self.scores.systems

    @property
    def measures(self) -> tuple[str, ...]:
        return self.scores.measures

    def letter(self, system: str) -> str:
        """The short label of a system in significance marks (a, b, c...)."""
        i = self.scores.system_index(system)
        return string.ascii_lowercase[i] if len(self.systems) <= 26 else str(i + 1)

    def best(self, measure: str) -> set[str]:
        """The systems with the highest mean on ``measure`` (ties: all of them)."""
        row = self.means[self.scores.measure_index(measure)]
        return {s for s, v in zip(self.systems, row, strict=True) if v == row.max()}

    def wins(self, measure: str, system: str) -> tuple[list[str], list[str]]:
        """Systems that ``system`` is significantly better / worse than on ``measure``."""
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
        """One row per system and measure: mean, interval, significance."""
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
        """One row per tested pair and measure."""
        import pandas as pd

        cols = list(PairTest.__dataclass_fields__)
        return pd.DataFrame([[getattr(p, c) for c in cols] for p in self.pairs], columns=cols)

    def table(self, fmt: str = "markdown") -> str:
        """The systems x measures table as text in format ``fmt`` (see :data:`FORMATS`)."""
        return FORMATS.lookup(fmt).render(self)


def _pairs(systems: Sequence[str], baseline: str | None) -> list[tuple[int, int]]:
    if baseline is not None:
        b = list(systems).index(baseline)
        return [(i, b) for i in range(len(systems)) if i != b]
    return [(i, j) for i in range(len(systems)) for j in range(i + 1, len(systems))]


def compare_scores(scores: Scores, *, baseline: str | None = None, test: str = "t",
                   correction: str = "holm", alpha: float = 0.05, samples: int = 10_000,
                   seed: int = 0, ci: float | None = None,
                   ci_method: CIMethod = "t") -> Comparison:
    """Compare the systems of a score matrix (see :func:`compare`)."""
    if not (isinstance(alpha, float | int) and 0 < alpha < 1):
        raise bad_param("compare", "alpha", "a number in (0, 1)", alpha)
    if ci is not None and not (isinstance(ci, float | int) and 0 < ci < 1):
        raise bad_param("compare", "ci", "a confidence level in (0, 1)", ci)
    if ci_method not in CI_METHODS:
        raise bad_param("compare", "ci_method", f"one of {', '.join(CI_METHODS)}", ci_method)
    sig = get_test(test)
    corr = get_correction(correction)
    opts = Resampling(samples, seed)
    if baseline is not None:
        scores.system_index(baseline)            # raises, with suggestions, if unknown
    if len(scores.topics) < 2:
        raise CompareError(f"paired tests need at least 2 topics; got {len(scores.topics)}")
    means = scores.values.mean(axis=2)
    low = high = None
    if ci is not None:
        per_topic = scores.values.transpose(2, 0, 1).reshape(len(scores.topics), -1)
        lo, hi = (t_interval(per_topic, ci) if ci_method == "t" else
                  bootstrap_interval(per_topic, ci, samples, seed))
        low, high = lo.reshape(means.shape), hi.reshape(means.shape)
    pairs = _pairs(scores.systems, baseline)
    out: list[PairTest] = []
    if pairs:
        # one column per (measure, pair): every test runs once over all of them
        D = np.stack([scores.values[m, i] - scores.values[m, j]
                      for m in range(len(scores.measures)) for i, j in pairs], axis=1)
        stat, p = sig.run(D, opts)
        effect = cohens_dz(D)
        for m, meas in enumerate(scores.measures):
            cols = slice(m * len(pairs), (m + 1) * len(pairs))
            adj = corr.adjust(p[cols])
            for c, (i, j) in enumerate(pairs):
                k = m * len(pairs) + c
                out.append(PairTest(meas, scores.systems[i], scores.systems[j],
                                    float(D[:, k].mean()), float(stat[k]), float(p[k]),
                                    float(adj[c]), float(effect[k]), bool(adj[c] <= alpha)))
    return Comparison(scores, sig.name, corr.name, float(alpha), opts, baseline, means, ci,
                      ci_method, low, high, tuple(out))


def compare(qrels: Qrels, runs: Mapping[str, Run] | Sequence[Run],
            measures: Sequence[str] = DEFAULT_MEASURES, *, baseline: str | None = None,
            test: str = "t", correction: str = "holm", alpha: float = 0.05,
            samples: int = 10_000, seed: int = 0, ci: float | None = None,
            ci_method: CIMethod = "t", level: int = 1, complete: bool = False,
            judged_only: bool = False, max_docs: int | None = None, compat: int = 10,
            progress: Callable[[int, int], None] | None = None) -> Comparison:
    """Evaluate ``runs`` and compare them.

    Parameters
    ----------
    qrels, runs : judgments, and a mapping system name -> run (or a list of runs,
        named by run id).
    measures : measures averaged over topics, in either spelling.
    baseline : test every system against this one; ``None``: every pair.
    test : a name from ``significance.TESTS`` (t, wilcoxon, sign, randomisation,
        bootstrap).
    correction : a name from ``corrections.CORRECTIONS`` (none, bonferroni, holm, bh),
        applied per measure over the tested pairs.
    alpha : significance level for the adjusted p-values.
    samples, seed : for the randomisation and bootstrap tests (and bootstrap CIs).
    ci, ci_method : confidence level of an interval around each mean (``None``:
        no interval); ``t`` (Student) or ``bootstrap`` (percentile).
    level, complete, judged_only, max_docs, compat : as for :class:`Evaluator`.
    """
    scores = score_matrix(qrels, runs, measures, level=level, complete=complete,
                          judged_only=judged_only, max_docs=max_docs, compat=compat,
                          progress=progress)
    return compare_scores(scores, baseline=baseline, test=test, correction=correction,
                          alpha=alpha, samples=samples, seed=seed, ci=ci,
                          ci_method=ci_method)
