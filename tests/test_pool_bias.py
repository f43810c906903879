"""Pool-bias estimation for reuse (Webber & Park, SIGIR 2009) in `pool-reuse`."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.metrics.data import Qrels, Run
from relkit.pooling.reuse import Reuse, leave_out, pool_bias

X = "1 Q0 d1 1 3 x\n1 Q0 d2 2 2 x\n"
Y = "1 Q0 d1 1 3 y\n1 Q0 d3 2 2 y\n1 Q0 d4 3 1 y\n"
QRELS = "1 0 d1 1\n1 0 d2 1\n1 0 d3 1\n1 0 d4 0\n"


def test_pool_bias_hand_worked() -> None:
    # The leave-one-out example of tests/test_pooling_diagnostics.py: x AP 2/3 -> 1/2
    # without its unique d2; y AP 2/3 -> 1/2 without d3, d4. Drops 1/6 and 1/6:
    # adjustment 1/6, sd 0.
    q = Qrels.from_dict({"1": {"d1": 1, "d2": 1, "d3": 1, "d4": 0}})
    bias = pool_bias(leave_out(q, {"x": Run.read(X), "y": Run.read(Y)}, depth=10))
    assert bias.adjustment == pytest.approx(1 / 6) and bias.stdev == pytest.approx(0.0)
    assert bias.runs == 2 and bias.adjust(0.25) == pytest.approx(0.25 + 1 / 6)
    with pytest.raises(ValueError, match="no leave-one-out rows"):
        pool_bias([])


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.tuples(st.floats(0, 1), st.floats(0, 1)), min_size=1, max_size=8))
def test_pool_bias_is_the_mean_drop(pairs: list[tuple[float, float]]) -> None:
    rows = [Reuse(f"r{i}", f"r{i}", 0, 0, full, left, 1, 1, None)
            for i, (full, left) in enumerate(pairs)]
    b = pool_bias(rows)
    drops = [f - left for f, left in pairs]
    assert min(drops) - 1e-12 <= b.adjustment <= max(drops) + 1e-12
    assert b.adjustment == pytest.approx(sum(drops) / len(drops))
    assert b.stdev >= 0


def test_pool_reuse_says_the_bias(tmp_path: Path) -> None:
    for name, text in (("x", X), ("y", Y), ("qrels", QRELS)):
        (tmp_path / f"{name}.txt").write_text(text)
    code, out, err = run_cli(["pool-reuse", str(tmp_path / "qrels.txt"),
                              str(tmp_path / "x.txt"), str(tmp_path / "y.txt"), "--depth", "10"])
    assert code == 0, err
    assert "estimated pool bias against a new system (Webber & Park 2009): map +0.1667 " \
           "(mean leave-out drop over 2 runs, sd 0.0000)" in err


def test_pool_reuse_puts_the_bias_in_the_data(tmp_path: Path) -> None:
    """Tester: the estimates went to stderr only, missing from the data and from JSON."""
    import json

    for name, text in (("x", X), ("y", Y), ("qrels", QRELS)):
        (tmp_path / f"{name}.txt").write_text(text)
    code, out, err = run_cli(["pool-reuse", str(tmp_path / "qrels.txt"),
                              str(tmp_path / "x.txt"), str(tmp_path / "y.txt"), "--depth",
                              "10", "--format", "json"])
    assert code == 0, err
    rows = json.loads(out)
    assert len(rows) == 2
    for r in rows:
        assert r["pool_bias"] == pytest.approx(0.16666, abs=1e-4) and r["pool_bias_sd"] == 0
        assert r["pool_bias"] == pytest.approx(sum(x["drop"] for x in rows) / 2)
        assert 0 <= r["p10_unjudged_share"] <= 1
