"""``relkit eval`` exits 0, every time: no abort at interpreter shutdown.

The bug this guards against: after printing correct output, about one ``relkit eval``
in a hundred died with SIGABRT (exit 134, "terminate called without an active
exception"). A core dump showed why: pyarrow's hash join (``Table.join``) handed its
last batches to a worker thread of Arrow's CPU pool, which dropped them *after* the
join had returned. Those batches wrapped numpy arrays, so the worker had to take the
GIL to release them; when that happened during ``Py_FinalizeEx``, CPython ended the
thread with ``pthread_exit``, which unwound through a C++ destructor and called
``std::terminate``. It is a race, so the test runs the same evaluation many times as
whole processes, several at once (contention widens the window), on both readers.
"""

from __future__ import annotations

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.conftest import ROOT

SAMPLE = ROOT / "corpora" / "sample"
RUNS = 300
# More processes than cores: a worker thread descheduled at the wrong moment is what
# the race needs, so oversubscription makes a regression show up sooner.
PARALLEL = max(4, 2 * (os.cpu_count() or 1))

# The CLI's own entry point, as the console script calls it; ``arrow`` forces the
# pyarrow reader and ranking path even for this small input.
ENTRY = ("import sys; import relkit.metrics.io as io; io.SMALL_INPUT_BYTES = {limit}; "
         "from relkit.judging.cli import main; sys.exit(main(sys.argv[1:]))")


def _run(limit: str) -> tuple[int, str]:
    cmd = [sys.executable, "-c", ENTRY.format(limit=limit), "eval", "-m", "all_trec",
           str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    return proc.returncode, proc.stderr.strip()[-300:]


@pytest.mark.slow
@pytest.mark.parametrize("reader", ["python", "arrow"])
def test_eval_always_exits_zero(reader: str) -> None:
    limit = "io.SMALL_INPUT_BYTES" if reader == "python" else "0"
    expected = subprocess.run(
        [sys.executable, "-m", "relkit", "eval", "-m", "all_trec", str(SAMPLE / "qrels.txt"),
         str(SAMPLE / "runs" / "bm25.txt")], capture_output=True, text=True, check=True)
    assert "map" in expected.stdout
    with ThreadPoolExecutor(PARALLEL) as pool:
        results = list(pool.map(_run, [limit] * (RUNS // 2)))
    failed = [(code, err) for code, err in results if code != 0]
    assert not failed, f"{len(failed)} of {len(results)} runs failed: {failed[:3]}"


def test_entry_forces_a_reader() -> None:
    """The ``arrow`` variant above really takes the pyarrow path (cheap check)."""
    code = ("import sys; import relkit.metrics.io as io; io.SMALL_INPUT_BYTES = 0; "
            "from relkit.judging.cli import main; rc = main(sys.argv[1:]); "
            "sys.stderr.write(str('pyarrow' in sys.modules)); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, "eval", str(SAMPLE / "qrels.txt"),
                           str(SAMPLE / "runs" / "bm25.txt")], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80"})
    assert proc.returncode == 0 and proc.stderr.endswith("True")


def test_small_eval_imports_no_pyarrow() -> None:
    code = ("import sys; from relkit.judging.cli import main; rc = main(sys.argv[1:]); "
            "sys.stderr.write(repr(sorted(m for m in ('pyarrow', 'pandas', 'scipy', 'pydantic',"
            " 'sqlalchemy', 'sqlmodel', 'alembic', 'textual', 'matplotlib') "
            "if m in sys.modules))); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, "eval", "-m", "all_trec",
                           str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")],
                          capture_output=True, text=True)
    assert proc.returncode == 0 and proc.stderr == "[]", proc.stderr
