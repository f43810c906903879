"""``relkit clicks stats``: every number against a pandas/numpy computation on a generated log.

The log comes from bench/clicks_gen.py (seeded), small enough for pandas, with a few
rows removed and dwell values blanked so that groups differ in shape.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import ROOT, run_cli
from relkit.metrics.online.source import open_log
from relkit.metrics.online.stats import QUANTILES, stats

sys.path.insert(0, str(ROOT / "bench"))
from clicks_gen import generate  # noqa: E402


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, pd.DataFrame]:
    tmp = tmp_path_factory.mktemp("clicks")
    generate(full := tmp / "full.parquet", 20_000, seed=7, chunk_rows=6_000)
    frame = pd.read_parquet(full)
    rng = np.random.default_rng(1)
    frame = frame[rng.random(len(frame)) > 0.02].reset_index(drop=True)  # some gaps
    frame.loc[rng.random(len(frame)) < 0.1, "dwell_s"] = np.nan
    frame.to_parquet(path := tmp / "log.parquet", index=False)
    return path, frame


def _oracle(frame: pd.DataFrame) -> dict[str, object]:
    hit = frame.clicked > 0
    imp = frame.assign(hit=hit).groupby("impression_id").hit.any()
    dwell = frame.loc[hit & frame.dwell_s.notna(), "dwell_s"].to_numpy()
    by_rank = frame.assign(hit=hit).groupby("rank").hit.agg(["size", "sum", "mean"])
    return {
        "rows": len(frame), "impressions": frame.impression_id.nunique(),
        "sessions": frame.session_id.nunique(), "queries": frame.query_id.nunique(),
        "users": frame.user_id.nunique(), "clicks": int(frame.clicked.sum()),
        "abandonment": float((~imp).mean()),
        "dwell": {q: float(np.quantile(dwell, q)) for q in QUANTILES},
        "dwell_mean": float(dwell.mean()),
        "ctr": {int(r): (int(s["size"]), int(s["sum"])) for r, s in by_rank.iterrows()},
        "ctr_mean": by_rank["mean"].to_dict(),
    }


def test_stats_agree_with_pandas(log: tuple[Path, pd.DataFrame]) -> None:
    path, frame = log
    (got,) = stats(open_log(path))
    want = _oracle(frame)
    for name in ("rows", "impressions", "sessions", "queries", "users", "clicks"):
        assert getattr(got, name) == want[name], name
    assert got.abandonment == pytest.approx(want["abandonment"], rel=1e-12)
    assert got.dwell_mean == pytest.approx(want["dwell_mean"], rel=1e-12)
    assert got.dwell == pytest.approx(want["dwell"], rel=1e-12)
    assert got.ctr == want["ctr"]


def test_stats_by_variant_agree_with_pandas_per_group(log: tuple[Path, pd.DataFrame]
                                                      ) -> None:
    path, frame = log
    groups = stats(open_log(path), "variant")
    assert [g.group for g in groups] == ["control", "treatment"]
    for g in groups:
        want = _oracle(frame[frame.variant == g.group])
        assert (g.rows, g.impressions, g.users) == (want["rows"], want["impressions"],
                                                   want["users"])
        assert g.ctr == want["ctr"]
        assert g.abandonment == pytest.approx(want["abandonment"], rel=1e-12)


def test_cli_json_ctr_by_rank_and_plot(log: tuple[Path, pd.DataFrame], tmp_path: Path
                                       ) -> None:
    path, frame = log
    svg = tmp_path / "ctr.svg"
    code, out, err = run_cli(["clicks", "stats", str(path), "--by", "variant", "--format",
                              "json", "--plot", str(svg)])
    assert code == 0, err
    got = json.loads(out)
    assert set(got) == {"summary", "ctr_by_rank"}
    for row in got["ctr_by_rank"]:
        part = frame[(frame.variant == row["variant"]) & (frame["rank"] == row["rank"])]
        assert row["shown"] == len(part)
        assert row["ctr"] == pytest.approx(float((part.clicked > 0).mean()), rel=1e-12)
    assert svg.read_text().lstrip().startswith("<?xml") and "CTR" in svg.read_text()


@pytest.mark.parametrize("fmt", ["text", "tsv", "csv", "markdown"])
def test_cli_text_formats_show_both_tables(log: tuple[Path, pd.DataFrame], fmt: str) -> None:
    code, out, err = run_cli(["clicks", "stats", str(log[0]), "--format", fmt])
    assert code == 0, err
    assert out.count("rank") >= 1 and "abandonment" in out and "dwell_p50" in out


def test_cli_bad_format_and_bad_by(log: tuple[Path, pd.DataFrame]) -> None:
    code, _, err = run_cli(["clicks", "stats", str(log[0]), "--format", "xml"])
    assert code == 2 and err.count("\n") == 1 and "--format" in err
    code, _, err = run_cli(["clicks", "stats", str(log[0]), "--by", "page"])
    assert code == 1 and err.count("\n") == 1 and "'page' field to group by" in err
