"""``ab analyze --engine spark`` and ``clicks fit --engine spark``: the same numbers as
the DuckDB/numpy path (the oracle), on seeded logs, through the shared ``spark`` fixture.

Exact equality wherever the sums are integers (every 0/1 metric, counts, the counting
click models); a stated tolerance where floats are added in another order: the squared
times to first click (1e-12 relative) and the EM of PBM/UBM (1e-12 absolute on
parameters in [0, 1]).
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest

from ab_helpers import click_log, write
from helpers import run_cli

# Spark's Python workers must run this interpreter (it has relkit, numpy, pyarrow); set
# before the session-wide fixture starts Spark.
os.environ.setdefault("PYSPARK_PYTHON", sys.executable)

pytestmark = pytest.mark.slow

ALL = ["ctr@1", "first_page_ctr", "abandonment", "good_click_rate", "time_to_first_click",
       "sessions_per_user"]
# Float sums (the times to first click, their squares) are added in the order each engine
# meets a user's queries: a few ulps apart.
FLOAT_RTOL = 1e-12
EM_ATOL = 1e-12


@pytest.fixture(scope="module")
def ab_files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """A log whose assignment has: two big arms, a one-user arm, an arm whose users never
    searched, users with zero events in the big arms, and a pre-period column."""
    d = tmp_path_factory.mktemp("spark_ab")
    log, assign = click_log(120, 7, effect=0.05, queries=3)
    solo = log[log["user_id"] == "u00003"].copy()
    log = log[log["user_id"] != "u00003"]
    solo["variant"] = "solo"
    log = pd.concat([log, solo], ignore_index=True)
    assign.loc[assign["unit_id"] == "u00003", "variant"] = "solo"
    extra = pd.DataFrame({"unit_id": ["z1", "z2", "g1", "g2"],
                          "variant": ["control", "treatment", "ghost", "ghost"],
                          "first_exposure_ts": [1.7e9] * 4})
    assign = pd.concat([assign, extra], ignore_index=True)
    rng = np.random.default_rng(3)
    assign["pre_ctr"] = rng.random(len(assign)).round(3)
    pre = log.sample(frac=0.6, random_state=1)
    out = {"log": write(log, d / "log.parquet"), "assign": write(assign, d / "assign.parquet"),
           "assign_csv": write(assign, d / "assign.csv"), "pre": write(pre, d / "pre.parquet"),
           "csv": write(log, d / "log.csv")}
    jl = d / "log.jsonl"
    log.to_json(jl, orient="records", lines=True)
    out["jsonl"] = jl
    return out


def _local_table(log: Path, assign: Path, metrics: list[str], **kw: Any) -> Any:
    from relkit.metrics.online.ab.users import Names, get_metric, user_table
    from relkit.metrics.online.source import connect, open_assignments, open_log

    con = connect()
    lv = open_log(log, con=con)
    lv.check()
    av = open_assignments(assign, con=con).view
    pre = kw.pop("pre", None)
    pv = open_log(pre, con=con).view if pre is not None else None
    # the messages name the files as the Spark reader does (its paths)
    names = Names(str(log), str(assign), str(pre) if pre is not None else "")
    return user_table(con, lv.view, av, [get_metric(m) for m in metrics], pre=pv,
                      files=names, **kw)


def _spark_table(spark: Any, log: Path, assign: Path, metrics: list[str], **kw: Any) -> Any:
    from relkit.metrics.online.ab.users import get_metric
    from relkit.metrics.spark.ab import spark_user_table
    from relkit.metrics.spark.logs import check, read_assignments, read_log

    src = read_log(spark, log)
    check(src)
    pre = kw.pop("pre", None)
    ps = read_log(spark, pre) if pre is not None else None
    return spark_user_table(spark, src, read_assignments(spark, assign),
                            [get_metric(m) for m in metrics], pre=ps, **kw)


def _assert_same_table(a: Any, b: Any) -> None:
    assert a.users == b.users
    assert a.variant == b.variant
    for attr in ("num", "den", "sq", "pre_num", "pre_den"):
        x, y = getattr(a, attr), getattr(b, attr)
        assert x.keys() == y.keys(), attr
        for name in x:
            if name == "time_to_first_click" and attr in ("num", "sq", "pre_num"):
                np.testing.assert_allclose(y[name], x[name], rtol=FLOAT_RTOL, atol=0)
            else:
                assert np.array_equal(x[name], y[name]), (attr, name)


def test_user_table_parquet_equals_duckdb(spark: Any, ab_files: dict[str, Path]) -> None:
    a = _local_table(ab_files["log"], ab_files["assign"], ALL, pre=ab_files["pre"])
    b = _spark_table(spark, ab_files["log"], ab_files["assign"], ALL, pre=ab_files["pre"])
    _assert_same_table(a, b)
    # the edge cases are really there
    assert a.variant.count("solo") == 1 and a.variant.count("ghost") == 2
    zero = a.users.index("z1")
    assert a.den["ctr@1"][zero] == 0 and b.den["ctr@1"][zero] == 0


@pytest.mark.parametrize("kind", ["csv", "jsonl"])
def test_user_table_text_formats_equal_duckdb(spark: Any, ab_files: dict[str, Path],
                                              kind: str) -> None:
    a = _local_table(ab_files[kind], ab_files["assign_csv"], ALL)
    b = _spark_table(spark, ab_files[kind], ab_files["assign_csv"], ALL)
    _assert_same_table(a, b)


def test_cuped_column_and_analysis_equal(spark: Any, ab_files: dict[str, Path]) -> None:
    from relkit.metrics.online.ab.analysis import analyze, table_rows

    cols = {"ctr@1": "pre_ctr"}
    names = ["ctr@1", "abandonment", "time_to_first_click"]
    a = _local_table(ab_files["log"], ab_files["assign"], names, pre_columns=cols)
    b = _spark_table(spark, ab_files["log"], ab_files["assign"], names, pre_columns=cols)
    _assert_same_table(a, b)
    design = {v: 1.0 for v in sorted(set(a.variant))}
    ra = table_rows(analyze(a, names, expected=design, ignore_srm=True))
    rb = table_rows(analyze(b, names, expected=design, ignore_srm=True))
    assert len(ra) == len(rb) == 3 * 3   # three treatment arms against control
    for x, y in zip(ra, rb, strict=True):
        if x[0] == "time_to_first_click":
            for u, v in zip(x, y, strict=True):
                if isinstance(u, float):
                    assert v == pytest.approx(u, rel=1e-9, abs=1e-12)
                else:
                    assert u == v
        else:
            assert x == y   # integer sums: the report to the last bit


def test_cli_output_is_byte_identical(spark: Any, ab_files: dict[str, Path]) -> None:
    args = (f"ab analyze {ab_files['log']} --assign {ab_files['assign']} -m ctr@1 "
            f"-m abandonment -m sessions_per_user --cuped {ab_files['pre']} --ignore-srm "
            "--format json")
    code, local, err = run_cli(args)
    assert code == 0, err
    code, remote, err = run_cli(args + " --engine spark")
    assert code == 0, err
    assert local == remote
    assert len(json.loads(remote)) == 9


def test_unit_errors_match_duckdb(spark: Any, tmp_path: Path,
                                  ab_files: dict[str, Path]) -> None:
    from relkit.metrics.online.ab.errors import ABError

    assign = pd.read_parquet(ab_files["assign"])
    short = write(assign[assign["unit_id"] != "u00010"], tmp_path / "short.parquet")
    with pytest.raises(ABError) as local:
        _local_table(ab_files["log"], short, ["ctr@1"])
    with pytest.raises(ABError) as remote:
        _spark_table(spark, ab_files["log"], short, ["ctr@1"])
    assert str(local.value) == str(remote.value)
    assert "u00010" in str(remote.value)
    moved = assign.copy()
    moved.loc[moved["unit_id"] == "u00011", "variant"] = "solo"
    moved_p = write(moved, tmp_path / "moved.parquet")
    with pytest.raises(ABError) as local:
        _local_table(ab_files["log"], moved_p, ["ctr@1"])
    with pytest.raises(ABError) as remote:
        _spark_table(spark, ab_files["log"], moved_p, ["ctr@1"])
    assert str(local.value) == str(remote.value)


def test_bad_values_and_columns_are_one_line(spark: Any, tmp_path: Path,
                                            ab_files: dict[str, Path]) -> None:
    lines = ab_files["csv"].read_text().splitlines()
    head = lines[0].split(",")
    row = lines[5].split(",")
    row[head.index("rank")] = "three"
    bad = tmp_path / "bad.csv"
    bad.write_text("\n".join([*lines[:5], ",".join(row), *lines[6:]]) + "\n")
    base = f"ab analyze {{}} --assign {ab_files['assign']} -m ctr@1"
    for engine in ("", " --engine spark"):
        code, out, err = run_cli(base.format(bad) + engine)
        assert code == 1 and out == ""
        assert err.strip().count("\n") == 0, err
        assert f"{bad}:6" in err and "'rank'" in err and "three" in err
        code, out, err = run_cli(base.format(ab_files["log"]) + " --map user_id=who" + engine)
        assert code == 1 and "'who'" in err and err.strip().count("\n") == 0, err
        code, _, err = run_cli(base.format(tmp_path / "nope.parquet") + engine)
        assert code == 1 and "no such file" in err
    code, _, err = run_cli(base.format(ab_files["log"]) + " --spark-master local[1]")
    assert code == 2 and "--engine spark" in err
    code, _, err = run_cli(base.format(ab_files["log"]) + " --engine spark --html x.html")
    assert code == 2 and "--html" in err


def test_missing_java_or_pyspark_is_exit_2(spark: Any, monkeypatch: pytest.MonkeyPatch,
                                           ab_files: dict[str, Path]) -> None:
    import relkit.metrics.spark.session as session

    args = f"ab analyze {ab_files['log']} --assign {ab_files['assign']} --engine spark"
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setattr(session.shutil, "which", lambda name: None)
    code, out, err = run_cli(args + " --spark-master local[1]")
    assert code == 2 and out == "" and "Java runtime" in err
    assert err.strip().count("\n") == 0
    monkeypatch.setitem(sys.modules, "pyspark.sql", None)
    code, out, err = run_cli(args)
    assert code == 2 and "pip install 'relkit[spark]'" in err


def test_wide_form_and_derived_impressions(spark: Any, tmp_path: Path,
                                           ab_files: dict[str, Path]) -> None:
    log = pd.read_parquet(ab_files["log"]).sort_values(["impression_id", "rank"])
    derived = write(log.drop(columns=["impression_id"]), tmp_path / "derived.parquet")
    a = _local_table(derived, ab_files["assign"], ["ctr@1", "sessions_per_user"])
    b = _spark_table(spark, derived, ab_files["assign"], ["ctr@1", "sessions_per_user"])
    _assert_same_table(a, b)
    g = log.groupby("impression_id", sort=True)
    wide = pd.DataFrame({
        "impression_id": list(g.groups), "query_id": g["query_id"].first().to_list(),
        "user_id": g["user_id"].first().to_list(), "variant": g["variant"].first().to_list(),
        "session_id": g["session_id"].first().to_list(), "ts": g["ts"].first().to_list(),
        "doc_ids": g["doc_id"].agg(list).to_list(), "clicks": g["clicked"].agg(list).to_list()})
    wpath = write(wide, tmp_path / "wide.parquet")
    a = _local_table(wpath, ab_files["assign"], ["ctr@1", "abandonment"])
    b = _spark_table(spark, wpath, ab_files["assign"], ["ctr@1", "abandonment"])
    _assert_same_table(a, b)


# -- click models ------------------------------------------------------------------------

@pytest.fixture(scope="module")
def click_files(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small log with gaps (rank 4 missing on some pages), short pages, multi-click
    sessions and results past --max-rank (ignored). (A rank-0 row, once ignored too, is
    now refused by both engines' checks: test_values_out_of_range_are_refused...)"""
    rng = np.random.default_rng(11)
    rows = []
    for i in range(300):
        q = f"q{rng.integers(0, 12)}"
        depth = int(rng.integers(3, 13))
        for r in range(1, depth + 1):
            if r == 4 and i % 7 == 0:
                continue
            d = f"d{(int(q[1:]) * 5 + r + int(rng.integers(0, 3))) % 40}"
            rows.append((f"i{i:04d}", q, r, d, int(rng.random() < 0.5 / r ** 0.7)))
    df = pd.DataFrame(rows, columns=["impression_id", "query_id", "rank", "doc_id", "clicked"])
    return write(df, tmp_path_factory.mktemp("spark_clicks") / "clicks.parquet")


