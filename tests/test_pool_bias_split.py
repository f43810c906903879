"""The anti-precision split of pool bias in P@n (relkit.pooling.bias).

Oracles: relkit's trec_eval-exact P@10 for the precision part; hand computation
for the estimator; and the published direction on Cranfield's real runs.
"""

from __future__ import annotations

import pytest

from helpers import SHARED
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator
from relkit.pooling.bias import Parts, anti_precision_split, leave_out_parts
from relkit.pooling.depth import depth_pool, run_name
from relkit.pooling.errors import PoolingError
from relkit.pooling.simulate import grades_of

CRAN = SHARED / "corpora" / "cranfield"


def test_hand_worked() -> None:
    # Two runs, one topic, depth-2 pool, P@3. Run a: x y z; run b: y w v.
    # Pool {x, y, w}; qrels: x 1, y 0, w 1 (z, v never judged).
    runs = {"a": Run.from_dict({"1": {"x": 3.0, "y": 2.0, "z": 1.0}}),
            "b": Run.from_dict({"1": {"y": 3.0, "w": 2.0, "v": 1.0}})}
    qrels = Qrels.from_dict({"1": {"x": 1, "y": 0, "w": 1}})
    rows = leave_out_parts(qrels, runs, depth=2, cutoff=3)
    third = 1 / 3
    # a full: x rel, y non-rel, z unjudged; a left out (x, its own, unjudged):
    assert rows["a"] == (Parts(third, third, third), Parts(0.0, third, 2 * third))
    # b full: y non-rel, w rel, v unjudged; b left out (w unjudged):
    assert rows["b"] == (Parts(third, third, third), Parts(0.0, third, 2 * third))
    s = anti_precision_split(rows)
    # Both lost 1/3 precision and no anti-precision: every unjudged one was relevant.
    assert s.share == 1.0 and s.runs == 2
    assert s.adjust(rows["a"][1]) == pytest.approx(2 * third)
    mixed = anti_precision_split({"a": (Parts(0.5, 0.3, 0.2), Parts(0.4, 0.1, 0.5))})
    # lost 0.1 relevant and 0.2 non-relevant: a third of the unjudged is relevant
    assert mixed.share == pytest.approx(third)
    assert mixed.adjust(Parts(0.2, 0.2, 0.6)) == pytest.approx(0.4)
    assert anti_precision_split({"a": (Parts(0.5, 0.5, 0), Parts(0.5, 0.5, 0))}).share == 0
    with pytest.raises(PoolingError):
        anti_precision_split({})
    with pytest.raises(PoolingError, match="'cutoff' parameter"):
        leave_out_parts(qrels, runs, depth=2, cutoff=0)


def _cranfield(depth: int) -> tuple[dict[str, Run], Qrels]:
    """Cranfield's real runs and the qrels their depth-k pool would have had: each
    pooled document judged (cranqrel's grade if relevant, else 0)."""
    runs = {run_name(p): Run.read(p) for p in sorted(CRAN.glob("runs/*/*.txt"))}
    g = grades_of(Qrels.read(CRAN / "cranqrel"))
    judged: dict[str, dict[str, int]] = {}
    for e in depth_pool(runs, depth):
        judged.setdefault(e.topic, {})[e.doc] = max(g.get(e.topic, {}).get(e.doc, 0), 0)
    return runs, Qrels.from_dict(judged)


@pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")
def test_precision_part_is_trec_eval_p10() -> None:
    runs, qrels = _cranfield(10)
    rows = leave_out_parts(qrels, runs, depth=10, cutoff=10)
    ev = Evaluator(qrels, ["P_10"])
    for name, run in runs.items():
        assert rows[name][0].precision == pytest.approx(float(ev.aggregate(run).iloc[0]),
                                                        abs=1e-12)


@pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")
def test_cranfield_leave_one_run_out_corrected_p10_is_closer() -> None:
    """The published direction: each left-out run's P@10 corrected with the split
    estimated from the *other* runs is closer to its full-pool P@10 than the
    uncorrected one, on average (depth-10 pool, 6 runs)."""
    runs, qrels = _cranfield(10)
    rows = leave_out_parts(qrels, runs, depth=10, cutoff=10)
    raw = fixed = 0.0
    for name, (full, out) in rows.items():
        split = anti_precision_split({k: v for k, v in rows.items() if k != name})
        raw += abs(out.precision - full.precision)
        fixed += abs(split.adjust(out) - full.precision)
    assert raw > 0                       # the pool is biased against left-out runs
    assert fixed < raw                   # measured: 0.00240 vs 0.00274 (mean abs error)
