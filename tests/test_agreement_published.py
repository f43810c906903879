"""Agreement statistics against published worked examples and the oracle libraries."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from agreement_data import DIAGNOSES, KRIPP, WIKI_COUNTS, long_frame
from relkit.corpora.types import RelevanceScale
from relkit.judging.agreement import multi, pairwise
from relkit.judging.agreement.frame import Ratings

# 94 applicants judged by A and B: yes/yes 61, yes/no 2, no/yes 6, no/no 25.
# Rows: A (0 = no, 1 = yes); columns: B. Published: P(A) = 0.9149, P(E) = 0.5724,
# kappa = 0.8010, analytic 95% CI about 0.670-0.932.
APPLICANTS = np.array([[25, 6], [2, 61]])
BIN = np.array([0.0, 1.0])


def test_applicants_kappa_and_ci() -> None:
    po, pe, n = pairwise.kappa_parts(APPLICANTS, np.eye(2))
    assert (round(float(po), 4), round(float(pe), 4), n) == (0.9149, 0.5724, 94)
    s = pairwise.measure(pairwise.REGISTRY["cohen_kappa"], APPLICANTS, BIN)
    assert s.status == "ok" and round(s.value, 4) == 0.8010
    assert s.analytic is not None
    assert round(s.analytic.low, 3) == 0.670 and round(s.analytic.high, 3) == 0.932
    # 0.801 lies above Landis & Koch's 0.80 upper bound of "substantial"
    assert s.band == "almost perfect"
    # the bootstrap interval is seeded: same seed, same interval
    again = pairwise.measure(pairwise.REGISTRY["cohen_kappa"], APPLICANTS, BIN)
    assert again.bootstrap == s.bootstrap and s.bootstrap is not None
    assert s.bootstrap.low < s.value < s.bootstrap.high


def test_applicants_against_statsmodels_and_sklearn() -> None:
    from sklearn.metrics import cohen_kappa_score
    from statsmodels.stats.inter_rater import cohens_kappa

    ref = cohens_kappa(APPLICANTS)
    s = pairwise.measure(pairwise.REGISTRY["cohen_kappa"], APPLICANTS, BIN, replicates=0)
    assert s.value == pytest.approx(ref.kappa, abs=1e-12)
    assert s.analytic is not None and s.analytic.se == pytest.approx(ref.std_kappa, abs=1e-12)
    a = np.repeat([0, 0, 1, 1], [25, 6, 2, 61])
    b = np.repeat([0, 1, 0, 1], [25, 6, 2, 61])
    assert s.value == pytest.approx(cohen_kappa_score(a, b), abs=1e-12)


def test_applicants_binary_indices_by_hand() -> None:
    a, b, c, d, n = 61, 2, 6, 25, 94        # a: both yes; b: A yes B no; c: A no B yes
    t = APPLICANTS
    val = {k: float(pairwise.REGISTRY[k].compute(t, BIN)) for k in pairwise.REGISTRY}
    assert val["positive_agreement"] == pytest.approx(2 * a / (2 * a + b + c))   # 0.9385
    assert val["negative_agreement"] == pytest.approx(2 * d / (2 * d + b + c))   # 0.8621
    assert val["prevalence_index"] == pytest.approx((a - d) / n)                 # 0.383
    assert val["bias_index"] == pytest.approx((b - c) / n)                       # -0.0426
    assert val["pabak"] == pytest.approx(2 * (a + d) / n - 1)                    # 0.8298
    m_yes = ((a + b) + (a + c)) / (2 * n)
    pe = m_yes ** 2 + (1 - m_yes) ** 2
    assert val["scott_pi"] == pytest.approx(((a + d) / n - pe) / (1 - pe))       # 0.8005


@pytest.mark.parametrize("wt", ["linear", "quadratic"])
def test_weighted_kappa_and_se_against_statsmodels(wt: str) -> None:
    from statsmodels.stats.inter_rater import cohens_kappa

    # SAS's weighted-kappa example table (statsmodels test_inter_rater.py, table10)
    t = np.array([[0, 4, 1], [0, 8, 0], [0, 1, 5]])
    vals = np.array([0.0, 1.0, 2.0])
    ref = cohens_kappa(t, wt=wt)
    st = pairwise.REGISTRY[f"cohen_kappa_{wt}"]
    assert float(st.compute(t, vals)) == pytest.approx(ref.kappa, abs=1e-12)
    assert st.se is not None and st.se(t, vals) == pytest.approx(ref.std_kappa, abs=1e-12)
    if wt == "linear":      # SAS printout: weighted kappa 0.4701, ASE 0.1457
        assert round(ref.kappa, 4) == 0.4701 and round(st.se(t, vals), 4) == 0.1457


def test_fleiss_1971_diagnoses() -> None:
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    scale = RelevanceScale.from_values("dx", range(1, 6))
    r = Ratings.from_frame(long_frame(DIAGNOSES), scale)  # type: ignore[arg-type]
    s = multi.measure(multi.REGISTRY["fleiss_kappa"], multi.patterns(r.codes, 5), r.values)
    assert round(s.value, 3) == 0.430
    assert s.value == pytest.approx(0.4302445, abs=1e-7)              # R irr kappam.fleiss
    assert s.value == pytest.approx(fleiss_kappa(aggregate_raters(DIAGNOSES)[0]), abs=1e-12)


def test_fleiss_wikipedia_example() -> None:
    w = np.ones((1, len(WIKI_COUNTS)))
    v = float(multi.fleiss_kappa(WIKI_COUNTS, w, np.arange(5.0))[0])
    assert round(v, 3) == 0.210


@pytest.mark.parametrize("metric,published", [("nominal", 0.743), ("ordinal", 0.815),
                                              ("interval", 0.849), ("ratio", 0.797)])
def test_krippendorff_2011(metric: str, published: float) -> None:
    import krippendorff

    scale = RelevanceScale.from_values("k", range(1, 6))
    r = Ratings.from_frame(long_frame(KRIPP, by_item=False), scale)  # type: ignore[arg-type]
    s = multi.measure(multi.REGISTRY[f"krippendorff_alpha_{metric}"],
                      multi.patterns(r.codes, 5), r.values, replicates=200)
    assert round(s.value, 3) == published
    data = np.array([[np.nan if v is None else v for v in row] for row in KRIPP], float)
    assert s.value == pytest.approx(krippendorff.alpha(reliability_data=data,
                                                       level_of_measurement=metric), abs=1e-12)


def test_unused_middle_grade_changes_weighted_kappa() -> None:
    """The trap: weights from observed label positions vs from the declared scale."""
    from sklearn.metrics import cohen_kappa_score

    a = np.array([0, 0, 1, 3, 3, 1, 0, 3, 1, 0])
    b = np.array([0, 1, 1, 3, 1, 0, 0, 3, 3, 1])     # nobody used grade 2 of 0-3
    t = pairwise.confusion(a, b, 4)
    ours = float(pairwise.REGISTRY["cohen_kappa_quadratic"].compute(t, np.arange(4.0)))
    declared = cohen_kappa_score(a, b, weights="quadratic", labels=[0, 1, 2, 3])
    observed = cohen_kappa_score(a, b, weights="quadratic")   # positions of 0, 1, 3
    assert ours == pytest.approx(declared, abs=1e-12)
    assert abs(ours - observed) > 0.01


def test_statsmodels_nan_trap_vs_missing_aware_fleiss() -> None:
    """aggregate_raters counts NaN as one more category; ours skips missing labels."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    data = DIAGNOSES.astype(float)
    data[::3, 0] = np.nan
    counts, cats = aggregate_raters(data)
    assert np.isnan(cats).any() or len(cats) == 6        # the extra "NaN" category
    naive = fleiss_kappa(counts)
    rows = [[None if np.isnan(v) else int(v) for v in row] for row in data]
    scale = RelevanceScale.from_values("dx", range(1, 6))
    r = Ratings.from_frame(long_frame(rows), scale)  # type: ignore[arg-type]
    pat = multi.patterns(r.codes, 5)
    ours = float(multi.fleiss_kappa(pat.counts, pat.freq[None].astype(float), r.values)[0])
    # hand computation of the missing-aware form (Gwet 2014): per item, agreeing pairs
    # over m(m-1); chance from the mean per-item shares n_ic / m_i
    c = np.stack([(r.codes == k).sum(1) for k in range(5)], 1).astype(float)
    m = c.sum(1)
    pa = np.mean((c * (c - 1)).sum(1) / (m * (m - 1)))
    pe = ((c / m[:, None]).mean(0) ** 2).sum()
    assert ours == pytest.approx((pa - pe) / (1 - pe), abs=1e-12)
    assert abs(ours - naive) > 1e-3


