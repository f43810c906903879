"""The streamed reading of a large run (``relkit eval`` evaluating while it reads)
against the whole-file reader: the same rows and lines, the same chunks' values, and
the whole-file path (its result or its error) whenever the stream refuses the file.

Blocks and chunks are made tiny so that every edge is met on small files: a topic split
across blocks, a line longer than a block, CRLF line ends, a last line without newline,
and irregular lines after some blocks were evaluated already.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics import evaluator as _evaluator
from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import RelkitError
from relkit.metrics.eval.streamed import compute_streamed
from relkit.metrics.evaluator import Evaluator, Result
from relkit.metrics.readers import io as _io
from relkit.metrics.readers import run_stream
from relkit.metrics.readers.run_stream import NotStreamable, open_run_stream
from relkit.metrics.trec_eval.format import lines

MEASURES = ["map", "ndcg_cut.10", "ndcg", "P.10", "recall.100", "recip_rank", "Rprec"]
QRELS = "".join(f"q{t} 0 d{d} {(t + d) % 3}\n" for t in range(1, 6) for d in range(0, 12, 2))
FEW = settings(max_examples=examples(60), deadline=None, derandomize=True,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])


@pytest.fixture
def tiny(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Every file is 'large', blocks are 64 bytes, chunks 5 rows."""
    monkeypatch.setattr(_io, "SMALL_INPUT_BYTES", 0)
    monkeypatch.setattr(run_stream, "BLOCK_BYTES", 64)
    monkeypatch.setattr(_evaluator, "CHUNK_ROWS", 5)
    yield


def _run_text(topics: list[tuple[str, int]], sep: str = " ", end: str = "\n") -> str:
    rows = []
    for t, n in topics:
        rows += [f"{t}{sep}Q0{sep}d{i}{sep}{i + 1}{sep}{10 - i * 0.5:g}{sep}tag"
                 for i in range(n)]
    return end.join(rows) + end


def _write(tmp: Path, text: str | bytes, name: str = "run.txt") -> Path:
    path = tmp / name
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    return path


def _streamed_rows(path: Path) -> tuple[list[tuple[str, str, float]], str]:
    stream = open_run_stream(path)
    assert stream is not None
    rows = []
    for block in list(stream):      # all held at once: none refers to the reader's buffer
        rows += list(zip(*(block.column(c).to_pylist() for c in _io.EVAL_FIELDS),
                         strict=True))
    return rows, stream.run_id


def _whole_rows(path: Path) -> tuple[list[tuple[str, str, float]], str]:
    run = Run.read(path, eval_only=True)
    cols = [run.table.column(c).to_pylist() for c in _io.EVAL_FIELDS]
    return list(zip(*cols, strict=True)), run.name


def _lines(res: Result) -> list[str]:
    return list(lines(res, per_query=True, summary=True, compat=10))


def _evaluated(qrels: Path, path: Path, **options: object) -> object:
    """The streamed result's trec_eval lines, and the whole-file path's (or errors)."""
    ev = Evaluator(Qrels.read(qrels), MEASURES, **options)  # type: ignore[arg-type]
    try:
        streamed = compute_streamed(ev, path)
        got = None if streamed is None else _lines(streamed)
    except RelkitError as exc:
        got = (type(exc).__name__, str(exc))
    try:
        want = _lines(ev.compute(Run.read(path, eval_only=True)))
    except RelkitError as exc:
        want = (type(exc).__name__, str(exc))
    return got, want


# ---- the blocks ----------------------------------------------------------------------


@pytest.mark.parametrize("sep", [" ", "\t"])
@pytest.mark.parametrize("end", ["\n", "\r\n", "no newline"])
def test_blocks_hold_the_whole_files_rows(tiny: None, tmp_path: Path, sep: str,
                                          end: str) -> None:
    """A topic split across blocks, CRLF, the last line without its newline."""
    text = _run_text([("q1", 7), ("q2", 1), ("q3", 12)], sep, "\r\n" if end == "\r\n" else "\n")
    if end == "no newline":
        text = text.rstrip("\n")
    path = _write(tmp_path, text)
    assert _streamed_rows(path) == _whole_rows(path)


def test_a_line_longer_than_a_block(tiny: None, tmp_path: Path) -> None:
    text = _run_text([("q1", 2)]) + f"q2 Q0 {'d' * 300} 1 1.5 tag\n" + _run_text([("q3", 3)])
    path = _write(tmp_path, text)
    assert _streamed_rows(path) == _whole_rows(path)


