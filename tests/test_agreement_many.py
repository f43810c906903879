"""Conger, Brennan–Prediger, weighted Fleiss / Scott / AC2: irrCAC and Gwet's worked example.

Oracle: the ``irrCAC`` Python package (Gwet's formulas; installed by ``make setup`` with
``--no-deps``, see the Makefile), on its own copy of Gwet's ``cac.raw4raters`` (4 raters x 12
units, values 1-5, missing ratings), always with ``categories=[1..5]``: without them irrCAC 0.4.4
under pandas 3 counts NaN as one more category.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples, oracle, run_cli
from relkit.judging.agreement import conger, multi, pairwise, weights

raw = oracle("irrCAC.raw")  # make setup installs irrCAC with --no-deps

VALS = np.arange(1.0, 6.0)
CATS = [1, 2, 3, 4, 5]
# Gwet's cac.raw4raters (Handbook of Inter-Rater Reliability, 4th ed., 2014), as the R irrCAC
# package documents its output (5 decimals; the Python package prints the same): coefficient,
# P_a, P_e.
GWET_RAW4 = {"conger": (0.76282, 0.81818, 0.23343), "fleiss": (0.76117, 0.81818, 0.23872),
             "gwet": (0.77544, 0.81818, 0.19032), "bp": (0.77273, 0.81818, 0.2),
             "krippendorff": (0.74342, 0.805, 0.24)}
OURS = {"fleiss": "fleiss_kappa", "gwet": "gwet_ac1", "bp": "brennan_prediger",
        "krippendorff": "krippendorff_alpha_nominal"}


def _raw4() -> tuple[pd.DataFrame, np.ndarray]:
    from irrCAC.datasets import raw_4raters

    d = raw_4raters()
    return d, np.where(d.isna(), -1, d.fillna(0).to_numpy() - 1).astype(np.int8)


def _ours(method: str, kind: str, codes: np.ndarray, interval: str = "t"):  # type: ignore[no-untyped-def]
    from relkit.judging.agreement.byrater import conger_stats

    if method == "conger":
        name = "conger_kappa" + ("" if kind == "identity" else f"_{kind}")
        return conger_stats(codes, VALS, interval=interval, names=(name,))[name]
    base = {"fleiss": "fleiss_kappa", "gwet": "gwet_ac", "bp": "brennan_prediger"}[method]
    if method == "gwet":
        name = "gwet_ac1" if kind == "identity" else f"gwet_ac2_{kind}"
    else:
        name = base + ("" if kind == "identity" else f"_{kind}")
    return multi.measure(multi.REGISTRY[name], multi.patterns(codes, 5), VALS, replicates=0,
                         interval=interval)


@pytest.mark.parametrize("method", sorted(GWET_RAW4))
def test_gwet_published_raw4raters(method: str) -> None:
    d, codes = _raw4()
    if method == "krippendorff":
        s = multi.measure(multi.REGISTRY["krippendorff_alpha_nominal"], multi.patterns(codes, 5),
                          VALS, replicates=0)
    else:
        s = _ours(method, "identity", codes)
    value, pa, pe = GWET_RAW4[method]
    assert (round(s.value, 5), round(s.pa, 5), round(s.pe, 5)) == (value, pa, pe)


@pytest.mark.parametrize("kind", ["identity", "linear", "quadratic", "ordinal"])
@pytest.mark.parametrize("method", ["conger", "fleiss", "gwet", "bp"])
def test_matches_irrcac_value_se_parts_and_t_interval(method: str, kind: str) -> None:
    d, codes = _raw4()
    ref = getattr(raw.CAC(d, weights=kind, categories=CATS, digits=14), method)()["est"]
    s = _ours(method, kind, codes)
    assert s.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
    assert s.pa == pytest.approx(ref["pa"], abs=1e-9) and s.pe == pytest.approx(ref["pe"], abs=1e-9)
    assert s.analytic is not None and s.analytic.se == pytest.approx(ref["se"], abs=1e-9)
    lo, hi = ref["confidence_interval"]
    assert s.analytic.low == pytest.approx(lo, abs=1e-9)
    assert s.analytic.high == pytest.approx(hi, abs=1e-9)
    assert s.analytic.distribution == "t" and s.analytic.df == len(d) - 1
    normal = _ours(method, kind, codes, "normal")
    assert normal.analytic is not None and normal.analytic.distribution == "normal"
    assert normal.analytic.low > s.analytic.low     # t(11) is wider than the normal


@settings(max_examples=examples(25), deadline=None)
@given(st.integers(0, 2 ** 31 - 1), st.sampled_from(["identity", "linear", "quadratic",
                                                     "ordinal"]))
def test_random_data_with_missing_matches_irrcac(seed: int, kind: str) -> None:
    rng = np.random.default_rng(seed)
    n, r = int(rng.integers(5, 30)), int(rng.integers(2, 6))
    codes = rng.integers(0, 4, size=(n, r))
    codes[:, -1] = np.where(rng.random(n) < 0.6, codes[:, 0], codes[:, -1])
    codes[rng.random(codes.shape) < 0.25] = -1
    codes = codes[(codes >= 0).sum(axis=1) >= 1]
    if len(codes) < 3 or ((codes >= 0).sum(axis=1) >= 2).sum() < 2 or \
            not (codes >= 0).any(axis=0).all():
        return
    vals = np.arange(1.0, 5.0)
    d = pd.DataFrame(np.where(codes < 0, np.nan, codes + 1.0))
    for method in ("conger", "fleiss", "bp"):
        ref = getattr(raw.CAC(d, weights=kind, categories=[1.0, 2.0, 3.0, 4.0], digits=14),
                      method)()["est"]
        if method == "conger":
            got = conger.conger(codes, weights.matrix(vals, kind))
            value, se = got.value, got.se
        else:
            name = {"fleiss": "fleiss_kappa", "bp": "brennan_prediger"}[method]
            name += "" if kind == "identity" else f"_{kind}"
            pat = multi.patterns(codes.astype(np.int8), 4)
            w = pat.freq[None].astype(float)
            st_ = multi.REGISTRY[name]
            value = float(st_.compute(pat.counts, w, vals)[0])
            se = float(st_.se(pat.counts, w, vals)[0]) if st_.se else np.nan
        if not np.isfinite(ref["coefficient_value"]) or abs(1 - ref["pe"]) < 1e-9:
            continue
        assert value == pytest.approx(ref["coefficient_value"], abs=1e-9), method
        if ref["se"] > 1e-12:
            assert se == pytest.approx(ref["se"], abs=1e-9), method


def test_conger_with_two_raters_is_cohen() -> None:
    rng = np.random.default_rng(4)
    a = rng.integers(0, 3, 60)
    b = np.where(rng.random(60) < 0.5, a, rng.integers(0, 3, 60))
    t = pairwise.confusion(a, b, 3)
    for kind in ("none", "linear", "quadratic"):
        w = pairwise.weight_matrix(np.arange(3.0), kind)  # type: ignore[arg-type]
        got = conger.conger(np.stack([a, b], 1), w).value
        assert got == pytest.approx(float(pairwise.REGISTRY[
            "cohen_kappa" + ("" if kind == "none" else f"_{kind}")].compute(t, np.arange(3.0))))


def test_brennan_prediger_with_two_raters_is_pabak() -> None:
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 4, size=(50, 2)).astype(np.int8)
    pat = multi.patterns(codes, 4)
    bp = float(multi.REGISTRY["brennan_prediger"].compute(
            pat.counts, pat.freq[None].astype(float), np.arange(4.0))[0])
    t = pairwise.confusion(codes[:, 0], codes[:, 1], 4)
    assert bp == pytest.approx(float(pairwise.pabak(t, np.arange(4.0))))


@pytest.mark.parametrize("kind", ["identity", "linear", "quadratic"])
def test_weighted_scott_matches_irrcac_table(kind: str) -> None:
    from irrCAC.table import CAC

    rng = np.random.default_rng(9)
    for _ in range(5):
        t = rng.integers(0, 30, size=(3, 3)) + np.diag(rng.integers(10, 40, 3))
        ref = CAC(pd.DataFrame(t), weights=kind, digits=14).scott()["est"]
        name = "scott_pi" + ("" if kind == "identity" else f"_{kind}")
        s = pairwise.measure(pairwise.REGISTRY[name], t, np.arange(3.0), replicates=0,
                             interval="t")
        assert s.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
        assert s.analytic is not None and s.analytic.se == pytest.approx(ref["se"], abs=1e-9)
        assert s.analytic.low == pytest.approx(ref["confidence_interval"][0], abs=1e-9)
        assert s.analytic.high == pytest.approx(ref["confidence_interval"][1], abs=1e-9)


@pytest.mark.parametrize("name,method,kind", [
    ("cohen_kappa", "cohen", "identity"), ("cohen_kappa_linear", "cohen", "linear"),
    ("cohen_kappa_quadratic", "cohen", "quadratic"), ("pabak", "bp", "identity"),
    ("percent_agreement", "pa2", "identity")])
def test_pairwise_t_interval_matches_irrcac_table(name: str, method: str, kind: str) -> None:
    """--interval t reaches Cohen's kappa, PABAK (two-rater Brennan-Prediger) and percent
    agreement: irrCAC's table functions give each a t(n - 1) interval on the same SE."""
    from irrCAC.table import CAC

    rng = np.random.default_rng(11)
    for _ in range(5):
        t = rng.integers(0, 30, size=(3, 3)) + np.diag(rng.integers(10, 40, 3))
        ref = getattr(CAC(pd.DataFrame(t), weights=kind, digits=14), method)()["est"]
        s = pairwise.measure(pairwise.REGISTRY[name], t, np.arange(3.0), replicates=0,
                             interval="t")
        assert s.value == pytest.approx(ref["coefficient_value"], abs=1e-9)
        assert s.analytic is not None and s.analytic.se == pytest.approx(ref["se"], abs=1e-9)
        assert s.analytic.distribution == "t" and s.analytic.df == t.sum() - 1
        assert s.analytic.low == pytest.approx(ref["confidence_interval"][0], abs=1e-9)
        assert s.analytic.high == pytest.approx(ref["confidence_interval"][1], abs=1e-9)
        normal = pairwise.measure(pairwise.REGISTRY[name], t, np.arange(3.0), replicates=0)
        assert normal.analytic is not None and normal.analytic.distribution == "normal"


