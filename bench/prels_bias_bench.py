"""Bias of xinfAP's two smoothings on stratified samples of a real collection (Cranfield).

Usage::

    .venv/bin/python bench/prels_bias_bench.py [--samples 200] [--depth 50]
                                               [--strata 10:1,30:0.5,100:0.1 ...]

The collection: Cranfield's six real Lucene runs (``shared/corpora/cranfield``,
225 topics, 50 documents each), pooled to ``--depth`` (50: every retrieved
document), the pooled documents graded from ``cranqrel`` (absent or -1: judged
non-relevant, as ``tests/test_inferred.py`` reads them). For each design
(``--strata``, pool-sample's syntax; the default is pool-sample's own) and each
seed ``0 .. samples-1``, a stratified sample is drawn and written as prels by
the code ``relkit pool-sample --seed S --qrels --prels`` runs
(:func:`relkit.pooling.sample.stratified_sample`, :func:`sample_prels`; seed 0
is also drawn through the command itself, and the prels must be identical). Each
run's MAP is then estimated with xinfAP under NIST's smoothing
(``sample_eval``, the default) and trec_eval's (``trec_eval``).

Printed per design:

* each run's relative bias: the mean over the samples of the estimated MAP over
  the MAP under full judgment of the sampled universe (trec_eval's ``map``), minus 1;
  then the mean over runs and the largest;
* how far the two smoothings are apart on one sample (seed 0): the largest
  per-topic difference, and how many of the six ``all`` lines differ at
  ``relkit eval``'s 4 printed decimals.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CRAN = ROOT.parent / "shared" / "corpora" / "cranfield"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--samples", type=int, default=200)
    ap.add_argument("--depth", type=int, default=50)
    ap.add_argument("--strata", nargs="+", default=["10:1,30:0.5,100:0.1", "5:1,20:0.3,50:0.1"])
    args = ap.parse_args()

    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.inferred.measures import ranked, xinf_ap
    from relkit.pooling.depth import depth_pool
    from relkit.pooling.sample import parse_strata, sample_prels, stratified_sample, universe

    paths = sorted(CRAN.glob("runs/*/*.txt"))
    runs = {p.stem: Run.read(p) for p in paths}
    order = {n: ranked(r) for n, r in runs.items()}
    pool = depth_pool(runs, args.depth)
    judged = Qrels.read(CRAN / "cranqrel").to_dict()
    grades = {t: {e.doc: max(judged.get(t, {}).get(e.doc, 0), 0) for e in pool.for_topic(t)}
              for t in pool.topics()}
    print(f"Cranfield: {len(runs)} runs, {len(pool.topics())} topics, depth-{args.depth} "
          f"pool of {len(pool):,} documents; {args.samples} samples per design")
    for design in args.strata:
        strata = parse_strata(design)
        _same_as_pool_sample(pool, strata, grades, paths, args.depth, design)
        full = {t: {d: grades[t][d] for d in docs} for t, docs in universe(pool, strata).items()}
        ev = Evaluator(Qrels.from_dict(full), ["map"])
        truth = {n: float(ev.aggregate(r).iloc[0]) for n, r in runs.items()}
        sums = {(s, n): 0.0 for s in ("sample_eval", "trec_eval") for n in runs}
        gap, differ = 0.0, 0
        for seed in range(args.samples):
            p = sample_prels(pool, strata, stratified_sample(pool, strata, seed), grades)
            for n in runs:
                got = {s: xinf_ap(order[n], p, smoothing=s)   # type: ignore[arg-type]
                       for s in ("sample_eval", "trec_eval")}
                for s, v in got.items():
                    sums[(s, n)] += statistics.fmean(v.values())
                if seed == 0:
                    a, b = got["sample_eval"], got["trec_eval"]
                    gap = max(gap, max(abs(a[t] - b[t]) for t in a))
                    differ += (f"{statistics.fmean(a.values()):6.4f}"
                               != f"{statistics.fmean(b.values()):6.4f}")
        print(f"\ndesign {design}")
        print(f"{'run':<36} {'MAP (full)':>10} {'sample_eval':>12} {'trec_eval':>10}")
        bias: dict[str, list[float]] = {"sample_eval": [], "trec_eval": []}
        for n in runs:
            for s in bias:
                bias[s].append(sums[(s, n)] / args.samples / truth[n] - 1)
            print(f"{n:<36} {truth[n]:>10.4f} {bias['sample_eval'][-1]:>+12.2%} "
                  f"{bias['trec_eval'][-1]:>+10.2%}")
        for s, b in bias.items():
            print(f"  {s:<12} bias: mean {statistics.fmean(b):+.2%}, max {max(b):+.2%}, "
                  f"largest |bias| {max(map(abs, b)):.2%}")
        print(f"  seed 0: the smoothings differ by up to {gap:.4f} per topic; "
              f"{differ} of {len(runs)} 'all' lines differ at 4 decimals")


def _same_as_pool_sample(pool: object, strata: list[tuple[int, float]],
                         grades: dict[str, dict[str, int]], paths: list[Path], depth: int,
                         design: str) -> None:
    """Seed 0 drawn by ``relkit pool``/``pool-sample`` themselves gives the same prels."""
    import subprocess

    from relkit.metrics.inferred.prels import Prels
    from relkit.pooling.sample import sample_prels, stratified_sample

    relkit = str(Path(sys.executable).with_name("relkit"))
    with tempfile.TemporaryDirectory() as tmp:
        d = Path(tmp)
        subprocess.run([relkit, "pool", *map(str, paths), "--strategy", "depth", "--depth",
                        str(depth), "-o", str(d / "pool.tsv")], check=True, capture_output=True)
        (d / "judged").write_text("".join(f"{t} 0 {doc} {g}\n" for t, docs in grades.items()
                                          for doc, g in docs.items()))
        subprocess.run([relkit, "pool-sample", str(d / "pool.tsv"), "--strata", design,
                        "--seed", "0", "--qrels", str(d / "judged"), "--prels",
                        str(d / "prels")], check=True, capture_output=True)
        mine = sample_prels(pool, strata, stratified_sample(pool, strata, 0),  # type: ignore[arg-type]
                            grades)
        if Prels.read(d / "prels").topics != mine.topics:
            raise SystemExit(f"pool-sample's prels differ from the library's ({design})")


if __name__ == "__main__":
    main()
