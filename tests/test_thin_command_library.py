"""The library functions that thinned command bodies (issue 34, "Thin commands"): their
decisions, without the CLI.

Each command's output is held by its own tests and the CLI battery; these check the
decisions the work made when it moved out of the command: which option a usage error
names, which options go together, how a default name is chosen, what exit status a
run ends with.
"""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace

import pytest

from relkit.metrics.core.errors import FormatError
from relkit.metrics.core.options import OptionError


def _option(exc: pytest.ExceptionInfo[OptionError]) -> str | None:
    return exc.value.option

# -- relkit assign ------------------------------------------------------------------------

def test_assign_checks_name_the_option_at_fault() -> None:
    from relkit.judging.staffing import Staffing, check

    with pytest.raises(OptionError) as e:
        check(Staffing(assessors=["ann"], order="alphabetical"))
    assert _option(e) == "--order" and "'alphabetical'" in e.value.message
    with pytest.raises(OptionError) as e:
        check(Staffing())
    assert _option(e) == "ASSESSORS"
    with pytest.raises(OptionError) as e:
        check(Staffing(assessors=["ann", "bob"], leads=["bob", "ann"]))
    assert _option(e) == "--lead" and e.value.message.startswith("ann, bob: both")
    check(Staffing(leads=["lee"]))  # a lead alone is enough


def test_gold_pairs_are_read_once_each(tmp_path: Path) -> None:
    from relkit.judging.staffing import read_gold

    good = tmp_path / "gold.qrels"
    good.write_text("1 0 d1 2\n1 0 d2 0\n2 0 d1 1\n")
    assert read_gold(good) == {("1", "d1"): 2, ("1", "d2"): 0, ("2", "d1"): 1}
    twice = tmp_path / "twice.qrels"
    twice.write_text("1 0 d1 2\n1 0 d1 1\n")
    with pytest.raises(FormatError, match=r"twice.qrels:2: expected each gold pair once"):
        read_gold(twice)
    empty = tmp_path / "empty.qrels"
    empty.write_text("# nothing\n")
    with pytest.raises(FormatError, match="found none"):
        read_gold(empty)


def test_assign_says_adaptive_pools_give_a_quota() -> None:
    from relkit.judging.staffing import summary_line

    def summary(adaptive: bool, n: int) -> SimpleNamespace:
        return SimpleNamespace(assessors=n, assignments=4, items=10, overlap_pairs=2,
                               gold_items=1, adaptive=adaptive)

    assert summary_line(summary(False, 1)) == (
        "relkit: 4 assignments, 10 items for 1 assessor (2 pairs judged twice, 1 gold items)")
    assert "a quota of 10 judgments for 2 assessors (adaptive pool" in summary_line(
        summary(True, 2))


# -- relkit pool --------------------------------------------------------------------------

def test_from_is_cals_parameter_only() -> None:
    from relkit.judging.poolruns import cal_from

    params: dict[str, str] = {}
    cal_from("cal", "collection", params)
    assert params == {"from": "collection"}
    with pytest.raises(OptionError) as e:
        cal_from("bandit", "runs", {})
    assert _option(e) == "--from" and "cal strategy" in e.value.message
    with pytest.raises(OptionError, match="expected runs or collection; got 'docs'"):
        cal_from("cal", "docs", {})


def test_a_default_pool_name_is_not_taken() -> None:
    from relkit.judging.poolruns import free_name

    store = SimpleNamespace(pool_names=lambda: ["depth-10", "depth-10-2", "bandit-50-10"])
    assert free_name(store, "depth-10") == "depth-10-3"  # type: ignore[arg-type]
    assert free_name(store, "depth-20") == "depth-20"  # type: ignore[arg-type]


def test_a_pool_request_is_checked_before_any_run_is_read(tmp_path: Path) -> None:
    from relkit.judging.poolruns import PoolRequest, pool_runs

    def never() -> None:
        raise AssertionError("the store was opened")

    missing = [tmp_path / "no-such.run"]   # never read: the options fail first
    cases = [(PoolRequest(runs=missing, strategy="dpeth"), "--strategy"),
             (PoolRequest(runs=missing, docs=tmp_path / "d.jsonl"), "--docs"),
             (PoolRequest(runs=missing, budget_of=["1=5"], total=10), "--budget-of"),
             (PoolRequest(runs=missing, source_from="runs"), "--from")]
    for request, option in cases:
        with pytest.raises(OptionError) as e:
            pool_runs(request, never, print, None)  # type: ignore[arg-type]
        assert _option(e) == option, request

# -- relkit judges-run --------------------------------------------------------------------





# -- relkit interleave simulate -----------------------------------------------------------



# -- relkit import judgments, status ------------------------------------------------------



# -- relkit systems run, team init --------------------------------------------------------
