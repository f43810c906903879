"""``Evaluator.aggregate``: every ``how`` does what it says; an unknown one raises."""

from __future__ import annotations

import math
import statistics

import pytest

from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import AGGREGATIONS, Evaluator

# Three topics; AP per topic by hand: q1 rel a,b ranked a(1) x(2) b(3) -> (1 + 2/3) / 2;
# q2 rel c ranked c(1) -> 1; q3 rel d, e ranked y(1) d(2) -> (1/2) / 2 (e never retrieved).
QRELS = "q1 0 a 1\nq1 0 b 1\nq2 0 c 1\nq3 0 d 1\nq3 0 e 1\n"
RUN = ("q1 Q0 a 1 3 r\nq1 Q0 x 2 2 r\nq1 Q0 b 3 1 r\n"
       "q2 Q0 c 1 3 r\n"
       "q3 Q0 y 1 3 r\nq3 Q0 d 2 2 r\n")
AP = [(1 + 2 / 3) / 2, 1.0, 0.25]


@pytest.fixture()
def ev() -> Evaluator:
    return Evaluator(Qrels.read(QRELS), ["AP"])


def test_each_aggregation_by_hand(ev: Evaluator) -> None:
    run = Run.read(RUN)
    assert ev.aggregate(run, "mean")["AP"] == pytest.approx(statistics.fmean(AP), abs=1e-12)
    assert ev.aggregate(run, "trec")["AP"] == pytest.approx(statistics.fmean(AP), abs=1e-12)
    assert ev.aggregate(run, "median")["AP"] == pytest.approx(statistics.median(AP), abs=1e-12)
    gmean = math.exp(statistics.fmean(math.log(x) for x in AP))
    assert ev.aggregate(run, "gmean")["AP"] == pytest.approx(gmean, abs=1e-12)
    # The median differs from the geometric mean here, so the old fall-through shows.
    assert statistics.median(AP) != pytest.approx(gmean, abs=1e-3)


@pytest.mark.parametrize("how", ["medain", "avg", "", "MEAN"])
def test_unknown_aggregation_raises_and_names_the_choices(ev: Evaluator, how: str) -> None:
    with pytest.raises(ValueError) as info:
        ev.aggregate(Run.read(RUN), how)  # type: ignore[arg-type]
    msg = str(info.value)
    assert repr(how) in msg and all(a in msg for a in AGGREGATIONS)
    if how == "medain":
        assert "did you mean 'median'?" in msg