def test_json_has_pa_pe_and_interval_t(tmp_path: Path) -> None:
    (tmp_path / "a.qrels").write_text("1 0 d1 2\n1 0 d2 0\n1 0 d3 3\n2 0 d4 1\n2 0 d5 2\n")
    (tmp_path / "b.qrels").write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 3\n2 0 d4 0\n2 0 d5 2\n")
    (tmp_path / "c.qrels").write_text("1 0 d1 3\n1 0 d2 0\n1 0 d3 3\n2 0 d4 1\n2 0 d5 1\n")
    files = [str(tmp_path / f"{x}.qrels") for x in "abc"]
    code, out, err = run_cli(["agree", *files, "--scale", "trec-dl", "--format", "json",
                              "--replicates", "0", "--interval", "t"])
    assert code == 0, err
    d = json.loads(out)
    assert d["interval"] == "t"
    ov = d["graded"]["overall"]
    for name in ("fleiss_kappa", "conger_kappa", "brennan_prediger", "gwet_ac1",
                 "fleiss_kappa_quadratic", "krippendorff_alpha_interval"):
        s = ov[name]
        assert s["pe"] is not None and s["pa"] is not None
        assert s["value"] == pytest.approx((s["pa"] - s["pe"]) / (1 - s["pe"]), abs=1e-12)
        assert s["analytic"]["distribution"] == "t" and s["analytic"]["df"] == 4
    pk = d["graded"]["pairs"][0]["stats"]["cohen_kappa"]
    assert pk["analytic"]["distribution"] == "t" and pk["pe"] is not None   # irrCAC's too
    assert ov["icc_2_1"]["analytic"]["distribution"] == "F"
    code, _, err = run_cli(["agree", *files, "--scale", "trec-dl", "--interval", "student"])
    assert code == 2 and "--interval" in err and "Traceback" not in err


@pytest.mark.parametrize("metric,kind", [("nominal", "identity"), ("interval", "quadratic"),
                                         ("ratio", "ratio")])
def test_alpha_parts_and_t_interval_match_irrcac(metric: str, kind: str) -> None:
    d, codes = _raw4()
    ref = raw.CAC(d, weights=kind, categories=CATS, digits=14).krippendorff()["est"]
    s = multi.measure(multi.REGISTRY[f"krippendorff_alpha_{metric}"], multi.patterns(codes, 5),
                      VALS, replicates=0, interval="t")
    assert s.pa == pytest.approx(ref["pa"], abs=1e-9) and s.pe == pytest.approx(ref["pe"], abs=1e-9)
    assert s.analytic is not None
    assert s.analytic.low == pytest.approx(ref["confidence_interval"][0], abs=1e-9)
    assert s.analytic.high == pytest.approx(ref["confidence_interval"][1], abs=1e-9)
