"""Per-topic analysis and table formats on hand-made score matrices."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from relkit.metrics.compare.analysis import (
    heatmap,
    most_different,
    ordering_correlation,
    precision_histogram,
)
from relkit.metrics.compare.core import compare_scores
from relkit.metrics.compare.errors import CompareError
from relkit.metrics.compare.formats import FORMATS
from relkit.metrics.compare.scores import Scores, system_names
from relkit.metrics.compare.tables import latex_escape

# AP of three systems on four topics (rows: systems; columns: topics q1..q4)
AP = np.array([[0.50, 0.20, 0.90, 0.10],    # sysA
               [0.30, 0.40, 0.90, 0.00],    # sysB
               [0.10, 0.30, 0.60, 0.20]])   # sysC
SCORES = Scores(("sysA", "sysB", "sysC"), ("AP",), ("q1", "q2", "q3", "q4"), AP[None])


def test_precision_histogram_two_systems_by_hand() -> None:
    # A - B per topic: q1 +0.2, q2 -0.2, q3 0, q4 +0.1 -> sorted: q1, q4, q3, q2
    hist = precision_histogram(SCORES, "AP", "sysA", "sysB")
    assert list(hist["query_id"]) == ["q1", "q4", "q3", "q2"]
    assert np.allclose(hist["difference"], [0.2, 0.1, 0.0, -0.2])


def test_precision_histogram_against_mean_of_all_by_hand() -> None:
    # topic means: q1 0.3, q2 0.3, q3 0.8, q4 0.1; C - mean: -0.2, 0, -0.2, +0.1
    hist = precision_histogram(SCORES, "AP", "sysC")
    assert list(hist["query_id"]) == ["q4", "q2", "q1", "q3"]   # stable among ties
    assert np.allclose(hist["difference"], [0.1, 0.0, -0.2, -0.2])


def test_most_different_topics_by_hand() -> None:
    # spreads: q1 0.4, q2 0.2, q3 0.3, q4 0.2
    top = most_different(SCORES, "AP", 3)
    assert list(top["query_id"]) == ["q1", "q3", "q2"]
    assert np.allclose(top["spread"], [0.4, 0.3, 0.2])
    assert list(top["best"]) == ["sysA", "sysA, sysB", "sysB"]   # q3: A and B tie
    assert list(top["worst"]) == ["sysC", "sysC", "sysA"]
    assert np.allclose(top["sysB"], [0.3, 0.9, 0.4])


def test_heatmap_sorts_topics_by_mean() -> None:
    matrix, topics = heatmap(SCORES, "AP")
    assert topics == ["q4", "q1", "q2", "q3"]
    assert np.allclose(matrix[:, 0], [0.1, 0.0, 0.2])


def test_ordering_correlation_equals_scipy_kendalltau() -> None:
    rng = np.random.default_rng(3)
    values = rng.random((3, 6, 20))
    scores = Scores(tuple(f"s{i}" for i in range(6)), ("AP", "P@10", "nDCG@10"),
                    tuple(f"q{i}" for i in range(20)), values)
    tau = ordering_correlation(scores)
    means = values.mean(axis=2)
    for i, a in enumerate(scores.measures):
        for j, b in enumerate(scores.measures):
            expected = 1.0 if i == j else stats.kendalltau(means[i], means[j]).statistic
            assert tau.loc[a, b] == pytest.approx(expected)


def _rigged() -> Scores:
    # sysA beats sysB by 0.1 on every topic but one, sysC is sysB plus noise
    rng = np.random.default_rng(0)
    base = rng.random(30) * 0.5
    values = np.stack([base + 0.1 + rng.normal(0, 0.01, 30), base,
                       base + rng.normal(0, 0.01, 30)])
    return Scores(("sysA", "sysB", "sysC"), ("AP",), tuple(f"q{i}" for i in range(30)),
                  values[None])


def test_marks_all_pairs_and_baseline() -> None:
    cmp = compare_scores(_rigged(), test="t", correction="holm")
    assert cmp.wins("AP", "sysA") == (["sysB", "sysC"], [])
    assert cmp.wins("AP", "sysB") == ([], ["sysA"])
    md = cmp.table("markdown")
    assert "| (a) sysA | **" in md and "<sup>bc</sup>" in md
    cmp = compare_scores(_rigged(), baseline="sysB")
    md = cmp.table("markdown")
    a, b, c = (f"{x:.4f}" for x in cmp.means[0])
    assert f"| sysA | **{a}**<sup>▲</sup> |" in md     # C is not significantly better
    assert f"| sysB (baseline) | {b} |" in md and f"| sysC | {c} |" in md
    assert len(cmp.pairs) == 2 and {p.b for p in cmp.pairs} == {"sysB"}


def test_latex_is_booktabs_with_bold_best_and_marks() -> None:
    tex = compare_scores(_rigged(), baseline="sysB").table("latex")
    for token in (r"\toprule", r"\midrule", r"\bottomrule", r"\textbf{", r"$^{\uparrow}$",
                  "sysB (baseline)"):
        assert token in tex, token
    assert tex.count(r"\textbf{") == 1
    assert latex_escape("bm25_k1&b") == r"bm25\_k1\&b"


def test_json_and_csv_carry_every_number() -> None:
    import io

    import pandas as pd

    cmp = compare_scores(_rigged(), test="randomisation", samples=2000, ci=0.95)
    doc = json.loads(cmp.table("json"))
    assert doc["settings"]["samples"] == 2000 and len(doc["pairs"]) == 3
    assert doc["summary"][0]["mean"] == pytest.approx(cmp.means[0, 0])
    frame = pd.read_csv(io.StringIO(cmp.table("csv")))
    assert list(frame["system"]) == ["sysA", "sysB", "sysC"]
    assert (frame["ci_low"] < frame["mean"]).all() and (frame["mean"] < frame["ci_high"]).all()


def test_every_format_renders() -> None:
    cmp = compare_scores(_rigged(), ci=0.9, ci_method="bootstrap", samples=500)
    for fmt in FORMATS.values():
        text = fmt.render(cmp)
        assert "sysA" in text, fmt.name


def test_bad_arguments_are_clear() -> None:
    with pytest.raises(CompareError, match="no system named 'sysD'.*did you mean"):
        compare_scores(_rigged(), baseline="sysD")
    with pytest.raises(CompareError, match="measure 'P@10' is not in this comparison"):
        precision_histogram(_rigged(), "P@10", "sysA")
    with pytest.raises(ValueError, match="'alpha' parameter of compare must be"):
        compare_scores(_rigged(), alpha=1.5)
    with pytest.raises(CompareError, match="shape"):
        Scores(("a",), ("AP",), ("q1",), np.zeros((1, 2, 1)))


def test_system_names_from_files() -> None:
    assert system_names(["runs/a/bm25.txt", "runs/b/lm.txt"]) == ["bm25", "lm"]
    assert system_names(["x/run.txt", "y/run.txt"]) == ["x/run.txt", "y/run.txt"]


def test_cli_bad_input_is_one_line_error(tmp_path) -> None:  # noqa: ANN001
    from helpers import run_cli

    qrels = tmp_path / "qrels.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n")
    good = tmp_path / "good.txt"
    good.write_text("1 Q0 d1 1 2.0 g\n1 Q0 d2 2 1.0 g\n2 Q0 d1 1 1.0 g\n")
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d1 1 2.0 b\n1 Q0 d2 oops\n")
    code, _, err = run_cli(["compare", str(qrels), str(good), str(bad)])
    assert code == 1 and err.startswith(f"relkit: error: {bad}:2: expected")
    assert err.count("\n") == 1
    code, _, err = run_cli(["compare", "--test", "ttest2", str(qrels), str(good), str(good)])
    assert code == 2 and "unknown significance test 'ttest2'" in err  # a usage error
    code, _, err = run_cli(["compare", str(qrels), str(good)])
    assert code == 2 and "at least two RUN files" in err
    code, out, err = run_cli(["compare", "--format", "json", "-m", "P@1", str(qrels),
                              str(good), str(tmp_path / "good.txt")])
    assert code == 1 and "the same run file is given twice" in err


def test_the_html_report_shows_progress_until_its_file_is_written(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """compare --html: a bar from the end of the evaluation to the written file, each
    step named (the charts, matplotlib's import included, took seconds with nothing
    shown; then the tables and the write, seconds more after the bar)."""
    import relkit.metrics.compare.command as command  # the command's work (its bars)
    from helpers import ROOT, run_cli

    bars: list[tuple[str, int | None, list[tuple[int, str | None]]]] = []

    class Recorder:
        def __init__(self, label: str, total: int | None = None, unit: str = "") -> None:
            self.updates: list[tuple[int, str | None]] = []
            bars.append((label, total, self.updates))

        def __enter__(self) -> Recorder:
            return self

        def __exit__(self, *exc: object) -> None:
            pass

        def update(self, done: int, total: int | None = None,
                   label: str | None = None) -> None:
            self.updates.append((done, label))

    monkeypatch.setattr(command, "Bar", Recorder)
    sample = ROOT / "corpora" / "sample"
    out = tmp_path / "report.html"
    code, _, err = run_cli(["compare", "--html", str(out), str(sample / "qrels.txt"),
                            *(str(sample / "runs" / f"{r}.txt") for r in ("bm25", "ql"))])
    assert code == 0, err
    (label, total, updates), = [b for b in bars if "report" in b[0]]
    # the tables, 4 charts, the topics table, the write
    assert total == 7 and updates[-1] == (7, f"report written to {out}")
    dones = [d for d, _ in updates]
    assert dones == sorted(dones) and dones[0] == 0
    labels = " | ".join(str(x) for _, x in updates)
    for chart in ("precision-recall curves", "precision histograms",
                  "differences from the mean", "heat map", "topics table"):
        assert chart in labels, labels
    assert out.read_text().count("<figure") >= 4
