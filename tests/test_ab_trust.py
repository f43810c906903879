"""`relkit ab` defects of issue 32 ("trust parity"), each failing on the code before it.

Numbers are checked against an independent pandas aggregation, tea-tasting, scipy and
R's published values; messages against the one-line rule (docs/cli.md).
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ab_helpers import click_log, write
from helpers import oracle, run_cli

tt = oracle("tea_tasting", skip=True)


def four_users(tmp: Path, *, unique: bool) -> tuple[Path, Path]:
    """The tester's log: impressions numbered per user ("1", "2" for every user).

    ctr@1 per user: u1 1/2, u2 0/1 (control: 1/3); u3 1/2, u4 0/1 (treatment: 1/3).
    """
    rows = []
    spec = {"u1": ("control", [1, 0]), "u2": ("control", [0]),
            "u3": ("treatment", [0, 1]), "u4": ("treatment", [0])}
    for user, (arm, clicks) in spec.items():
        for k, c in enumerate(clicks, 1):
            for rank in (1, 2):
                rows.append({"impression_id": f"{user}-{k}" if unique else str(k),
                             "query_id": "q", "rank": rank, "doc_id": f"d{rank}",
                             "clicked": int(c == 1 and rank == 1), "user_id": user,
                             "variant": arm})
    log = write(pd.DataFrame(rows), tmp / "log.csv")
    assign = write(pd.DataFrame({"unit_id": list(spec),
                                 "variant": [a for a, _ in spec.values()]}), tmp / "a.csv")
    return log, assign


def test_impression_ids_numbered_per_user_stop_the_analysis(tmp_path: Path) -> None:
    # Grouped by impression_id alone, u1..u4's impressions merged: control 0.5,
    # treatment blank, exit 0.
    log, assign = four_users(tmp_path, unique=False)
    code, out, err = run_cli(f"ab analyze {log} --assign {assign} -m ctr@1")
    assert code == 1 and out == ""
    assert err.count("\n") == 1, err
    assert f"{log}: impression_id '1' is used by users 'u1' and 'u2'" in err
    # the same log with ids unique per page view gives the truth
    log, assign = four_users(tmp_path, unique=True)
    code, out, err = run_cli(f"ab analyze {log} --assign {assign} -m ctr@1 --format json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["control"] == pytest.approx(1 / 3) and row["treatment"] == pytest.approx(1 / 3)


def test_reused_ids_in_the_pre_period_log_are_named(tmp_path: Path) -> None:
    good, assign = four_users(tmp_path / "..", unique=True)
    pre, _ = four_users(tmp_path, unique=False)
    code, _, err = run_cli(f"ab analyze {good} --assign {assign} -m ctr@1 --cuped {pre}")
    assert code == 1 and err.count("\n") == 1, err
    assert f"{pre}: impression_id '1'" in err


def _ttfc_user_sums(log: pd.DataFrame, assign: pd.DataFrame) -> pd.DataFrame:
    """Per-user sum of the times to first click over clicked impressions, and their
    count, by pandas (independent of the SQL)."""
    clicked = log[(log.clicked > 0) & log.click_ts.notna()]
    first = (clicked.assign(t=clicked.click_ts - clicked.ts)
             .groupby(["user_id", "impression_id"]).t.min().reset_index())
    per = first.groupby("user_id").agg(x=("t", "sum"), y=("t", "size"))
    out = assign.set_index("unit_id").join(per).fillna(0.0)
    return out.reset_index()


def test_time_to_first_click_row_is_one_method(tmp_path: Path) -> None:
    # The row showed the delta method's interval beside a Mann-Whitney p: an interval
    # excluding 0 next to p = 0.21. Now both are the delta method's (tea-tasting).
    log, assign = click_log(600, 3, effect=0.05)
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    code, out, err = run_cli(f"ab analyze {lp} --assign {ap} -m time_to_first_click "
                             "--format json")
    assert code == 0, err
    (row,) = json.loads(out)
    assert row["test"] == "Welch t, delta method"
    users = _ttfc_user_sums(log, assign)
    users["variant"] = (users.variant == "treatment").astype(int)
    ref = tt.Experiment(m=tt.RatioOfMeans("x", "y")).analyze(users)["m"]
    for ours, theirs in [(row["control"], ref.control), (row["treatment"], ref.treatment),
                         (row["delta_low"], ref.effect_size_ci_lower),
                         (row["delta_high"], ref.effect_size_ci_upper), (row["p"], ref.pvalue)]:
        assert ours == pytest.approx(theirs, rel=1e-9, abs=1e-12)
    # one story: significant at 5% exactly when the 95% interval excludes 0
    assert (row["p"] < 0.05) == (row["delta_low"] > 0 or row["delta_high"] < 0)


def test_srm_prints_small_p_values_with_significant_digits(tmp_path: Path) -> None:
    from scipy import stats

    # 10,345 vs 9,655 on 50/50: chi2 = 690^2 / 20,000 = 23.8, p = 1.07e-06
    assign = tmp_path / "a.csv"
    assign.write_text("unit_id,variant\n" + "".join(
        f"u{i},{'control' if i < 10345 else 'treatment'}\n" for i in range(20000)),
        encoding="utf-8")
    code, out, err = run_cli(f"ab srm {assign} --expected control=50,treatment=50")
    assert code == 1
    p = stats.chi2.sf(690 ** 2 / 20000, 1)
    cells = [line.split("\t") for line in out.splitlines()]
    assert cells[0][-1] == "p" and {c[-1] for c in cells[1:]} == {f"{p:.3g}"} == {"1.07e-06"}


def test_power_shows_the_exact_n_beside_the_rounded_one() -> None:
    # R: power.t.test(power = .90, delta = 1)$n = 22.02110 -> 23 per arm
    code, out, err = run_cli("ab power -m sessions_per_user --baseline 3 --mde 1 --sd 1 "
                             "--power 0.9")
    assert code == 0, err
    head, row = (line.split("\t") for line in out.splitlines())
    got = dict(zip(head, row, strict=True))
    assert float(got["n_exact"]) == pytest.approx(22.0211, abs=1e-4)
    assert got["n_per_arm"] == "23" and got["n_total"] == "46"


@pytest.mark.parametrize(("call", "param"), [
    ("n_t(1.0, 0.5)", "power"),      # returned a search bound (~1e9) as n
    ("n_t(0.0, 0.5)", "power"),
    ("n_t(0.8, 0.5, 1.0, 0.0)", "alpha"),
    ("n_prop(1.0, 0.4, 0.5)", "power"),
    ("mde_t(20, 1.2)", "power"),
    ("power_t(20, 1.0, 0.0)", "sd"),
    ("n_t(1.5, 0.5)", "power"),      # searched for ever
    ("n_prop(1.5, 0.4, 0.5)", "power"),
])
def test_power_functions_refuse_out_of_range_parameters(call: str, param: str) -> None:
    from relkit.metrics.online.ab import power
    from relkit.metrics.online.ab.errors import ParameterError

    with pytest.raises(ParameterError) as info:
        eval(call, vars(power))  # noqa: S307 - the calls above, not input
    assert info.value.param == param and param in str(info.value)


@pytest.mark.parametrize(("args", "option"), [
    ("--power 1.5 --sd 1", "--power"),
    ("--power 1.0 --sd 1", "--power"),
    ("--power 0 --sd 1", "--power"),
    ("--alpha 0 --sd 1", "--alpha"),
    ("--alpha 1e-300 --sd 1", "--alpha"),
    ("--sd 0", "--sd"),
])
def test_power_command_out_of_range_is_a_usage_error(args: str, option: str) -> None:
    code, out, err = run_cli(f"ab power -m sessions_per_user --baseline 3 --mde 1 {args}")
    assert code == 2 and out == ""
    # The declared range (metrics/commands/numopt.py) refuses most before the library's own
    # check (alpha below 1e-12: scipy's noncentral t never ends) does.
    assert err.count("\n") == 1, err
    assert f"Invalid value for {option}:" in err or f"Invalid value for '{option}':" in err, err


def test_monitor_without_ts_names_the_file(tmp_path: Path) -> None:
    log, assign = click_log(60, 1, queries=2)
    lp = write(log.drop(columns=["ts", "click_ts"]), tmp_path / "log.parquet")
    ap = write(assign, tmp_path / "a.csv")
    code, out, err = run_cli(f"ab monitor {lp} --assign {ap}")
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert f"{lp}: the log has no ts column" in err


def test_monitor_alpha_out_of_range_is_a_usage_error(tmp_path: Path) -> None:
    log, assign = click_log(60, 1, queries=2)
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    code, _, err = run_cli(f"ab monitor {lp} --assign {ap} --alpha 1.5")
    assert code == 2 and err.count("\n") == 1 and "--alpha" in err, err


def test_a_one_user_arm_says_why_its_rows_are_blank(tmp_path: Path) -> None:
    log, assign = click_log(40, 2, queries=2)
    assign.loc[assign["unit_id"] == "u00003", "variant"] = "solo"
    log.loc[log["user_id"] == "u00003", "variant"] = "solo"
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    code, out, err = run_cli(f"ab analyze {lp} --assign {ap} -m ctr@1 --ignore-srm "
                             "--format json")
    assert code == 0, err
    rows = {r["arm"]: r for r in json.loads(out)}
    assert rows["solo"]["p"] is None
    assert rows["solo"]["flag"] == "arm 'solo' has 1 user: need at least 2"
    assert rows["treatment"]["flag"] == ""
    assert "WARNING: 1 row(s) have no p-value" in err and "'solo' has 1 user" in err


def test_nothing_testable_is_an_error_not_a_row_of_blanks(tmp_path: Path) -> None:
    log, assign = click_log(40, 2, queries=2)
    keep = ["u00000", "u00001"]
    assign = assign[assign.unit_id.isin(keep)].assign(variant=["control", "treatment"])
    log = log[log.user_id.isin(keep)].copy()
    log["variant"] = np.where(log.user_id == "u00000", "control", "treatment")
    lp, ap = write(log, tmp_path / "log.parquet"), write(assign, tmp_path / "a.csv")
    code, out, err = run_cli(f"ab analyze {lp} --assign {ap} -m ctr@1")
    assert code == 1 and out == "" and err.count("\n") == 1, err
    assert f"{lp}: no metric can be tested: arm 'control' has 1 user: need at least 2" in err


def test_a_row_without_a_user_is_named_by_its_line(tmp_path: Path) -> None:
    # It came out as "user None is in the log but not in the assignment table".
    log, assign = four_users(tmp_path, unique=True)
    lines = log.read_text().splitlines()
    lines[3] = lines[3].replace(",u1,", ",,")
    log.write_text("\n".join(lines) + "\n")
    code, _, err = run_cli(f"ab analyze {log} --assign {assign} -m ctr@1")
    assert code == 1 and err.count("\n") == 1, err
    assert f"{log}:4: expected a user in column 'user_id'; found no value" in err


@pytest.mark.parametrize("line", ['["u9", "control"]', '"u9"', "null"])
def test_a_jsonl_assignment_line_that_is_not_an_object_is_named(tmp_path: Path,
                                                                line: str) -> None:
    log, _ = four_users(tmp_path, unique=True)
    assign = tmp_path / "a.jsonl"
    assign.write_text('{"unit_id": "u1", "variant": "control"}\n' + line + "\n",
                      encoding="utf-8")
    code, _, err = run_cli(f"ab srm {assign} --expected control=1,treatment=1")
    assert code == 1 and err.count("\n") == 1, err
    assert f"{assign}:2: expected a JSON object" in err


def test_interleave_make_refuses_a_suffix_it_cannot_write(tmp_path: Path) -> None:
    runs = []
    for name in ("a", "b"):
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"q1 Q0 d{i} {i} {10 - i} {name}\n" for i in range(1, 4)))
        runs.append(str(run))
    out = tmp_path / "lists.xlsx"
    code, _, err = run_cli(["interleave", "make", *runs, "-o", str(out)])
    assert code == 2 and err.count("\n") == 1 and "-o" in err and ".xlsx" in err, err
    assert not out.exists()
    code, _, err = run_cli(["interleave", "make", *runs, "-o", str(tmp_path / "l.jsonl")])
    assert code == 0, err
    first = json.loads((tmp_path / "l.jsonl").read_text().splitlines()[0])
    assert set(first) >= {"query_id", "rank", "doc_id", "team"}
