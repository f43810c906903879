"""`relkit pool` builds with the vectorised path where a strategy has one, same output.

The ``depth`` strategy has two builders: the generic one (order the candidates
topic by topic, ``relkit.pooling.strategies.depth``) and
:func:`relkit.pooling.depth.depth_pool` (numpy). ``build_pool`` and so the CLI
take the second; these tests hold the two to identical pools, and the CLI to
the fast one.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import SHARED, examples, run_cli
from relkit.metrics.data import Run
from relkit.pooling import build
from relkit.pooling.build import FAST, build_pool
from relkit.pooling.depth import run_name
from relkit.pooling.pool import Pool

CRAN = SHARED / "corpora" / "cranfield"


def _both(runs: dict[str, Run], **kw: object) -> tuple[Pool, Pool]:
    params = kw.pop("params", None)
    fast = build_pool("depth", runs, params, vectorised=True, **kw)  # type: ignore[arg-type]
    slow = build_pool("depth", runs, params, vectorised=False, **kw)  # type: ignore[arg-type]
    return fast, slow


@pytest.mark.skipif(not CRAN.is_dir(), reason=f"shared corpora not at {CRAN}")
@pytest.mark.parametrize("kw", [
    {"depth": 10, "params": {"depth": 10}},
    {"depth": 20, "params": {"depth": 5}},            # provenance deeper than the pool
    {"depth": 10, "params": {"depth": 10}, "budget": 7},
    {"depth": 10, "params": {"depth": 10}, "total": 1000},
    {"depth": 10, "params": {"depth": 10}, "topics": ["1", "5", "225"]},
])
def test_cranfield_fast_and_generic_paths_agree(kw: dict[str, object]) -> None:
    paths = sorted(CRAN.glob("runs/*/*.txt"))
    runs = {run_name(p): Run.read(p) for p in paths}
    fast, slow = _both(runs, **kw)
    assert len(fast) > 0
    assert fast.entries == slow.entries


# Runs with many tied scores (few distinct values), short runs and missing topics.
_docs = st.lists(st.tuples(st.sampled_from([f"d{i}" for i in range(12)]),
                           st.sampled_from([0.5, 1.0, 2.0])),
                 min_size=1, max_size=10, unique_by=lambda x: x[0])
_runs = st.dictionaries(st.sampled_from(["r1", "r2", "r3", "r4"]),
                        st.dictionaries(st.sampled_from(["1", "2", "10", "q1"]), _docs,
                                        min_size=1, max_size=3),
                        min_size=1, max_size=4)


@settings(max_examples=examples(80), deadline=None)
@given(_runs, st.integers(1, 6), st.integers(1, 6), st.none() | st.integers(1, 8),
       st.booleans())
def test_tied_runs_fast_and_generic_paths_agree(spec: dict[str, dict[str, list[tuple[str, float]]]],
                                                depth: int, k: int, cut: int | None,
                                                total: bool) -> None:
    runs = {name: Run.read("".join(f"{t} Q0 {d} 0 {s} {name}\n" for t, docs in topics.items()
                                   for d, s in docs))
            for name, topics in spec.items()}
    budget = {"total": cut * 2} if total and cut else {"budget": cut}
    fast, slow = _both(runs, depth=depth, params={"depth": k}, **budget)
    assert fast.entries == slow.entries


def test_cli_takes_the_vectorised_path(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls = []
    real = FAST["depth"]

    def spy(*args: object, **kw: object) -> Pool:
        calls.append(args)
        return real(*args, **kw)

    monkeypatch.setitem(build.FAST, "depth", spy)

    def generic(*args: object, **kw: object) -> None:
        raise AssertionError("the generic path was taken")

    monkeypatch.setattr(build, "judging_order", generic)
    run = tmp_path / "a.txt"
    run.write_text("1 Q0 d1 1 2.0 a\n1 Q0 d2 2 1.0 a\n")
    code, out, err = run_cli(["pool", str(run), "--depth", "1"])
    assert code == 0, err
    assert len(calls) == 1
    assert out.splitlines()[1:] == ["1\td1\t1.0\ta:1"]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["1", "2", "q3"]), st.integers(1, 6),
                          st.sampled_from([0.5, 1.0, 2.0, 3.0])), min_size=1, max_size=20),
       st.booleans())
def test_rank_disagreements_vectorised_agrees_with_row_by_row(
        rows: list[tuple[str, int, float]], arrow: bool) -> None:
    from relkit.metrics.readers import io as _io
    from relkit.pooling.candidates import _rank_disagreements_rows, rank_disagreements

    text = "".join(f"{t} Q0 d{i} {k} {x} r\n" for i, (t, k, x) in enumerate(rows))
    old = _io.SMALL_INPUT_BYTES
    _io.SMALL_INPUT_BYTES = 0 if arrow else old   # both readers' column forms
    try:
        run = Run.read(text)
    finally:
        _io.SMALL_INPUT_BYTES = old
    assert rank_disagreements(run) == _rank_disagreements_rows(run)


def test_many_large_runs_read_with_arrow_same_pool(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """Above the small-input size together, runs are read by pyarrow: same pool."""
    from relkit.metrics.readers import io as _io

    paths = []
    for r in range(3):
        p = tmp_path / f"r{r}.txt"
        p.write_text("".join(f"{t} Q0 d{(d * (r + 3)) % 50} {d + 1} {50 - d} r{r}\n"
                             for t in (1, 2) for d in range(40)))
        paths.append(p)
    code, small, err = run_cli(["pool", *map(str, paths), "--depth", "7"])
    assert code == 0, err
    monkeypatch.setattr(_io, "SMALL_INPUT_BYTES", 100)
    code, big, err = run_cli(["pool", *map(str, paths), "--depth", "7"])
    assert code == 0, err
    assert big == small and _io.SMALL_INPUT_BYTES == 100


def test_pool_imports_no_pandas_on_either_reader_path(tmp_path: Path) -> None:
    """`relkit pool` needs neither pandas nor the database stack (~0.3 s and more)."""
    import json
    import subprocess
    import sys

    runs = []
    for r in range(2):
        p = tmp_path / f"r{r}.txt"
        p.write_text("".join(f"{t} Q0 d{d} {d + 1} {50 - d} r{r}\n"
                             for t in (1, 2) for d in range(30)))
        runs.append(str(p))
    probe = ("import json, sys\nfrom relkit.metrics.readers import io\n"
             "io.SMALL_INPUT_BYTES = int(sys.argv[1])\nfrom relkit.judging.cli import main\n"
             "code = main(sys.argv[2:])\nprint(json.dumps([code, sorted({m.split('.')[0] "
             "for m in sys.modules})]))")
    for small in (0, 8 << 20):          # pyarrow's reader, then the small-input one
        proc = subprocess.run([sys.executable, "-c", probe, str(small), "pool", *runs,
                               "--depth", "5", "-o", str(tmp_path / "p.tsv")],
                              capture_output=True, text=True, timeout=120)
        code, modules = json.loads(proc.stdout.strip().splitlines()[-1])
        assert code == 0, proc.stderr
        assert not set(modules) & {"pandas", "sqlalchemy", "sqlmodel", "textual"}, small