@pytest.fixture(scope="module")
def coded(spark: Any, click_files: Path) -> Any:
    from relkit.metrics.spark.clicks import code_log
    from relkit.metrics.spark.logs import read_log

    data = code_log(spark, read_log(spark, click_files), 10)
    yield data
    data.release()


@pytest.fixture(scope="module")
def local_data(click_files: Path) -> Any:
    from relkit.metrics.online.clickmodels.data import from_log
    from relkit.metrics.online.source import open_log

    return from_log(open_log(click_files), 10)


@pytest.mark.parametrize("name", ["random", "gctr", "rctr", "dctr", "cascade", "sdbn",
                                  "pbm", "ubm", "dbn", "dcm", "ccm"])
def test_click_models_equal_numpy(name: str, coded: Any, local_data: Any) -> None:
    from relkit.metrics.online.clickmodels.base import evaluate
    from relkit.metrics.online.clickmodels.registry import MODELS
    from relkit.metrics.spark.clicks import evaluate_spark, fit_spark

    assert coded.n_sessions == local_data.n_sessions
    assert list(coded.queries) == list(local_data.queries)
    assert list(coded.docs) == list(local_data.docs)
    a = MODELS[name]().fit(local_data, iterations=8, seed=5)
    b = fit_spark(coded, name, iterations=8, seed=5)
    assert np.array_equal(a.counts, b.counts)
    assert a.params.keys() == b.params.keys()
    em = name in ("pbm", "ubm", "dbn", "dcm", "ccm")
    for k in a.params:
        if em:
            np.testing.assert_allclose(b.params[k], a.params[k], rtol=0, atol=EM_ATOL)
        else:
            assert np.array_equal(a.params[k], b.params[k]), k
    assert a.default == b.default
    np.testing.assert_allclose(b.trace, a.trace, rtol=1e-12)
    ea, eb = evaluate(a, local_data), evaluate_spark(b, coded)
    assert ea.sessions == eb.sessions
    assert eb.log_likelihood == pytest.approx(ea.log_likelihood, rel=1e-12)
    np.testing.assert_allclose(eb.perplexity, ea.perplexity, rtol=1e-12)


