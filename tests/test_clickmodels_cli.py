"""`relkit clicks fit | labels | simulate`: end to end, into the judging store."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from store_helpers import make_project


def _runs(tmp_path: Path) -> tuple[Path, Path, Path]:
    """Two runs over the project's topics (1: d00-d07, 007: d04-d11) and qrels."""
    a, b, q = tmp_path / "a.run", tmp_path / "b.run", tmp_path / "q.qrels"
    docs = {"1": [f"d{i:02d}" for i in range(8)], "007": [f"d{i:02d}" for i in range(4, 12)]}
    a.write_text("".join(f"{t} Q0 {d} {r} {10 - r} a\n" for t, ds in docs.items()
                         for r, d in enumerate(ds, 1)))
    b.write_text("".join(f"{t} Q0 {d} {r} {10 - r} b\n" for t, ds in docs.items()
                         for r, d in enumerate(reversed(ds), 1)))
    q.write_text("".join(f"{t} 0 {d} {i % 4}\n" for t, ds in docs.items()
                         for i, d in enumerate(ds)))
    return a, b, q


def test_simulate_fit_labels_import(tmp_path: Path) -> None:
    a, b, q = _runs(tmp_path)
    log, model, out = tmp_path / "sim.parquet", tmp_path / "m.json", tmp_path / "c.qrels"
    code, _, err = run_cli(["clicks", "simulate", "--preset", "navigational", "--qrels",
                            str(q), "--runs", str(a), "--runs", str(b), "--sessions", "4000",
                            "--depth", "8", "--seed", "3", "-o", str(log)])
    assert code == 0, err
    code, _, err = run_cli(["clicks", "validate", str(log)])
    assert code == 0, err
    code, out_text, err = run_cli(["clicks", "fit", str(log), "--model", "sdbn", "--holdout",
                                   "0.2", "-o", str(model)])
    assert code == 0, err
    assert "perplexity" in out_text and "\n8\t" in out_text
    doc = json.loads(model.read_text())
    assert doc["relkit_click_model"] == 1 and doc["model"] == "sdbn"
    assert set(doc["pairs"]["query_id"]) == {"1", "007"}   # ids stay strings
    code, _, err = run_cli(["clicks", "labels", str(model), "--grades", "0-3",
                            "--min-impressions", "20", "-o", str(out)])
    assert code == 0, err
    side = json.loads(Path(str(out) + ".provenance.json").read_text())
    assert side["model"] == "sdbn" and len(side["cut_points"]) == 3
    lines = out.read_text().splitlines()
    assert len(lines) == 16 and {ln.split()[3] for ln in lines} <= {"0", "1", "2", "3"}
    # grades follow the preset's click probabilities: the best documents score highest
    grade = {(ln.split()[0], ln.split()[2]): int(ln.split()[3]) for ln in lines}
    assert grade[("1", "d03")] >= grade[("1", "d00")]
    db = str(tmp_path / "p.db")
    make_project(db)
    code, _, err = run_cli(["import", "judgments", str(out), "--db", db, "--assessor",
                            "clicks", "--kind", "automatic"])
    assert code == 0, err
    from relkit.judging.store.assign import Store

    assert Store.open(db, readonly=True).kinds()["clicks"] == "automatic"


def test_simulate_from_a_fitted_model(tmp_path: Path) -> None:
    a, b, q = _runs(tmp_path)
    log, model = tmp_path / "sim.parquet", tmp_path / "m.json"
    assert run_cli(["clicks", "simulate", "--preset", "informational", "--qrels", str(q),
                    "--runs", str(a), "--sessions", "500", "-o", str(log)])[0] == 0
    for name in ("pbm", "ubm", "dbn", "dcm", "ccm", "dctr"):
        code, _, err = run_cli(["clicks", "fit", str(log), "--model", name, "--iterations",
                                "5", "-o", str(model)])
        assert code == 0, err
        again = tmp_path / f"again-{name}.parquet"
        code, _, err = run_cli(["clicks", "simulate", "--model", str(model), "--runs", str(b),
                                "--sessions", "300", "-o", str(again)])
        assert code == 0, err
        assert run_cli(["clicks", "validate", str(again)])[0] == 0


@pytest.mark.parametrize(("args", "needle"), [
    (["fit", "LOG", "--model", "nope", "-o", "m.json"], "--model"),
    (["labels", "MODEL", "--grades", "1-3", "-o", "x.qrels"], "--grades"),
    (["labels", "MODEL", "--thresholds", "0.5,0.1,0.7", "-o", "x.qrels"], "--thresholds"),
    (["labels", "BAD", "-o", "x.qrels"], "bad.json"),
    (["simulate", "--runs", "RUN", "-o", "s.parquet"], "--model"),
    (["simulate", "--preset", "lazy", "--qrels", "Q", "--runs", "RUN", "-o", "s.parquet"],
     "--preset"),
])
def test_bad_input_is_one_line(tmp_path: Path, args: list[str], needle: str) -> None:
    a, _, q = _runs(tmp_path)
    log, model = tmp_path / "sim.parquet", tmp_path / "m.json"
    assert run_cli(["clicks", "simulate", "--preset", "perfect", "--qrels", str(q), "--runs",
                    str(a), "--sessions", "200", "-o", str(log)])[0] == 0
    assert run_cli(["clicks", "fit", str(log), "-o", str(model)])[0] == 0
    bad = tmp_path / "bad.json"
    bad.write_text('{"model": "pbm"}')
    subs = {"LOG": str(log), "MODEL": str(model), "BAD": str(bad), "RUN": str(a), "Q": str(q)}
    argv = [subs.get(x, x) for x in args]
    argv = [str(tmp_path / x) if x.endswith((".json", ".qrels", ".parquet")) and "/" not in x
            else x for x in argv]
    code, out, err = run_cli(["clicks", *argv])
    assert code != 0
    assert needle in err and "Traceback" not in err and len(err.strip().splitlines()) == 1, err


def test_fit_reads_a_csv_log_and_names_a_duplicate_rank(tmp_path: Path) -> None:
    log = tmp_path / "log.csv"
    log.write_text("impression_id,query_id,rank,doc_id,clicked\n"
                   "i1,007,1,d1,1\ni1,007,2,d2,0\ni2,007,1,d2,1\ni2,007,2,d1,0\n")
    model = tmp_path / "m.json"
    code, _, err = run_cli(["clicks", "fit", str(log), "--model", "dctr", "-o", str(model)])
    assert code == 0, err
    doc = json.loads(model.read_text())
    assert doc["pairs"]["query_id"] == ["007", "007"]
    assert doc["params"]["alpha"] == [0.5, 0.5]
    log.write_text(log.read_text() + "i2,007,2,d3,0\n")
    code, _, err = run_cli(["clicks", "fit", str(log), "-o", str(model)])
    assert code != 0 and f"{log}:6" in err and len(err.strip().splitlines()) == 1, err