def test_line_blocks_cut_only_after_newlines(tmp_path: Path) -> None:
    import pyarrow as pa

    data = b"".join(b"x" * (i % 37) + b"\n" for i in range(200)) + b"tail"
    path = _write(tmp_path, data)
    for size in (1, 16, 64, 1000, 1 << 20):
        with pa.OSFile(str(path)) as fh:     # (each block is copied before the next)
            blocks = [b.to_pybytes() for b in run_stream._line_blocks(fh, size)]
        assert b"".join(blocks) == data
        assert all(b.endswith(b"\n") for b in blocks[:-1])


@pytest.mark.parametrize("text", [
    "# a comment\n" + _run_text([("q1", 3)]),          # the checking parser's
    _run_text([("q1", 3)]).replace(" ", "  ", 1),       # a doubled space
    _run_text([("q1", 3)]) + "q2 Q0 d1 1\n",            # a short last line
    "",
])
def test_files_the_stream_refuses(tiny: None, tmp_path: Path, text: str) -> None:
    """Refused when opened (the bytes) or when read (a parsed block)."""
    stream = open_run_stream(_write(tmp_path, text))
    if stream is not None:
        with pytest.raises(NotStreamable):
            list(stream)


@pytest.mark.parametrize("bad", [
    "q9 Q0  d1 1 1.0 tag\n",        # an empty field, after several blocks
    "q9 Q0 d1 1 nan tag\n",         # NaN
    "q9 Q0 d1 1 1.0\n",             # five fields
    "#q9 Q0 d1 1 1.0 tag\n",        # a comment line
    "q9 Q0 d\xff1 1 1.0 tag\n",     # not UTF-8 (latin-1 written below)
])
def test_an_irregular_line_late_in_the_file(tiny: None, tmp_path: Path, bad: str) -> None:
    text = _run_text([("q1", 10), ("q2", 10)]) + bad + _run_text([("q3", 2)])
    path = _write(tmp_path, text.encode("latin-1"))
    stream = open_run_stream(path)
    assert stream is not None
    with pytest.raises(NotStreamable):
        list(stream)
    qrels = _write(tmp_path, QRELS, "qrels.txt")
    got, want = _evaluated(qrels, path)
    assert got is None and want is not None     # the whole-file path decides


def test_an_abandoned_stream_leaves_no_thread(tiny: None, tmp_path: Path) -> None:
    import threading

    path = _write(tmp_path, _run_text([("q1", 40), ("q2", 40)]))
    stream = open_run_stream(path)
    assert stream is not None
    blocks = iter(stream)
    next(blocks)
    blocks.close()    # type: ignore[attr-defined]
    assert not [t for t in threading.enumerate() if t.name == "relkit-run-reader"]


# ---- the evaluation ------------------------------------------------------------------


@FEW
@given(st.lists(st.tuples(st.sampled_from(["q1", "q2", "q3", "q4", "q5", "q6"]),
                          st.integers(1, 9)), min_size=1, max_size=8),
       st.integers(0, 3), st.booleans())
def test_streamed_values_are_the_whole_files(tiny: None, tmp_path: Path,
                                             topics: list[tuple[str, int]], seed: int,
                                             crlf: bool) -> None:
    """Random runs: topics repeated (not contiguous: refused), unjudged topics (q6),
    tied scores, and duplicate documents (seed 3: the same error either way)."""
    rng = np.random.default_rng(seed)
    rows = []
    for t, n in topics:
        docs = rng.permutation(14)[:n]
        if seed == 3:
            docs[-1] = docs[0]                 # a duplicate document (when n > 1)
        scores = np.sort(rng.integers(0, 4, n))[::-1]
        rows += [f"{t} Q0 d{d} {i + 1} {s} tag"
                 for i, (d, s) in enumerate(zip(docs, scores, strict=True))]
    path = _write(tmp_path, ("\r\n" if crlf else "\n").join(rows) + "\n")
    qrels = _write(tmp_path, QRELS, "qrels.txt")
    got, want = _evaluated(qrels, path)
    seen = [t for i, (t, _) in enumerate(topics) if i == 0 or topics[i - 1][0] != t]
    if len(set(seen)) < len(seen):
        assert got is None or got == want     # a topic in two places: the whole file's
    else:
        assert got == want


def test_complete_is_left_to_the_whole_file(tiny: None, tmp_path: Path) -> None:
    path = _write(tmp_path, _run_text([("q1", 7), ("q2", 4)]))
    qrels = _write(tmp_path, QRELS, "qrels.txt")
    got, want = _evaluated(qrels, path, complete=True)
    assert got is None and isinstance(want, list)