def test_gwet_ac1_two_raters_by_hand() -> None:
    # Gwet (2008) for two raters: pe = 1/(q-1) * sum_k pi_k (1 - pi_k), pi_k the mean margin
    t = np.array([[118, 5, 2], [4, 30, 6], [1, 3, 31]])
    n = t.sum()
    pi = (t.sum(0) + t.sum(1)) / (2 * n)
    pe = (pi * (1 - pi)).sum() / 2
    po = np.trace(t) / n
    expected = (po - pe) / (1 - pe)
    rows = []
    for i in range(3):
        for j in range(3):
            rows += [[i, j]] * int(t[i, j])
    scale = RelevanceScale.from_values("g", range(3))
    r = Ratings.from_frame(long_frame(rows), scale)  # type: ignore[arg-type]
    pat = multi.patterns(r.codes, 3)
    got = float(multi.gwet_ac1(pat.counts, pat.freq[None].astype(float), r.values)[0])
    assert got == pytest.approx(expected, abs=1e-12)


def test_degenerate_inputs_are_undefined_with_reasons() -> None:
    one = pairwise.measure(pairwise.REGISTRY["cohen_kappa"], np.array([[5, 0], [0, 0]]), BIN)
    assert one.status == "undefined" and one.value is None and "one" in one.reason
    single = pairwise.measure(pairwise.REGISTRY["cohen_kappa"], np.array([[0, 1], [0, 0]]), BIN)
    assert single.status == "undefined" and "single item" in single.reason
    none = pairwise.measure(pairwise.REGISTRY["cohen_kappa"], np.zeros((2, 2), int), BIN)
    assert none.status == "undefined" and "no item" in none.reason
    # two assessors who never judged the same item
    frame = pd.DataFrame({"assessor": ["a", "a", "b"], "topic": ["1", "1", "1"],
                          "doc": ["x", "y", "z"], "grade": [0, 1, 1]})
    r = Ratings.from_frame(frame, RelevanceScale.from_values("b", [0, 1]))
    pat = multi.patterns(r.codes, 2)
    for st in multi.REGISTRY.values():
        s = multi.measure(st, pat, r.values)
        assert s.status == "undefined" and s.value is None and "no item" in s.reason
    assert multi.mean_pairwise_cohen(r.codes, 2, r.values).status == "undefined"
    # everyone used one grade: alpha is undefined, not a silent 1.0
    same = pd.DataFrame({"assessor": ["a", "b", "a", "b"], "topic": ["1"] * 4,
                         "doc": ["x", "x", "y", "y"], "grade": [1, 1, 1, 1]})
    r = Ratings.from_frame(same, RelevanceScale.from_values("b", [0, 1]))
    s = multi.measure(multi.REGISTRY["krippendorff_alpha_nominal"],
                      multi.patterns(r.codes, 2), r.values)
    assert s.status == "undefined" and "same grade" in s.reason