def test_em_input_partitions_follow_the_log_not_the_shuffle_default(coded: Any) -> None:
    # Each partition of the cached EM input is one Python task per iteration: a small
    # log on spark.sql.shuffle.partitions (200 by default, 4 here) cost minutes of task
    # start-ups (6 min for 3,000 sessions). A small log gets one partition per core.
    from relkit.metrics.spark.clicks import SESSIONS_PER_TASK

    cores = coded.spark.sparkContext.defaultParallelism
    assert coded.n_sessions < SESSIONS_PER_TASK
    assert coded.em_partitions() == min(cores, 4) == 2


def test_chain_models_many_blocks_per_partition(coded: Any, local_data: Any,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Blocks of 16 sessions on Spark (the partitions add several blocks' sums) against
    the local path's one block: the same numbers up to summation order."""
    import relkit.metrics.online.clickmodels.chain as chain
    from relkit.metrics.online.clickmodels.registry import MODELS
    from relkit.metrics.spark.clicks import fit_spark

    a = MODELS["ccm"]().fit(local_data, iterations=4, seed=2)
    monkeypatch.setattr(chain, "BLOCK", 16)
    b = fit_spark(coded, "ccm", iterations=4, seed=2)
    for k in a.params:
        np.testing.assert_allclose(b.params[k], a.params[k], rtol=0, atol=EM_ATOL)
    np.testing.assert_allclose(b.trace, a.trace, rtol=1e-12)


def test_clicks_fit_cli(spark: Any, click_files: Path, tmp_path: Path) -> None:
    outs = {}
    for engine in ("local", "spark"):
        out = tmp_path / f"{engine}.json"
        code, stdout, err = run_cli(f"clicks fit {click_files} --model sdbn -o {out} "
                                    f"--engine {engine}")
        assert code == 0, err
        outs[engine] = (stdout, json.loads(out.read_text()))
    assert outs["local"][0] == outs["spark"][0]
    la, sa = outs["local"][1], outs["spark"][1]
    lfit, sfit = la.pop("fit"), sa.pop("fit")
    assert la == sa   # the model file's parameters, pairs and counts: equal
    lev, sev = lfit.pop("evaluation"), sfit.pop("evaluation")
    assert lfit == sfit
    assert sev["log_likelihood"] == pytest.approx(lev["log_likelihood"], rel=1e-12)
    code, _, err = run_cli(f"clicks fit {click_files} -o {tmp_path / 'x.json'} --engine spark "
                           "--holdout 0.2")
    assert code == 2 and "--holdout" in err
    # the chain models too (refused before they had Spark sums)
    code, _, err = run_cli(f"clicks fit {click_files} -o {tmp_path / 'dbn.json'} "
                           "--engine spark --model dbn --iterations 3")
    assert code == 0, err
    assert json.loads((tmp_path / "dbn.json").read_text())["model"] == "dbn"


def test_duplicate_rank_is_one_line(spark: Any, tmp_path: Path) -> None:
    df = pd.DataFrame({"impression_id": ["a", "a", "b"], "query_id": ["q"] * 3,
                       "rank": [1, 1, 1], "doc_id": ["x", "y", "x"], "clicked": [0, 1, 0]})
    path = write(df, tmp_path / "dup.parquet")
    code, out, err = run_cli(f"clicks fit {path} -o {tmp_path / 'm.json'} --engine spark")
    assert code == 1 and out == "" and err.strip().count("\n") == 0
    assert "'rank'" in err and "'a'" in err


def _tester_log(tmp: Path, *, unique: bool) -> tuple[Path, Path]:
    """Impressions numbered per user ("1", "2" for every user), as real logs do; ctr@1
    is 1/3 in both arms when the page views are told apart."""
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
    tmp.mkdir(parents=True, exist_ok=True)
    return (write(pd.DataFrame(rows), tmp / "log.parquet"),
            write(pd.DataFrame({"unit_id": list(spec), "variant": [a for a, _ in
                                                                   spec.values()]}),
                  tmp / "a.csv"))


def test_reused_impression_ids_stop_both_engines(spark: Any, tmp_path: Path) -> None:
    # Both engines grouped by impression_id alone: u1..u4 merged, wrong means, exit 0.
    log, assign = _tester_log(tmp_path / "reused", unique=False)
    args = f"ab analyze {log} --assign {assign} -m ctr@1"
    code, out, local = run_cli(args)
    assert code == 1 and out == "" and local.count("\n") == 1, local
    assert f"{log}: impression_id '1' is used by users 'u1' and 'u2'" in local
    code, out, remote = run_cli(args + " --engine spark")
    assert code == 1 and out == "" and remote == local
    log, assign = _tester_log(tmp_path / "unique", unique=True)
    args = f"ab analyze {log} --assign {assign} -m ctr@1 --format json"
    for engine in ("", " --engine spark"):
        code, out, err = run_cli(args + engine)
        assert code == 0, err
        (row,) = json.loads(out)
        assert (row["control"], row["treatment"]) == (pytest.approx(1 / 3),
                                                      pytest.approx(1 / 3))


def test_a_line_twice_stops_both_engines(spark: Any, tmp_path: Path) -> None:
    # One page view's row repeated (a retried export): its clicks were counted twice.
    log, assign = _tester_log(tmp_path, unique=True)
    frame = pd.read_parquet(log)
    write(pd.concat([frame.iloc[:3], frame.iloc[2:3], frame.iloc[3:]]), log)
    args = f"ab analyze {log} --assign {assign} -m ctr@1"
    code, out, local = run_cli(args)
    assert code == 1 and out == "" and local.count("\n") == 1, local
    assert f"{log}:4: expected one result per rank" in local
    assert "rank 1 of impression 'u1-2'" in local
    code, out, remote = run_cli(args + " --engine spark")
    assert code == 1 and out == "" and remote.count("\n") == 1, remote
    assert f"{log}: expected one result per rank" in remote
    assert "rank 1 of impression 'u1-2'" in remote


@pytest.mark.parametrize(("column", "value", "words"), [
    ("clicked", -1, "an integer >= 0 in column 'clicked'; found -1"),
    ("rank", 0, "an integer >= 1 in column 'rank'; found 0"),
    ("ts", float("inf"), "a finite time (seconds, or an ISO 8601 timestamp) in column 'ts'"),
])
def test_values_out_of_range_are_refused_by_both_engines(spark: Any, tmp_path: Path,
                                                         ab_files: dict[str, Path],
                                                         column: str, value: Any,
                                                         words: str) -> None:
    # clicked = -1, rank 0 and an infinite time were summed as they were (exit 0).
    log = pd.read_parquet(ab_files["log"])
    log[column] = log[column].astype(type(value))
    log.loc[4, column] = value
    bad = write(log, tmp_path / "bad.parquet")
    args = f"ab analyze {bad} --assign {ab_files['assign']} -m ctr@1 --ignore-srm"
    code, _, local = run_cli(args)
    assert code == 1 and local.count("\n") == 1 and f"{bad}:5: expected {words}" in local
    code, _, remote = run_cli(args + " --engine spark")
    assert code == 1 and remote == local


def test_an_empty_log_is_refused_by_both_engines(spark: Any, tmp_path: Path,
                                                 ab_files: dict[str, Path]) -> None:
    empty = write(pd.read_parquet(ab_files["log"]).iloc[:0], tmp_path / "empty.parquet")
    args = f"ab analyze {empty} --assign {ab_files['assign']} -m ctr@1"
    code, _, local = run_cli(args)
    assert code == 1 and local == f"relkit: error: {empty}: no rows (a log with no impressions)\n"
    code, _, remote = run_cli(args + " --engine spark")
    assert code == 1 and remote == local


def test_a_missing_cuped_column_value_is_named_alike(spark: Any, tmp_path: Path,
                                                     ab_files: dict[str, Path]) -> None:
    assign = pd.read_parquet(ab_files["assign"])
    assign.loc[5, "pre_ctr"] = None
    ap = write(assign, tmp_path / "a.parquet")
    args = (f"ab analyze {ab_files['log']} --assign {ap} -m ctr@1 --cuped-column "
            "ctr@1=pre_ctr --ignore-srm")
    code, _, local = run_cli(args)
    assert code == 1 and local.count("\n") == 1, local
    assert f"{ap}: column 'pre_ctr' (the pre-period ctr@1) has no value for 1 units" in local
    code, _, remote = run_cli(args + " --engine spark")
    assert code == 1 and remote == local


def test_a_missing_column_is_named_alike_by_both_engines(spark: Any, tmp_path: Path,
                                                         ab_files: dict[str, Path]) -> None:
    # One click-log contract (relkit.metrics.online.logcontract): the Spark reader said
    # "a column 'who' (mapped from --map user_id=who)", DuckDB "... for the user_id".
    args = f"ab analyze {ab_files['log']} --assign {ab_files['assign']} -m ctr@1"
    for extra in (" --map user_id=who", " --map rank=place"):
        code, _, local = run_cli(args + extra)
        assert code == 1 and "(map one with --map" in local and local.count("\n") == 1
        code, _, remote = run_cli(args + extra + " --engine spark")
        assert code == 1 and remote == local