def test_the_cli_prints_the_same_either_way(tmp_path: Path) -> None:
    """Whole processes: streamed (every file 'large', tiny blocks) and not."""
    path = _write(tmp_path, _run_text([("q1", 30), ("q2", 25), ("q3", 40), ("q4", 3)]))
    qrels = _write(tmp_path, QRELS, "qrels.txt")
    args = ["eval", "-q", *[a for m in MEASURES for a in ("-m", m)], str(qrels), str(path)]
    a = subprocess.run([sys.executable, "-c", STREAMED_CLI, *args], capture_output=True,
                       text=True)
    b = subprocess.run([sys.executable, "-m", "relkit", *args], capture_output=True, text=True)
    assert a.returncode == b.returncode == 0, a.stderr + b.stderr
    assert a.stdout == b.stdout


STREAMED_CLI = ("import sys; import relkit.metrics.readers.io as io; io.SMALL_INPUT_BYTES = 0; "
                "import relkit.metrics.readers.run_stream as rs; rs.BLOCK_BYTES = 100; "
                "from relkit.judging.cli import main; sys.exit(main(sys.argv[1:]))")


@pytest.mark.parametrize("qrels_text", ["q1 0 d1 x\n", "q1 0 d1 1\nq1 0 d1 2\n"])
def test_bad_qrels_while_the_run_is_parsed_already(tmp_path: Path, qrels_text: str) -> None:
    """The first run parses while the qrels are read: their error is the same, and the
    process ends (the reader thread is stopped)."""
    path = _write(tmp_path, _run_text([("q1", 60), ("q2", 60)]))
    qrels = _write(tmp_path, qrels_text, "qrels.txt")
    args = ["eval", "-m", "map", str(qrels), str(path)]
    a = subprocess.run([sys.executable, "-c", STREAMED_CLI, *args], capture_output=True,
                       text=True, timeout=120)
    b = subprocess.run([sys.executable, "-m", "relkit", *args], capture_output=True,
                       text=True, timeout=120)
    assert a.returncode == b.returncode != 0
    assert a.stderr == b.stderr and a.stdout == b.stdout


def test_no_reader_thread_outlives_the_command(tiny: None, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    import threading

    from relkit.judging.cli import main

    path = _write(tmp_path, _run_text([("q1", 30), ("q2", 30)]))
    good = _write(tmp_path, QRELS, "qrels.txt")
    bad = _write(tmp_path, "q1 0 d1 x\n", "bad.txt")
    assert main(["eval", "-m", "map", str(good), str(path)]) == 0
    assert main(["eval", "-m", "map", str(bad), str(path)]) != 0
    # a -Z file missing or not a z-scores file: refused after the run began parsing
    assert main(["eval", "-m", "map", "-Z", str(tmp_path / "none.z"), str(good),
                 str(path)]) != 0
    assert main(["eval", "-m", "map", "-Z", str(bad), str(good), str(path)]) != 0
    capsys.readouterr()
    assert not [t for t in threading.enumerate() if t.name == "relkit-run-reader"]


@pytest.mark.parametrize("preset", [None, "25"])
def test_allocators_keep_freed_memory(preset: str | None) -> None:
    """glibc's thresholds set (on glibc), mimalloc's purge delay set before pyarrow loads
    unless the user set it, huge pages off; a second call changes nothing."""
    import os

    code = ("import os, sys; from relkit.metrics.eval.heap import keep_freed_memory; "
            "a = keep_freed_memory(); b = keep_freed_memory(); "
            "thp = [l.split()[1] for l in open('/proc/self/status') if l.startswith("
            "'THP_enabled')] if sys.platform.startswith('linux') else ['0']; "
            "print(a, b, os.environ.get('MIMALLOC_PURGE_DELAY'), 'pyarrow' in sys.modules, "
            "*thp[:1])")
    env = {k: v for k, v in os.environ.items() if k != "MIMALLOC_PURGE_DELAY"}
    if preset is not None:
        env["MIMALLOC_PURGE_DELAY"] = preset
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=env, check=True).stdout.split()
    glibc = sys.platform.startswith("linux") and os.confstr("CS_GNU_LIBC_VERSION")
    assert out[:4] == [str(bool(glibc))] * 2 + [preset or "-1", "False"]
    assert out[4:] in ([], ["0"])     # no transparent huge pages (where the kernel says)
