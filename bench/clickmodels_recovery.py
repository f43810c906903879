"""Parameter recovery of the click models on 10^6 simulated sessions: the table.

Usage: python bench/clickmodels_recovery.py [--sessions 1000000] [--models pbm,ubm,...]

Each model is fitted (150 EM iterations) on a log simulated from known parameters: 5
queries of 10 documents at depth 10 (DBN: 2 queries, so that every satisfaction
parameter has at least 16,000 clicks), and every parameter seen at least 10^4 times is
compared with the truth. The rows: model, parameter family, how many parameters were
seen that often, the largest absolute error, the bound (0.01) and the CPU seconds of the
fit. The definitions are tests/clickmodel_recovery.py's, which tests/test_clickmodels.py
asserts on logs of 200k-300k sessions at depth 4-5 (these 10^6-session runs took about
70 CPU-s a model, as long as the rest of the fast test loop together, so they live here).
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

from clickmodel_recovery import TOL, errors, log  # noqa: E402
from relkit.metrics.online.clickmodels.registry import MODELS  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sessions", type=int, default=1_000_000)
    ap.add_argument("--models", default="pbm,ubm,dcm,ccm,dbn")
    ap.add_argument("--iterations", type=int, default=150)
    args = ap.parse_args()
    print(f"{'model':6} {'family':7} {'seen':>5} {'max error':>10} {'bound':>6} "
          f"{'CPU s':>6}  ok")
    bad = 0
    for kind in args.models.split(","):
        docs = [10] * 2 if kind == "dbn" else [10] * 5
        truth, data = log(kind, args.sessions, docs, 10, seed=11)
        t0 = time.process_time()
        fitted = MODELS[kind]().fit(data, iterations=args.iterations, seed=2)
        cpu = time.process_time() - t0
        for name, (seen, err) in errors(truth, fitted, data, kind).items():
            ok = seen > 0 and err < TOL
            bad += not ok
            print(f"{kind:6} {name:7} {seen:5d} {err:10.5f} {TOL:6.2f} {cpu:6.1f}  "
                  f"{'yes' if ok else 'NO'}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