def test_multinomial_bootstrap_matches_item_resampling() -> None:
    """The pattern-count bootstrap is item resampling; compare with the naive loop."""
    from relkit.judging.agreement import ci

    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, size=(120, 4)).astype(np.int8)
    codes[rng.random(codes.shape) < 0.2] = -1
    codes[:, 1] = np.where(rng.random(120) < 0.6, codes[:, 0], codes[:, 1])
    pat = multi.patterns(codes, 3)
    vals = np.arange(3.0)
    st = multi.REGISTRY["krippendorff_alpha_ordinal"]
    ours = ci.bootstrap_weights(lambda w: st.compute(pat.counts, w, vals), pat.freq, 4000, 1)
    judged = pat.item_pattern >= 0
    items = pat.item_pattern[judged]
    naive = []
    for _ in range(4000):
        pick = items[rng.integers(0, len(items), len(items))]
        w = np.bincount(pick, minlength=len(pat.freq))[None].astype(float)
        naive.append(float(st.compute(pat.counts, w, vals)[0]))
    lo, hi = np.quantile(naive, [0.025, 0.975])
    assert ours is not None
    assert ours.low == pytest.approx(lo, abs=0.02) and ours.high == pytest.approx(hi, abs=0.02)


def test_landis_koch_bands() -> None:
    from relkit.judging.agreement.result import landis_koch

    assert [landis_koch(v) for v in (-0.1, 0.0, 0.2, 0.21, 0.4, 0.6, 0.61, 0.8, 0.81, 1.0)] == [
        "poor", "slight", "slight", "fair", "fair", "moderate", "substantial", "substantial",
        "almost perfect", "almost perfect"]
    assert landis_koch(None) is None
