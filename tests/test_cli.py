"""The relkit CLI: output channels, exit codes, one-line errors, formats."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import ROOT, run_cli

SAMPLE = ROOT / "corpora" / "sample"
QRELS = str(SAMPLE / "qrels.txt")
RUNS = [str(p) for p in sorted((SAMPLE / "runs").glob("*.txt"))]


def test_eval_several_runs_trec_format() -> None:
    code, out, err = run_cli(["eval", "-m", "runid", "-m", "map", "-m", "nDCG@10", QRELS, *RUNS])
    assert code == 0 and err == ""
    runids = [ln.split("\t")[2] for ln in out.splitlines() if ln.startswith("runid")]
    assert runids == ["bm25", "ql", "random", "tfidf"]


def test_formats(tmp_path: Path) -> None:
    code, out, _ = run_cli(["eval", "--format", "json", "-q", "-m", "P@5", QRELS, RUNS[0]])
    rows = json.loads(out)
    assert code == 0 and {r["query_id"] for r in rows} >= {"101", "all"}
    assert all(r["measure"] == "P@5" and r["trec_name"] == "P_5" for r in rows)
    code, out, _ = run_cli(["eval", "--format", "csv", "-m", "AP", QRELS, RUNS[0]])
    assert out.splitlines()[0] == "run_id,query_id,measure,trec_name,value"
    target = tmp_path / "x.parquet"
    code, _, _ = run_cli(["eval", "--format", "parquet", "-o", str(target), QRELS, RUNS[0]])
    import pandas as pd

    assert code == 0 and len(pd.read_parquet(target)) > 0


def test_tidy_parquet_keeps_numbers_numeric(tmp_path: Path) -> None:
    # The default measures include runid (text) and relstring is text too: numbers must
    # still be a float column, the run id is the run_id column (no "runid" rows), and a
    # text-valued measure keeps its text in its own column.
    import pandas as pd

    target = tmp_path / "x.parquet"
    code, _, err = run_cli(["eval", "-q", "--format", "parquet", "-o", str(target),
                            QRELS, RUNS[0]])
    df = pd.read_parquet(target)
    assert code == 0, err
    assert df["value"].dtype == "float64" and "runid" not in set(df["trec_name"])
    assert "text" not in df.columns and set(df["run_id"]) == {"bm25"}
    code, _, err = run_cli(["eval", "-q", "-m", "relstring.5", "-m", "map", "--format",
                            "parquet", "-o", str(target), QRELS, RUNS[0]])
    df = pd.read_parquet(target)
    rel = df[df["trec_name"] == "relstring_5"]
    assert code == 0 and df["value"].dtype == "float64", err
    assert rel["value"].isna().all() and rel["text"].notna().all() and len(rel) > 0
    assert df.loc[df["trec_name"] == "map", "text"].isna().all()


def test_bad_input_is_one_line_with_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "bad.run"
    bad.write_text("101 Q0 S0001 1 1.0 x\n101 Q0 S0002 2\n")
    code, out, err = run_cli(["eval", QRELS, str(bad)])
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and f"{bad}:2: expected 6" in err


def test_unknown_measure_suggests() -> None:
    code, _, err = run_cli(["eval", "-m", "ndcg_cutt.10", QRELS, RUNS[0]])
    # A value -m cannot take: a usage error (issue 15), still with the suggestion.
    assert code == 2 and "did you mean 'ndcg_cut'?" in err


def test_usage_error_exit_2() -> None:
    code, _, err = run_cli(["eval", "--compat", "8", QRELS, RUNS[0]])
    assert code == 2 and "--compat" in err


def test_list_measures_from_registry() -> None:
    code, out, _ = run_cli(["eval", "--list-measures"])
    from relkit.metrics.measures.base import REGISTRY

    assert code == 0
    for name in REGISTRY:
        assert name in out


def test_version() -> None:
    code, out, _ = run_cli(["--version"])
    assert code == 0 and out.startswith("relkit ")


def test_run_from_stdin(monkeypatch) -> None:  # noqa: ANN001
    import io
    import sys

    text = (SAMPLE / "runs" / "bm25.txt").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text)))
    code, out, _ = run_cli(["eval", "-m", "AP", QRELS, "-"])
    code2, out2, _ = run_cli(["eval", "-m", "AP", QRELS, RUNS[0]])
    assert code == code2 == 0 and out == out2
