"""Pooling by group (TREC: k runs per team), per-run depths and per-topic budgets."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.metrics.data import Run
from relkit.pooling.build import build_pool
from relkit.pooling.depth import depth_pool
from relkit.pooling.errors import PoolingError
from relkit.pooling.groups import (
    Groups,
    parse_run_depths,
    prefix_groups,
    read_groups,
    select_runs,
)
from relkit.pooling.pool import Pool
from relkit.pooling.strategies import load_all

# Each run puts a different document first on topic 1, so the pool says which ran.
RUNS = {"uwat-bm25": "u1", "uwat-dense": "u2", "cmu-x": "c1", "cmu-y": "c2", "solo": "s1"}


def _write_runs(tmp: Path) -> list[Path]:
    out = []
    for name, doc in RUNS.items():
        p = tmp / f"{name}.txt"
        p.write_text(f"1 Q0 {doc} 1 9.0 {name}\n1 Q0 shared 2 5.0 {name}\n"
                     f"2 Q0 {doc}-2 1 3.0 {name}\n2 Q0 deep 2 2.0 {name}\n")
        out.append(p)
    return out


def test_map_file_priority_column_then_line_order(tmp_path: Path) -> None:
    m = tmp_path / "teams.txt"
    # uwat ranks dense first (priority 1); cmu gives no priority: line order, y first.
    m.write_text("# run group priority\nuwat-bm25 uwat 2\nuwat-dense uwat 1\n\n"
                 "cmu-y cmu\ncmu-x cmu\nsolo solo\n")
    g = read_groups(m)
    names = list(RUNS)
    assert select_runs(names, g, 1) == ["uwat-dense", "cmu-y", "solo"]
    assert select_runs(names, g, 2) == names
    assert select_runs(names, g, None) == names


def test_prefix_groups_take_command_line_order() -> None:
    names = list(RUNS)
    g = prefix_groups(names, "-")
    assert g.group == {"uwat-bm25": "uwat", "uwat-dense": "uwat", "cmu-x": "cmu",
                       "cmu-y": "cmu", "solo": "solo"}
    assert select_runs(names, g, 1) == ["uwat-bm25", "cmu-x", "solo"]
    assert select_runs(list(reversed(names)), prefix_groups(list(reversed(names)), "-"),
                       1) == ["solo", "cmu-y", "uwat-dense"]


def test_bad_map_files_and_missing_runs(tmp_path: Path) -> None:
    m = tmp_path / "teams.txt"
    m.write_text("a g\nb\n")
    with pytest.raises(PoolingError, match=r"teams.txt:2: expected 'run group \[priority\]'"):
        read_groups(m)
    m.write_text("a g x\n")
    with pytest.raises(PoolingError, match="teams.txt:1: expected an int priority"):
        read_groups(m)
    m.write_text("a g\na h\n")
    with pytest.raises(PoolingError, match="teams.txt:2: run 'a' again"):
        read_groups(m)
    m.write_text("a g\n")
    with pytest.raises(PoolingError, match="teams.txt: no group for run 'b'"):
        select_runs(["a", "b"], read_groups(m), 1)
    with pytest.raises(PoolingError, match="must be an int >= 1"):
        select_runs(["a"], read_groups(m), 0)


_names = st.lists(st.from_regex(r"[a-c]-[0-9]", fullmatch=True), min_size=1, max_size=12,
                  unique=True)


@settings(max_examples=examples(100), deadline=None)
@given(_names, st.integers(1, 4), st.randoms(use_true_random=False))
def test_selection_properties(names: list[str], k: int, rnd: object) -> None:
    prio = {n: (rnd.randint(0, 3), i) for i, n in enumerate(names)}  # type: ignore[attr-defined]
    g = Groups({n: n[0] for n in names}, prio, "map")
    kept = select_runs(names, g, k)
    assert kept == [n for n in names if n in kept]                 # caller's order kept
    assert set(kept) <= set(select_runs(names, g, k + 1))          # monotone in k
    for team in {n[0] for n in names}:
        members = sorted((n for n in names if n[0] == team), key=prio.__getitem__)
        assert [n for n in members if n in kept] == members[:k]    # the k first by priority
    shuffled = list(names)
    rnd.shuffle(shuffled)                                          # type: ignore[attr-defined]
    assert set(select_runs(shuffled, g, k)) == set(kept)           # the map decides, not order


def test_cli_pools_one_run_per_group(tmp_path: Path) -> None:
    paths = _write_runs(tmp_path)
    m = tmp_path / "teams.txt"
    m.write_text("uwat-bm25 uwat 2\nuwat-dense uwat 1\ncmu-x cmu\ncmu-y cmu\nsolo solo\n")
    code, out, err = run_cli(["pool", *map(str, paths), "--depth", "1", "--groups", str(m),
                              "--runs-per-group", "1"])
    assert code == 0, err
    assert "pooling 3 of 5 runs (1 per group, 3 groups)" in err
    docs = {line.split("\t")[1] for line in out.splitlines()[1:]}
    assert docs == {"u2", "c1", "s1", "u2-2", "c1-2", "s1-2"}
    code, out, err = run_cli(["pool", *map(str, paths), "--depth", "1", "--group-prefix", "-",
                              "--runs-per-group", "1"])
    assert code == 0, err
    assert {line.split("\t")[1] for line in out.splitlines()[1:]} == {
        "u1", "c1", "s1", "u1-2", "c1-2", "s1-2"}


@pytest.mark.parametrize(("args", "message"), [
    (["--runs-per-group", "1"], "--runs-per-group: needs --groups FILE or --group-prefix"),
    (["--groups", "MAP", "--group-prefix", "-"], "not both"),
    (["--depth-of", "nosuch=3"], "no run named 'nosuch'"),
    (["--depth-of", "solo=0"], "the depth of run 'solo' must be an int >= 1"),
    (["--budget-of", "1=x"], "the budget of topic '1' must be an int >= 1"),
    (["--budget-of", "1=2", "--total", "5"], "give one or the other"),
])
def test_cli_bad_group_depth_and_budget_options(tmp_path: Path, args: list[str],
                                                message: str) -> None:
    paths = _write_runs(tmp_path)
    m = tmp_path / "teams.txt"
    m.write_text("solo solo\n")
    args = [str(m) if a == "MAP" else a for a in args]
    code, out, err = run_cli(["pool", *map(str, paths), *args])
    assert code == 2, err
    assert message in err and "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert out == ""


def test_cli_missing_run_in_map_is_one_line(tmp_path: Path) -> None:
    paths = _write_runs(tmp_path)
    m = tmp_path / "teams.txt"
    m.write_text("solo solo\n")
    code, out, err = run_cli(["pool", *map(str, paths), "--groups", str(m)])
    assert code != 0 and out == ""
    assert f"{m}: no group for run 'uwat-bm25' (and 3 more)" in err
    assert len(err.strip().splitlines()) == 1


def test_cli_per_run_depths_and_per_topic_budgets(tmp_path: Path) -> None:
    paths = _write_runs(tmp_path)
    runs = {p.stem: Run.read(p) for p in paths}
    code, out, err = run_cli(["pool", *map(str, paths), "--depth", "1", "--depth-of",
                              "solo=2", "-o", str(tmp_path / "p.tsv")])
    assert code == 0, err
    depths = {n: 2 if n == "solo" else 1 for n in runs}
    assert Pool.read(tmp_path / "p.tsv")[0] == depth_pool(runs, depths)
    # Topic 1 gets 2 judgments, topic 2 keeps its whole depth-2 pool (6 documents).
    code, out, err = run_cli(["pool", *map(str, paths), "--depth", "2", "--budget-of", "1=2"])
    assert code == 0, err
    lines = [line.split("\t") for line in out.splitlines()[1:]]
    assert sum(1 for t, *_ in lines if t == "1") == 2
    assert sum(1 for t, *_ in lines if t == "2") == 6
    # The two best-ranked on topic 1: rank-1 documents, docno order (c1, c2 before s1...).
    assert [d for t, d, *_ in lines if t == "1"] == ["c1", "c2"]


@settings(max_examples=examples(40), deadline=None)
@given(st.dictionaries(st.sampled_from(["1", "2", "3"]), st.integers(1, 4), max_size=3),
       st.none() | st.integers(1, 4))
def test_topic_budgets_over_the_static_registry(per: dict[str, int], default: int | None
                                                ) -> None:
    runs = {n: Run.read("".join(f"{t} Q0 d{(i * 7 + j) % 9} {j + 1} {9 - j} {n}\n"
                                for t in ("1", "2", "3") for j in range(5)))
            for i, n in enumerate(["a", "b", "c"])}
    for name, s in sorted(load_all().items()):
        if s.kind != "static":
            continue
        whole = build_pool(name, runs, depth=5)
        cut = build_pool(name, runs, depth=5, budget=default, topic_budgets=per)
        for t, n in whole.sizes().items():
            b = per.get(t, default)
            assert cut.sizes().get(t, 0) == (n if b is None else min(n, b)), (name, t)
        # what is kept is the head of the strategy's own order
        assert cut.pairs() <= whole.pairs()


def test_parse_run_depths_default_is_one_depth() -> None:
    assert parse_run_depths([], {"a": 1}, 7) == 7
    assert parse_run_depths(["a=3"], {"a": 1, "b": 1}, 7) == {"a": 3, "b": 7}


def test_hybrid_floor_hand_worked() -> None:
    # rbp, p = 0.5: a weight of 0.5 at rank 1, 0.25 at rank 2. y is every run's second
    # document: 3 x 0.25 = 0.75, ahead of v, w, x (0.5 each; ties by docno).
    runs = {n: Run.read(f"1 Q0 {top} 1 2.0 {n}\n1 Q0 y 2 1.0 {n}\n")
            for n, top in (("a", "x"), ("b", "w"), ("c", "v"))}
    plain = build_pool("rbp", runs, {"p": 0.5}, budget=2)
    assert [e.doc for e in plain] == ["v", "y"]
    # floor 1: the three rank-1 documents first, never cut, though the budget is 2.
    hybrid = build_pool("rbp", runs, {"p": 0.5}, budget=2, floor=1)
    assert [(e.doc, e.priority) for e in hybrid] == [("v", 1.75), ("w", 1.75), ("x", 1.75)]
    # budget 4: then the strategy's order fills the rest (y, priority unchanged).
    wide = build_pool("rbp", runs, {"p": 0.5}, budget=4, floor=1)
    assert {(e.doc, e.priority) for e in wide} == {("v", 1.75), ("w", 1.75), ("x", 1.75),
                                                   ("y", 0.75)}
    with pytest.raises(PoolingError, match="floor' of a hybrid pool must be an int >= 1"):
        build_pool("rbp", runs, floor=0)


@settings(max_examples=examples(30), deadline=None)
@given(st.integers(1, 4), st.none() | st.integers(1, 6))
def test_hybrid_floor_over_the_static_registry(floor: int, budget: int | None) -> None:
    runs = {n: Run.read("".join(f"{t} Q0 d{(i * 5 + j * 3) % 11} {j + 1} {9 - j} {n}\n"
                                for t in ("1", "2") for j in range(6)))
            for i, n in enumerate(["a", "b", "c"])}
    floor_pool = depth_pool(runs, floor)
    for name, s in sorted(load_all().items()):
        if s.kind != "static":
            continue
        hybrid = build_pool(name, runs, depth=6, budget=budget, floor=floor)
        assert floor_pool.pairs() <= hybrid.pairs(), name          # the floor is all in
        for t, n in hybrid.sizes().items():
            floor_n = floor_pool.sizes()[t]
            assert n == max(floor_n, budget) if budget is not None else True, name
        ranked = sorted(hybrid, key=lambda e: -e.priority)
        in_floor = [(e.topic, e.doc) in floor_pool.pairs() for e in ranked
                    if e.topic == "1"]
        assert in_floor == sorted(in_floor, reverse=True), name   # floor first by priority


def test_cli_floor(tmp_path: Path) -> None:
    paths = _write_runs(tmp_path)
    runs = {p.stem: Run.read(p) for p in paths}
    out = tmp_path / "p.tsv"
    code, _, err = run_cli(["pool", *map(str, paths), "-s", "rbp", "--budget", "1",
                            "--floor", "1", "-o", str(out)])
    assert code == 0, err
    assert Pool.read(out)[0] == build_pool("rbp", runs, depth=100, budget=1, floor=1)
    assert Pool.read(out)[0].pairs() == depth_pool(runs, 1).pairs()
    code, _, err = run_cli(["pool", *map(str, paths), "-s", "bandit", "--budget", "1",
                            "--floor", "1", "--db", str(tmp_path / "x.db")])
    assert code == 2 and "--floor" in err and "static strategies" in err
    assert not (tmp_path / "x.db").exists()


def test_pool_stats_reads_the_same_map_file(tmp_path: Path) -> None:
    paths = _write_runs(tmp_path)
    code, _, err = run_cli(["pool", *map(str, paths), "--depth", "1", "-o",
                            str(tmp_path / "p.tsv")])
    assert code == 0, err
    m = tmp_path / "teams.txt"
    m.write_text("uwat-bm25 uwat 2\nuwat-dense uwat 1\ncmu-x cmu\ncmu-y cmu\nsolo solo\n")
    code, out, err = run_cli(["pool-stats", str(tmp_path / "p.tsv"), "--groups", str(m)])
    assert code == 0, err
    assert {line.split("\t")[1] for line in out.splitlines() if line.startswith("group\t")} \
        == {"uwat", "cmu", "solo"}


def test_pool_says_it_does_not_read_relkit_db(tmp_path: Path,
                                              monkeypatch: pytest.MonkeyPatch) -> None:
    """Every other database command reads $RELKIT_DB; `pool` writes to stdout unless
    --db is given. With the variable exported it says so on stderr, so the next
    `assign` ("no pool imported yet") is no surprise; the pool itself is unchanged."""
    from helpers import ROOT

    runs = sorted(str(p) for p in (ROOT / "corpora" / "sample" / "runs").glob("*.txt"))
    code, plain, err = run_cli(["pool", "--depth", "3", *runs])
    assert code == 0 and "RELKIT_DB" not in err
    monkeypatch.setenv("RELKIT_DB", str(tmp_path / "team.db"))
    code, out, err = run_cli(["pool", "--depth", "3", *runs])
    assert code == 0 and out == plain
    assert "$RELKIT_DB is not read here" in err and "--db" in err
    assert not (tmp_path / "team.db").exists()
