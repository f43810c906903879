"""One meaning for -1 (``relkit.metrics.readers.grades``): "pooled, not judged", in
``relkit eval``, ``pool-coverage`` and ``pool-simulate`` alike.

Before the rule, pool-simulate read Cranfield's -1 as a judgment of non-relevance, so
once a strategy had judged the whole pool its Judged@10 (1.0 here) disagreed with
pool-coverage's on the very same judgments (0.77).
"""

from __future__ import annotations

import statistics
from pathlib import Path

from helpers import SHARED, run_cli
from relkit.metrics.data import Qrels, Run
from relkit.metrics.readers.grades import NOT_JUDGED, is_judged, relevance
from relkit.pooling.coverage import coverage
from relkit.pooling.depth import depth_pool
from relkit.pooling.simulate import Plan, simulate

CRAN = SHARED / "corpora" / "cranfield"


def _setup(tmp: Path) -> tuple[Path, list[Path], int]:
    """Cranfield's depth-10 pool judged: cranqrel's grades (its -1 kept), absent
    documents 0; returns the qrels file, the run files and the largest pool."""
    paths = sorted(CRAN.glob("runs/*/*.txt"))
    runs = {p.stem: Run.read(p) for p in paths}
    pool = depth_pool(runs, 10)
    q = Qrels.read(CRAN / "cranqrel").arrow()
    g: dict[str, dict[str, int]] = {}
    for t, d, r in zip(q["query_id"].to_pylist(), q["doc_id"].to_pylist(),
                       q["relevance"].to_pylist(), strict=True):
        g.setdefault(t, {})[d] = int(r)
    lines = [f"{e.topic} 0 {e.doc} {g.get(e.topic, {}).get(e.doc, 0)}" for e in pool]
    f = tmp / "judged.qrels"
    f.write_text("\n".join(lines) + "\n")
    assert any(x.endswith(" -1") for x in lines)
    return f, paths, max(pool.sizes().values())


def test_rule() -> None:
    assert NOT_JUDGED == -1 and not is_judged(NOT_JUDGED) and is_judged(0)
    assert relevance(NOT_JUDGED) == 0 and relevance(3) == 3


def test_pool_simulate_and_pool_coverage_agree_on_judged_at_10(tmp_path: Path) -> None:
    qrels_file, paths, biggest = _setup(tmp_path)
    qrels = Qrels.read(qrels_file)
    runs = {p.stem: Run.read(p) for p in paths}
    cov = statistics.fmean(r["Judged@10"] for r in coverage(qrels, runs, [10]).values())
    for plan in (Plan("depth", "depth", {}), Plan("mtf", "mtf", {})):
        sim = simulate(qrels, runs, [plan], [biggest], depth=10)
        assert sim.rows[0].judged_at_10 == cov, plan.label   # same judgments, same number
    assert 0.5 < cov < 0.95                                     # the -1 are not judged


def test_the_two_commands_agree(tmp_path: Path) -> None:
    qrels_file, paths, biggest = _setup(tmp_path)
    runs = [str(p) for p in paths]
    code, out, err = run_cli(["pool-coverage", str(qrels_file), *runs, "-k", "10"])
    assert code == 0, err
    rows = [x.split("\t") for x in out.splitlines()]
    col = rows[0].index("Judged@10")
    cov = statistics.fmean(float(r[col]) for r in rows[1:])
    code, out, err = run_cli(["pool-simulate", str(qrels_file), *runs, "-s", "depth",
                              "--budget", str(biggest), "--depth", "10", "--format", "json"])
    assert code == 0, err
    import json

    sim = json.loads(out)
    assert abs(sim[0]["judged@10"] - cov) < 1e-4      # coverage prints 4 decimals
