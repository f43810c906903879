"""The pandas-free way to trec_eval's summary: ``Evaluator.compute(run).to_dict()``.

``Evaluator.aggregate`` returns a pandas ``Series``, and importing pandas is most of a
small script's time (docs/performance.md, "The Python API's three jobs"): the summary as
a dict, through ``compute``, must give the same numbers without importing pandas.
"""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from relkit.metrics.evaluator import Evaluator

MEASURES = ["P@10", "nDCG@10", "AP", "num_rel_ret", "gm_map"]

SCRIPT = """
import sys
from relkit.metrics.evaluator import Evaluator
means = Evaluator(sys.argv[1], {measures!r}, compat=9).compute(sys.argv[2]).to_dict()
print(repr({{k: v.hex() for k, v in means.items()}}))
print(sorted(m for m in sys.modules if m.split(".")[0] == "pandas"))
"""


def _files(tmp_path: Path) -> tuple[Path, Path]:
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text("".join(f"q{t} 0 d{d} {(d * 7 + t) % 3}\n"
                             for t in range(1, 6) for d in range(0, 30, 2)))
    run.write_text("".join(f"q{t} Q0 d{d} {r} {100 - r - (d % 4) * 0.25} s\n"
                           for t in range(1, 6)
                           for r, d in enumerate(range(t, 40 + t), 1)))
    return qrels, run


def test_compute_to_dict_is_aggregate_without_pandas(tmp_path: Path) -> None:
    qrels, run = _files(tmp_path)
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(measures=MEASURES),
                           str(qrels), str(run)], capture_output=True, text=True, check=True)
    hexes, loaded = proc.stdout.splitlines()
    assert ast.literal_eval(loaded) == []
    got = {k: float.fromhex(v) for k, v in ast.literal_eval(hexes).items()}
    expected = Evaluator(str(qrels), MEASURES, compat=9).aggregate(str(run)).to_dict()
    assert list(got) == list(expected) and len(got) == len(MEASURES)
    assert got == expected      # bit for bit (hex round trip)
