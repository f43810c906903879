"""Published agreement datasets, typed in from their sources (cited per table)."""

from __future__ import annotations

import numpy as np

# Fleiss (1971), "Measuring nominal scale agreement among many raters", Psychological
# Bulletin 76(5):378-382, Table 1: 30 patients, 6 psychiatrists each, 5 diagnoses
# (1 depression, 2 personality disorder, 3 schizophrenia, 4 neurosis, 5 other). Rater-wise
# form as distributed with R's irr package (`diagnoses`) and statsmodels'
# statsmodels/stats/tests/test_inter_rater.py; irr's kappam.fleiss gives 0.4302445.
DIAGNOSES = np.array([
    [4, 4, 4, 4, 4, 4], [2, 2, 2, 5, 5, 5], [2, 3, 3, 3, 3, 5], [5, 5, 5, 5, 5, 5],
    [2, 2, 2, 4, 4, 4], [1, 1, 3, 3, 3, 3], [3, 3, 3, 3, 5, 5], [1, 1, 3, 3, 3, 4],
    [1, 1, 4, 4, 4, 4], [5, 5, 5, 5, 5, 5], [1, 4, 4, 4, 4, 4], [1, 2, 4, 4, 4, 4],
    [2, 2, 2, 3, 3, 3], [1, 4, 4, 4, 4, 4], [2, 2, 4, 4, 4, 5], [3, 3, 3, 3, 3, 5],
    [1, 1, 1, 4, 5, 5], [1, 1, 1, 1, 1, 2], [2, 2, 4, 4, 4, 4], [1, 3, 3, 5, 5, 5],
    [5, 5, 5, 5, 5, 5], [2, 4, 4, 4, 4, 4], [2, 2, 4, 5, 5, 5], [1, 1, 4, 4, 4, 4],
    [1, 4, 4, 4, 4, 5], [2, 2, 2, 2, 2, 4], [1, 1, 1, 1, 5, 5], [2, 2, 4, 4, 4, 4],
    [1, 3, 3, 3, 3, 3], [5, 5, 5, 5, 5, 5]])

# The worked example on Wikipedia's "Fleiss' kappa" page (also statsmodels' table0):
# 10 subjects, 14 raters each, 5 categories; counts n_ij. kappa = 0.210.
WIKI_COUNTS = np.array([
    [0, 0, 0, 0, 14], [0, 2, 6, 4, 2], [0, 0, 3, 5, 6], [0, 3, 9, 2, 0], [2, 2, 8, 1, 1],
    [7, 7, 0, 0, 0], [3, 2, 6, 3, 0], [2, 5, 3, 2, 2], [6, 5, 2, 1, 0], [0, 2, 2, 3, 7]])

# Krippendorff (2011), "Computing Krippendorff's alpha-reliability", section C
# (reliability data with missing values): 4 observers x 12 units, values 1-5, None missing.
# Published: nominal 0.743, ordinal 0.815, interval 0.849, ratio 0.797.
N = None
KRIPP = [
    [1, 2, 3, 3, 2, 1, 4, 1, 2, N, N, N],
    [1, 2, 3, 3, 2, 2, 4, 1, 2, 5, N, 3],
    [N, 3, 3, 3, 2, 3, 4, 2, 2, 5, 1, N],
    [1, 2, 3, 3, 2, 4, 4, 1, 2, 5, 1, N],
]


def long_frame(rows: list[list[int | None]] | np.ndarray, by_item: bool = True) -> object:
    """A long frame from a matrix (items x raters if ``by_item``, else raters x items)."""
    import pandas as pd

    m = np.asarray(rows, dtype=object)
    if not by_item:
        m = m.T
    out = [(f"r{j + 1}", "t", f"u{i + 1:02d}", int(v))
           for i, row in enumerate(m) for j, v in enumerate(row) if v is not None]
    return pd.DataFrame(out, columns=["assessor", "topic", "doc", "grade"])
