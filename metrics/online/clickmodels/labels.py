"""Click-based relevance grades: a model's per-pair scores cut into grades.

The score of a query-document pair is its attractiveness ``alpha`` (DCTR, PBM, UBM,
DCM, CCM, cascade), or ``alpha * sigma`` for the DBN and SDBN (the probability that a user who
examines the result clicks it and is satisfied: Chuklin et al. 2015, section 3.8, the
DBN's relevance). Only pairs with at least ``min_impressions`` impressions are graded.

Cut points: by default the quantiles ``k / G`` (``k = 1..G-1``) of the graded pairs'
scores, so the ``G`` grades are about equally frequent (click scores have no absolute
scale across logs and models: a PBM's alpha and a DBN's alpha * sigma differ by a factor);
or fixed thresholds given by the user. A pair's grade is the number of cut points its
score reaches (``score >= cut``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from relkit.metrics.core.errors import RelkitError
from relkit.metrics.online.clickmodels.base import ClickModel


@dataclass
class Labels:
    """Graded pairs and how they were graded."""

    queries: list[str]
    docs: list[str]
    grades: list[int]
    scores: list[float]
    cuts: list[float]
    score: str
    method: str


def click_labels(model: ClickModel, n_grades: int, min_impressions: int,
                 thresholds: list[float] | None = None) -> Labels:
    """Grades ``0..n_grades-1`` for the pairs of ``model`` (see the module docstring).

    Raises :class:`RelkitError` when the model has no per-document parameter (GCTR,
    RCTR, the random model) or ``thresholds`` are not ``n_grades - 1`` increasing values.
    """
    if "alpha" not in model.per_pair:
        raise RelkitError(f"a {model.name} model has no per-document parameter to grade "
                          "(fit dctr, pbm, ubm, cascade, sdbn, dbn, dcm or ccm)")
    alpha = model.params["alpha"]
    if "sigma" in model.per_pair:
        score, name = alpha * model.params["sigma"], "alpha*sigma"
    else:
        score, name = alpha, "alpha"
    keep = model.counts >= min_impressions
    s = score[keep]
    if thresholds is not None:
        if len(thresholds) != n_grades - 1 or list(thresholds) != sorted(thresholds):
            raise RelkitError(f"expected {n_grades - 1} increasing thresholds for "
                              f"{n_grades} grades; got {thresholds}")
        cuts, method = np.asarray(thresholds, dtype=np.float64), "thresholds"
    else:
        qs = np.arange(1, n_grades) / n_grades
        cuts = np.quantile(s, qs) if len(s) else np.zeros(n_grades - 1)
        method = "quantiles"
    grades = np.searchsorted(cuts, s, side="right")
    return Labels([str(q) for q in model.queries[keep]], [str(d) for d in model.docs[keep]],
                  [int(g) for g in grades], [float(x) for x in s], [float(c) for c in cuts],
                  name, method)
