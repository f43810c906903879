"""ERR against nDCG on the same input: relkit's new measures are no slower than its nDCG.

Usage::

    .venv/bin/python bench/measures_bench.py [--queries 10000] [--docs 1000] [--repeat 5]

The run and qrels come from ``bench/gen.py`` (cached in ``bench/data/<q>x<d>/``): 10,000
topics x 1,000 documents by default, grades 0-3. Both are read once; then, taking turns,
each measure and its peer are evaluated ``--repeat`` times (default 5) and the best
time of each is kept, two ways:

* end to end: ``Evaluator(qrels, [m]).compute(run)`` (ranking the run included, as
  ``relkit eval`` does it);
* the measure alone: its function on a context whose ranking is already made.

The issue's target: ERR within 1.5x relkit's nDCG time on the same input (ERR@10
against nDCG@10, ERR against the whole-ranking nDCG). The C/W/L measures and Compat
are timed too, against the same nDCG, for the record (no target).
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
TARGET = 1.5
PAIRS = [("ERR@10", "nDCG@10"), ("ERR", "nDCG")]
OTHERS = ["INST(T=3.0)", "RBP(p=0.8)", "SDCG@10", "NERR10(p=0.9)", "Compat"]


def _data(queries: int, docs: int) -> Path:
    out = BENCH / "data" / f"{queries}x{docs}"
    if not (out / "run.txt").exists():
        subprocess.run([sys.executable, str(BENCH / "gen.py"), "--queries", str(queries),
                        "--docs", str(docs), "--out", str(out)], check=True)
    return out


def _best_pair(a, b, repeat: int) -> tuple[float, float]:  # type: ignore[no-untyped-def]
    """Best times of ``a`` and ``b``, run in turns (a, b, a, b...) so a change in the
    machine's load hits both."""
    ta, tb = [], []
    for _ in range(repeat):
        for fn, times in ((a, ta), (b, tb)):
            t0 = time.perf_counter()
            fn()
            times.append(time.perf_counter() - t0)
    return min(ta), min(tb)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--queries", type=int, default=10_000)
    ap.add_argument("--docs", type=int, default=1_000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--others", action="store_true", help="time the C/W/L measures too")
    args = ap.parse_args(argv)

    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.evaluator import CHUNK_ROWS, Evaluator
    from relkit.metrics.measures.base import REGISTRY
    from relkit.metrics.measures.context import Ctx
    from relkit.metrics.names import parse_measure
    from relkit.metrics.ranking import rank

    data = _data(args.queries, args.docs)
    run = Run.read(data / "run.txt")
    qrels = Qrels.read(data / "qrels.txt")
    print(f"{args.queries:,} topics x {args.docs:,} documents ({len(run):,} run lines); "
          f"best of {args.repeat}; chunks of {CHUNK_ROWS:,} rows end to end")

    ev = Evaluator(qrels, ["P@10"])
    ranked = rank(run, ev.judged)

    def alone(name: str):  # type: ignore[no-untyped-def]
        (m,) = parse_measure(name)
        fn = REGISTRY[m.family].compute
        return lambda: fn(Ctx(ranked, ev.judged), m.value)

    def whole(name: str):  # type: ignore[no-untyped-def]
        e = Evaluator(qrels, [name])
        return lambda: e.compute(run)

    print(f"{'measure':<16}{'end to end s':>14}{'alone s':>10}   peer        "
          f"{'end to end s':>14}{'alone s':>10}{'ratio e2e':>11}{'ratio alone':>13}")
    ok = True
    rows = [(a, b) for a, b in PAIRS]
    if args.others:
        rows += [(o, "nDCG@10") for o in OTHERS]
    for ours, peer in rows:
        te, tp = _best_pair(whole(ours), whole(peer), args.repeat)
        ae, ap_ = _best_pair(alone(ours), alone(peer), args.repeat)
        print(f"{ours:<16}{te:>14.3f}{ae:>10.3f}   {peer:<12}{tp:>14.3f}{ap_:>10.3f}"
              f"{te / tp:>11.2f}{ae / ap_:>13.2f}")
        if (ours, peer) in PAIRS:
            ok &= te / tp <= TARGET
    print(f"target: ERR within {TARGET}x nDCG end to end: {'met' if ok else 'NOT met'}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
