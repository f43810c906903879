"""Intraclass correlation against Shrout & Fleiss (1979) Table 2 and pingouin (the oracle)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import ROOT, examples, oracle, run_cli
from relkit.judging.agreement.byrater import ICC_NAMES, icc_stats
from relkit.judging.agreement.icc import FORMS, icc

pg = oracle("pingouin")

# Shrout & Fleiss (1979), Table 2: 6 targets x 4 judges. Published (Table 4):
# ICC(1,1) = .17, ICC(2,1) = .29, ICC(3,1) = .71, ICC(1,4) = .44, ICC(2,4) = .62, ICC(3,4) = .91.
SF = np.array([[9, 2, 5, 8], [6, 1, 3, 2], [8, 4, 6, 8], [7, 1, 2, 6], [10, 5, 6, 9],
               [6, 2, 4, 7]], dtype=float)
SF_PUBLISHED = {"icc1": 0.17, "icc2": 0.29, "icc3": 0.71, "icc1k": 0.44, "icc2k": 0.62,
                "icc3k": 0.91}
# pingouin's rows, in order: ICC(1,1), ICC(A,1), ICC(C,1), ICC(1,k), ICC(A,k), ICC(C,k)
PG_ROWS = dict(zip(FORMS, range(6), strict=True))
LLMJUDGE = ROOT.parent / "shared" / "corpora" / "llmjudge-dl23"


def _pingouin(x: np.ndarray) -> pd.DataFrame:
    from pingouin.config import _no_rounding

    n, k = x.shape
    long = pd.DataFrame({"t": np.repeat(np.arange(n), k), "j": np.tile(np.arange(k), n),
                         "s": x.ravel()})
    with _no_rounding():      # pingouin rounds CI95 to 2 decimals by default
        return pg.intraclass_corr(long, "t", "j", "s")


def _check(x: np.ndarray) -> None:
    ours = icc(x)
    ref = _pingouin(x)
    for form, i in PG_ROWS.items():
        row = ref.iloc[i]
        o = ours[form]
        if not np.isfinite(o.value):
            # ours is undefined where the ANOVA denominator is not positive; pingouin
            # returns the artefact (e.g. ICC(2,k) = 4, or -5e15 from rounding noise)
            continue
        assert o.value == pytest.approx(row["ICC"], abs=1e-9), form
        if not np.isfinite(o.f):
            continue        # no residual variance (x = a_i + b_j): F and its interval undefined
        assert o.f == pytest.approx(row["F"], rel=1e-9) and o.df2 == row["df2"], form
        if np.isfinite(o.low) or np.isfinite(row["CI95"][0]):
            assert o.low == pytest.approx(row["CI95"][0], abs=1e-9), form
            assert o.high == pytest.approx(row["CI95"][1], abs=1e-9), form


def test_shrout_fleiss_table_2() -> None:
    ours = icc(SF)
    assert all(np.isfinite(r.value) for r in ours.values())
    assert {f: round(r.value, 2) for f, r in ours.items()} == SF_PUBLISHED
    _check(SF)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(3, 15), st.integers(2, 6), st.integers(0, 2 ** 31 - 1))
def test_random_matrices_match_pingouin(n: int, k: int, seed: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=(n, 1)) + rng.integers(0, 3, size=(n, k))
    if np.ptp(x) == 0 or (x == x[:, :1]).all():
        return          # no variance within items: the F intervals are undefined
    _check(x.astype(float))


@pytest.mark.slow
def test_llmjudge_34_judges_match_pingouin() -> None:
    """The real collection: NIST and 33 LLM judges, 0-3 grades, on the same 4,423 pairs."""
    files = [LLMJUDGE / "llmjudge_test_qrel_idx.txt",
             *sorted((LLMJUDGE / "llm-judgments").glob("*.txt"))]
    frames = []
    for j, f in enumerate(files):
        d = pd.read_csv(f, sep=r"\s+", header=None, names=["q", "z", "doc", "g"], dtype=str)
        frames.append(d.assign(j=j, key=d["q"] + "/" + d["doc"]))
    wide = pd.concat(frames).pivot(index="key", columns="j", values="g").astype(float)
    assert wide.shape == (4423, 34) and not wide.isna().any().any()
    _check(wide.to_numpy())


def test_incomplete_items_are_dropped_and_counted() -> None:
    codes = np.array([[0, 1, 1], [2, 2, 3], [1, -1, 1], [3, 3, 2], [-1, -1, 0], [0, 0, 1]],
                     dtype=np.int8)
    stats, dropped = icc_stats(codes, np.arange(4.0))
    assert dropped == 2
    full = codes[[0, 1, 3, 5]].astype(float)
    assert stats["icc_2_1"].n == 4
    assert stats["icc_2_1"].value == pytest.approx(icc(full)["icc2"].value)
    # not enough complete items: undefined with the reason, never NaN
    stats, dropped = icc_stats(codes[[0, 2, 4]], np.arange(4.0))
    assert all(s.status == "undefined" and "fewer than two" in s.reason
               for s in stats.values())
    assert set(stats) == set(ICC_NAMES.values())


def test_cli_says_how_many_items_icc_left_out(tmp_path: Path) -> None:
    (tmp_path / "a.qrels").write_text("1 0 d1 2\n1 0 d2 0\n1 0 d3 3\n2 0 d4 1\n2 0 d5 2\n")
    (tmp_path / "b.qrels").write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 3\n2 0 d4 0\n")
    code, out, err = run_cli(["agree", str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"),
                              "--scale", "trec-dl", "--replicates", "0"])
    assert code == 0, err
    assert "ICC: 1 of 5 items were not judged by every assessor" in err
    assert "icc_2_1" in out


@pytest.mark.parametrize("x", [
    [[2, 0], [1, 0], [0, 1]],
    [[2, 0, 0], [0, 1, 0], [0, 1, 1], [0, 1, 2]],
    [[0, 1, 0], [2, 0, 0], [0, 2, 0]],
])
def test_a_denominator_zero_up_to_rounding_is_undefined_in_every_judge_order(x: list) -> None:
    # Exactly 0 denominators of ICC(2,k) came out as +-1e-16 noise: -9e15 in one judge
    # order, undefined in the other (found by the registry property test).
    a = np.asarray(x, dtype=float)
    for perm in (a, a[:, ::-1], a[::-1]):
        got = icc(perm)
        for form in FORMS:
            ref = icc(a)[form].value
            assert np.isnan(got[form].value) == np.isnan(ref), form
            if not np.isnan(ref):
                assert got[form].value == pytest.approx(ref, abs=1e-9), form
    assert np.isnan(icc(a)["icc2k"].value)
