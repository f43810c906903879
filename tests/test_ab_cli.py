"""`relkit ab srm|analyze|power|monitor` end to end on seeded synthetic click logs."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from ab_helpers import click_log, write
from helpers import run_cli
from relkit.metrics.online.ab.effect import Arm, ratio_effect

ALL = ["ctr@1", "first_page_ctr", "abandonment", "good_click_rate", "time_to_first_click",
       "sessions_per_user"]


@pytest.fixture(scope="module")
def data(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path, pd.DataFrame,
                                                             pd.DataFrame]:
    d = tmp_path_factory.mktemp("ab")
    log, assign = click_log(600, 3, effect=0.05)
    return (write(log, d / "log.parquet"), write(assign, d / "assign.csv"), log, assign)


def analyze_json(args: str) -> list[dict[str, object]]:
    code, out, err = run_cli(f"ab analyze {args} --format json")
    assert code == 0, err
    rows: list[dict[str, object]] = json.loads(out)
    return rows


def pandas_user_sums(log: pd.DataFrame, assign: pd.DataFrame) -> pd.DataFrame:
    """The per-user sums of ctr@1 and abandonment computed independently with pandas."""
    g = log.groupby(["user_id", "impression_id"])
    imp = pd.DataFrame({
        "c1": g.apply(lambda f: int(((f["rank"] == 1) & (f["clicked"] > 0)).any()),
                      include_groups=False),
        "any": g["clicked"].max().gt(0).astype(int)}).reset_index()
    per = imp.groupby("user_id").agg(c1=("c1", "sum"), ab=("any", lambda s: (1 - s).sum()),
                                     q=("c1", "size"))
    out = assign.set_index("unit_id").join(per).fillna(0.0)
    return out


def test_analyze_matches_an_independent_pandas_aggregation(data: tuple) -> None:
    log_path, assign_path, log, assign = data
    rows = analyze_json(f"{log_path} --assign {assign_path} -m ctr@1 -m abandonment")
    users = pandas_user_sums(log, assign)
    c, t = users[users.variant == "control"], users[users.variant == "treatment"]
    for row, col in zip(rows, ["c1", "ab"], strict=True):
        e = ratio_effect(Arm(c[col].to_numpy(float), c.q.to_numpy(float)),
                         Arm(t[col].to_numpy(float), t.q.to_numpy(float)))
        assert row["n_control"] == len(c) and row["n_treatment"] == len(t)
        for key, want in [("control", e.control), ("treatment", e.treatment),
                          ("delta", e.delta), ("rel_low", e.rel_low), ("p", e.p)]:
            assert row[key] == pytest.approx(want, abs=1e-12), (row["metric"], key)


def test_analyze_every_metric_with_correction(data: tuple) -> None:
    log_path, assign_path, *_ = data
    rows = analyze_json(f"{log_path} --assign {assign_path} "
                        + " ".join(f"-m {m}" for m in ALL) + " --correction bh")
    assert [r["metric"] for r in rows] == ALL
    from statsmodels.stats.multitest import multipletests

    p = np.array([r["p"] for r in rows], dtype=float)
    np.testing.assert_allclose([r["p_adjusted"] for r in rows],
                               multipletests(p, method="fdr_bh")[1], atol=1e-12)
    assert rows[4]["test"] == "Welch t, delta method"  # its p and interval: one method


def test_cuped_with_the_same_log_as_pre_period_removes_all_variance(data: tuple) -> None:
    log_path, assign_path, *_ = data
    rows = analyze_json(f"{log_path} --assign {assign_path} -m ctr@1 --cuped {log_path}")
    assert rows[0]["variance_reduction"] == pytest.approx(1.0, abs=1e-9)


def test_srm_failure_stops_the_analysis_and_writes_nothing(data: tuple,
                                                            tmp_path: Path) -> None:
    log_path, _, log, assign = data
    # drop half the treatment's users from the assignment and the log: 2:1
    drop = set(assign[assign.variant == "treatment"].unit_id[::2])
    a2 = write(assign[~assign.unit_id.isin(drop)], tmp_path / "a.csv")
    l2 = write(log[~log.user_id.isin(drop)], tmp_path / "l.parquet")
    out, page = tmp_path / "t.tsv", tmp_path / "r.html"
    code, stdout, err = run_cli(f"ab analyze {l2} --assign {a2} -o {out} --html {page}")
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and "sample-ratio mismatch" in err, err
    assert not out.exists() and not page.exists() and stdout == ""
    code, _, err = run_cli(f"ab analyze {l2} --assign {a2} --ignore-srm -o {out}")
    assert code == 0 and out.exists(), err
    code, _, err = run_cli(f"ab srm {a2} --expected control=50,treatment=50")
    assert code == 1 and "sample-ratio mismatch" in err.splitlines()[-1]


def test_per_impression_needs_i_know_and_is_flagged(data: tuple) -> None:
    log_path, assign_path, *_ = data
    code, _, err = run_cli(f"ab analyze {log_path} --assign {assign_path} --unit impression")
    assert code == 2 and "--i-know" in err and len(err.strip().splitlines()) == 1
    rows = analyze_json(f"{log_path} --assign {assign_path} --unit impression --i-know "
                        "-m ctr@1")
    assert rows[0]["flag"] and "per impression" in str(rows[0]["test"])
    user = analyze_json(f"{log_path} --assign {assign_path} -m ctr@1")[0]
    # the naive SE is smaller: its interval is narrower than the delta method's
    assert (rows[0]["delta_high"] - rows[0]["delta_low"]  # type: ignore[operator]
            < user["delta_high"] - user["delta_low"])  # type: ignore[operator]


def test_bad_input_is_one_line(data: tuple, tmp_path: Path) -> None:
    log_path, assign_path, log, assign = data
    a2 = write(assign.iloc[1:], tmp_path / "a.csv")   # a logged user missing
    code, _, err = run_cli(f"ab analyze {log_path} --assign {a2}")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert assign.unit_id.iloc[0] in err
    bad = log.head(50).copy()
    bad["rank"] = bad["rank"].astype(str)
    bad.loc[7, "rank"] = "first"
    p = write(bad, tmp_path / "bad.csv")
    code, _, err = run_cli(f"ab analyze {p} --assign {assign_path} --ignore-srm")
    assert code == 1 and len(err.strip().splitlines()) == 1
    assert "bad.csv:9" in err and "rank" in err, err   # header is line 1, row 7 is line 9
    code, _, err = run_cli(f"ab analyze {log_path} --assign {assign_path} -m ctr@2")
    assert code == 2 and "unknown metric" in err
    code, _, err = run_cli(f"ab srm {assign_path} --expected control=50")
    assert code == 2 and "--expected" in err


def test_power_command_gives_r_numbers() -> None:
    # power.prop.test(p1=.5, p2=.75, power=.9): n = 76.7 -> 77 per arm
    code, out, err = run_cli("ab power -m ctr@1 --baseline 0.5 --mde 0.25 --power 0.9 "
                             "--format json")
    assert code == 0, err
    assert json.loads(out)[0]["n_per_arm"] == 77
    # power.t.test(n=20, delta=1): 0.8689528
    code, out, err = run_cli("ab power -m sessions_per_user --baseline 3 --mde 1 --sd 1 "
                             "--n 20 --format json")
    assert code == 0, err
    assert json.loads(out)[0]["power"] == pytest.approx(0.8689528, abs=1e-7)


def test_power_from_log_uses_the_delta_method_sd(data: tuple) -> None:
    from relkit.metrics.online.ab.moments import ratio_var

    log_path, assign_path, log, assign = data
    code, out, err = run_cli(f"ab power --from-log {log_path} --assign {assign_path} "
                             "-m ctr@1 --mde 5% --format json")
    assert code == 0, err
    row = json.loads(out)[0]
    users = pandas_user_sums(log, assign)
    sd = float(np.sqrt(ratio_var(users.c1.to_numpy(float), users.q.to_numpy(float))))
    assert row["sd"] == pytest.approx(sd, rel=1e-10)


@pytest.mark.parametrize("method", ["obf", "msprt"])
def test_monitor_one_row_per_look(data: tuple, method: str) -> None:
    log_path, assign_path, *_ = data
    code, out, err = run_cli(f"ab monitor {log_path} --assign {assign_path} --looks 3 "
                             f"--method {method} --format json")
    assert code == 0, err
    rows = json.loads(out)
    assert [r["look"] for r in rows] == [1, 2, 3]
    if method == "obf":
        assert rows[-1]["alpha_spent"] == pytest.approx(0.05)
    else:
        ps = [r["p_always_valid"] for r in rows]
        assert ps == sorted(ps, reverse=True)


@pytest.mark.slow
def test_html_report_in_a_browser(data: tuple, tmp_path: Path) -> None:
    from browser import browser, keep

    log_path, assign_path, *_ = data
    page = tmp_path / "ab.html"
    code, _, err = run_cli(f"ab analyze {log_path} --assign {assign_path} "
                           + " ".join(f"-m {m}" for m in ALL) + f" --html {page}")
    assert code == 0, err
    text = page.read_text()
    # self-contained: no scripts, nothing linked or fetched (SVG namespaces are names)
    assert "<script" not in text and "<link" not in text and 'src="http' not in text
    with browser() as chromium:
        chromium.open(page)
        info = chromium.evaluate("({w: document.documentElement.scrollWidth, "
                                 "svgs: document.querySelectorAll('svg').length, "
                                 "rows: document.querySelectorAll('tr').length})")
        shot = tmp_path / "ab.png"
        chromium.screenshot(shot)
        assert chromium.errors() == []
    keep(shot)
    assert info["svgs"] == 3 and info["rows"] == len(ALL) + 1
    assert info["w"] <= 1280


def test_cuped_with_bootstrap_is_a_usage_error(data: tuple) -> None:
    log_path, assign_path, *_ = data
    code, _, err = run_cli(f"ab analyze {log_path} --assign {assign_path} --variance "
                           f"bootstrap --cuped {log_path}")
    assert code == 2 and "--cuped" in err and len(err.strip().splitlines()) == 1


def test_three_arms_each_against_control() -> None:
    from relkit.metrics.online.ab.analysis import analyze
    from relkit.metrics.online.ab.users import UserTable

    rng = np.random.default_rng(20)
    n = 3000
    variant = [("control", "b", "c")[i % 3] for i in range(n)]
    y = rng.integers(1, 6, n).astype(float)
    x = rng.binomial(y.astype(int), 0.4).astype(float)
    table = UserTable([f"u{i}" for i in range(n)], variant, {"ctr@1": x}, {"ctr@1": y},
                      {"ctr@1": x}, {}, {})
    res = analyze(table, ["ctr@1"], expected={"control": 1, "b": 1, "c": 1})
    assert res.srm is not None and res.srm.df == 2
    assert [(r.control_arm, r.treatment_arm) for r in res.rows] == [("control", "b"),
                                                                     ("control", "c")]
    v = np.asarray(variant)
    c, b = v == "control", v == "b"
    want = ratio_effect(Arm(x[c], y[c]), Arm(x[b], y[b]))
    assert res.rows[0].effect.p == pytest.approx(want.p, abs=1e-12)


def test_cuped_from_an_assignment_column_matches_the_library(data: tuple,
                                                             tmp_path: Path) -> None:
    # The format's assignment table may carry pre-period metric columns for CUPED:
    # --cuped-column METRIC=COLUMN uses one as the metric's covariate (denominator 1).
    log_path, _, log, assign = data
    users = pandas_user_sums(log, assign)
    rng = np.random.default_rng(5)
    a2 = assign.copy()
    a2["pre_ctr"] = (users.loc[a2.unit_id, "c1"].to_numpy(float)
                     + rng.normal(0, 0.5, len(a2)))
    a2["label"] = "x"
    apath = write(a2, tmp_path / "assign.csv")
    row = analyze_json(f"{log_path} --assign {apath} -m ctr@1 "
                       "--cuped-column ctr@1=pre_ctr")[0]
    x = a2.set_index("unit_id")["pre_ctr"]
    c, t = users[users.variant == "control"], users[users.variant == "treatment"]
    e = ratio_effect(Arm(c.c1.to_numpy(float), c.q.to_numpy(float),
                         x[c.index].to_numpy(float), np.ones(len(c))),
                     Arm(t.c1.to_numpy(float), t.q.to_numpy(float),
                         x[t.index].to_numpy(float), np.ones(len(t))))
    for key, want in [("delta", e.delta), ("p", e.p), ("treatment", e.treatment)]:
        assert row[key] == pytest.approx(want, abs=1e-12), key
    assert float(row["variance_reduction"]) > 0.3   # type: ignore[arg-type]
    for bad, says in [("ctr@1=nosuch", "no column 'nosuch'"),
                      ("ctr@1=label", "not numeric"),
                      ("abandonment=pre_ctr", "not a metric of this analysis"),
                      ("ctr@1", "METRIC=COLUMN")]:
        code, out, err = run_cli(f"ab analyze {log_path} --assign {apath} -m ctr@1 "
                                 f"--cuped-column {bad}")
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, err
        assert out == ""
    a2.loc[3, "pre_ctr"] = np.nan
    code, _, err = run_cli(f"ab analyze {log_path} --assign {write(a2, tmp_path / 'b.csv')} "
                           "-m ctr@1 --cuped-column ctr@1=pre_ctr")
    assert code == 1 and "has no value for 1 units" in err, err


def test_analyze_writes_the_formats_compare_offers(data: tuple) -> None:
    log_path, assign_path, *_ = data
    for fmt, marker in [("latex", r"\toprule"), ("rich", "┃"), ("markdown", "|---")]:
        code, out, err = run_cli(f"ab analyze {log_path} --assign {assign_path} -m ctr@1 "
                                 f"--format {fmt}")
        assert code == 0 and marker in out and "ctr@1" in out.replace("\\", ""), (fmt, err)
