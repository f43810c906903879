"""Property tests over the agreement registries (hypothesis), with oracles where they exist."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.judging.agreement import multi, pairwise

VALS = np.arange(4.0)


@st.composite
def two_raters(draw: st.DrawFn) -> tuple[np.ndarray, np.ndarray]:
    n = draw(st.integers(2, 40))
    a = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    b = np.array(draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)))
    return a, b


@st.composite
def many_raters(draw: st.DrawFn) -> np.ndarray:
    n = draw(st.integers(2, 25))
    r = draw(st.integers(2, 5))
    cells = draw(st.lists(st.integers(-1, 3), min_size=n * r, max_size=n * r))
    return np.array(cells, dtype=np.int8).reshape(n, r)


@settings(max_examples=examples(60), deadline=None)
@given(two_raters())
def test_every_pairwise_statistic_is_defined_or_explains(ab: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = ab
    t = pairwise.confusion(a, b, 4)
    for stat in pairwise.REGISTRY.values():
        s = pairwise.measure(stat, t, VALS, replicates=20)
        if s.status == "ok":
            assert s.value is not None and math.isfinite(s.value)
        else:
            assert s.value is None and s.reason


@settings(max_examples=examples(60), deadline=None)
@given(two_raters())
def test_cohen_matches_sklearn_with_declared_labels(ab: tuple[np.ndarray, np.ndarray]) -> None:
    from sklearn.metrics import cohen_kappa_score

    a, b = ab
    t = pairwise.confusion(a, b, 4)
    for kind, name in (("none", "cohen_kappa"), ("linear", "cohen_kappa_linear"),
                       ("quadratic", "cohen_kappa_quadratic")):
        ours = float(pairwise.REGISTRY[name].compute(t, VALS))
        po, pe, _ = pairwise.kappa_parts(t, pairwise.weight_matrix(VALS, kind))  # type: ignore[arg-type]
        if abs(1 - pe) < 1e-12:
            assert math.isnan(ours)       # undefined, never a silent 1.0
            continue
        with np.errstate(all="ignore"):
            ref = cohen_kappa_score(a, b, labels=[0, 1, 2, 3],
                                    weights=None if kind == "none" else kind)
        assert ours == pytest.approx(ref, abs=1e-9)


@settings(max_examples=examples(60), deadline=None)
@given(two_raters())
def test_pairwise_symmetric_in_raters(ab: tuple[np.ndarray, np.ndarray]) -> None:
    a, b = ab
    t = pairwise.confusion(a, b, 4)
    for name in ("percent_agreement", "cohen_kappa", "cohen_kappa_linear", "scott_pi", "pabak"):
        x = float(pairwise.REGISTRY[name].compute(t, VALS))
        y = float(pairwise.REGISTRY[name].compute(t.T, VALS))
        assert (math.isnan(x) and math.isnan(y)) or x == pytest.approx(y, abs=1e-12)


@settings(max_examples=examples(40), deadline=None)
@given(st.lists(st.integers(0, 3), min_size=2, max_size=30).filter(lambda g: len(set(g)) >= 2),
       st.integers(2, 5))
def test_identical_raters_agree_perfectly(grades: list[int], raters: int) -> None:
    codes = np.repeat(np.array(grades, dtype=np.int8)[:, None], raters, axis=1)
    pat = multi.patterns(codes, 4)
    for name in ("fleiss_kappa", "krippendorff_alpha_nominal", "krippendorff_alpha_ordinal",
                 "krippendorff_alpha_interval", "gwet_ac1"):
        s = multi.measure(multi.REGISTRY[name], pat, VALS, replicates=0)
        assert s.value == pytest.approx(1.0)
    t = pairwise.confusion(codes[:, 0], codes[:, 1], 4)
    assert float(pairwise.cohen_kappa(t, VALS)) == pytest.approx(1.0)
    assert multi.mean_pairwise_cohen(codes, 4, VALS, replicates=0).value == pytest.approx(1.0)


@settings(max_examples=examples(60), deadline=None)
@given(many_raters())
def test_krippendorff_matches_package(codes: np.ndarray) -> None:
    import krippendorff

    pat = multi.patterns(codes, 4)
    data = np.where(codes < 0, np.nan, codes.astype(float)).T
    for metric in ("nominal", "ordinal", "interval", "ratio"):
        s = multi.measure(multi.REGISTRY[f"krippendorff_alpha_{metric}"], pat, VALS,
                          replicates=0)
        if s.status != "ok":
            continue
        with np.errstate(all="ignore"):
            ref = krippendorff.alpha(reliability_data=data, level_of_measurement=metric,
                                     value_domain=[0, 1, 2, 3])
        assert s.value == pytest.approx(ref, abs=1e-9)


@settings(max_examples=examples(60), deadline=None)
@given(many_raters().map(lambda c: np.where(c < 0, 0, c).astype(np.int8)))
def test_fleiss_complete_matches_statsmodels(codes: np.ndarray) -> None:
    from statsmodels.stats.inter_rater import fleiss_kappa

    pat = multi.patterns(codes, 4)
    s = multi.measure(multi.REGISTRY["fleiss_kappa"], pat, VALS, replicates=0)
    counts = np.stack([(codes == k).sum(1) for k in range(4)], 1)
    with np.errstate(all="ignore"):
        ref = fleiss_kappa(counts)
    if s.status == "ok":
        assert s.value == pytest.approx(ref, abs=1e-9)
    else:
        assert not np.isfinite(ref) or ref == pytest.approx(1.0) or "same grade" in s.reason


@settings(max_examples=examples(40), deadline=None)
@given(many_raters())
def test_mean_pairwise_cohen_is_the_mean_of_sklearn_kappas(codes: np.ndarray) -> None:
    from itertools import combinations

    from sklearn.metrics import cohen_kappa_score

    s = multi.mean_pairwise_cohen(codes, 4, VALS, replicates=0)
    ks = []
    for i, j in combinations(range(codes.shape[1]), 2):
        ok = (codes[:, i] >= 0) & (codes[:, j] >= 0)
        if ok.sum() < 2:
            continue
        with np.errstate(all="ignore"):
            k = cohen_kappa_score(codes[ok, i], codes[ok, j], labels=[0, 1, 2, 3])
        t = pairwise.confusion(codes[ok, i], codes[ok, j], 4)
        if np.isfinite(float(pairwise.cohen_kappa(t, VALS))):
            ks.append(k)
    if ks:
        assert s.value == pytest.approx(float(np.mean(ks)), abs=1e-9) and s.n == len(ks)
    else:
        assert s.status == "undefined"
