"""The pyarrow reader's own UTF-8 check gives the same results and errors as before.

pyarrow's CSV reader runs with ``check_utf8=False`` (its per-value check was a fifth of
reading a 10M-line run); :func:`relkit.metrics.readers.arrow_reader._irregular_column`
checks each string column instead: ASCII by one ``max`` per data buffer, anything else
by pyarrow's ``validate(full=True)``. Files with bytes that are not UTF-8 in any field
must still go to the checking parser and fail with its error, and valid non-ASCII ids
(unicode, long, leading zeros) must read exactly as on the small-input path. Inputs are
bytes written to files, so every column gets odd bytes; duplicates and tied scores are
drawn too, and the evaluation of readable ones is compared across the paths.
"""

from __future__ import annotations

import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import RelkitError
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.readers import io as _io
from relkit.metrics.readers.fields import _Fields

FAST = settings(max_examples=examples(60), deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@contextmanager
def form(name: str) -> Iterator[None]:
    """``small`` (numpy), ``checking`` (line parser) or ``arrow`` (pyarrow reader)."""
    saved = _io.SMALL_INPUT_BYTES, _Fields.split
    try:
        if name == "checking":
            _Fields.split = classmethod(lambda cls, data, widths: None)  # type: ignore
        elif name == "arrow":
            _io.SMALL_INPUT_BYTES = 0
        yield
    finally:
        _io.SMALL_INPUT_BYTES, _Fields.split = saved


FORMS = ("small", "checking", "arrow")

NOT_UTF8 = [b"\xff", b"\xc3", b"\xc0\xaf", b"\xed\xa0\x80", b"a\x80b", b"\xf4\x90\x80\x80"]
IDS = st.one_of(
    st.sampled_from([b"q1", b"007", b"0", b"D0001", b"\xc3\xa9", "中文".encode(),
                     "\U0001f600".encode(), b"x" * 200, b"y" * 300, b"a\xc2\xa0b"]),
    st.sampled_from(NOT_UTF8),
    st.text(st.characters(blacklist_categories=("Cs", "Zs", "Zl", "Zp", "Cc")),
            min_size=1, max_size=6).map(str.encode),
)


@st.composite
def run_bytes(draw: st.DrawFn) -> bytes:
    sep = draw(st.sampled_from([b" ", b"\t"]))
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        score = draw(st.sampled_from([b"1", b"2.5", b"2.5", b"-0", b"3"]))  # ties
        fields = [draw(IDS), draw(st.sampled_from([b"Q0", b"0", b"\xff"])), draw(IDS),
                  draw(st.sampled_from([b"1", b"2", b"\xe2\x82"])), score, draw(IDS)]
        rows.append(sep.join(fields))
    if draw(st.booleans()):
        rows.append(rows[0])                      # a duplicate line
    return b"\n".join(rows) + b"\n"


@st.composite
def qrels_bytes(draw: st.DrawFn) -> bytes:
    rows = [b" ".join([draw(IDS), draw(st.sampled_from([b"0", b"\xff"])), draw(IDS),
                       draw(st.sampled_from([b"0", b"1", b"2"]))])
            for _ in range(draw(st.integers(1, 8)))]
    return b"\n".join(rows) + b"\n"


def _read(reader: Callable[[Path], Any], path: Path) -> object:
    try:
        r = reader(path)
    except RelkitError as exc:
        return type(exc).__name__, str(exc)
    return r.table.to_pylist(), [r.line_of(i) for i in range(len(r))], getattr(r, "name", None)


def _agree(reader: Callable[[Path], Any], data: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "input.txt"
        path.write_bytes(data)
        seen = {}
        for name in FORMS:
            with form(name):
                seen[name] = _read(reader, path)
    for name in FORMS[1:]:
        assert seen[name] == seen["small"], (name, data)


@FAST
@given(run_bytes())
def test_run_paths_agree_on_any_bytes(data: bytes) -> None:
    _agree(Run.read, data)


@FAST
@given(qrels_bytes())
def test_qrels_paths_agree_on_any_bytes(data: bytes) -> None:
    _agree(Qrels.read, data)


@settings(FAST, max_examples=examples(30))
@given(run_bytes(), qrels_bytes())
def test_evaluation_agrees_on_every_path(run: bytes, qrels: bytes) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        rp, qp = Path(tmp) / "run.txt", Path(tmp) / "qrels.txt"
        rp.write_bytes(run)
        qp.write_bytes(qrels)
        seen = {}
        for name in FORMS:
            with form(name):
                try:
                    res = Evaluator(Qrels.read(qp), ["AP", "P@2", "nDCG@3"]).compute(
                        Run.read(rp))
                    seen[name] = (res.topics, [v.tolist() for v in res.values], res.to_dict())
                except RelkitError as exc:
                    seen[name] = (type(exc).__name__, str(exc))
    for name in FORMS[1:]:
        assert seen[name] == seen["small"], (name, run, qrels)


def test_non_ascii_utf8_in_every_run_column_reads_on_the_arrow_path() -> None:
    """Valid UTF-8 above ASCII goes through pyarrow's check and is kept."""
    data = "é Q0 中文 1 2.5 rün\né Q0 0007 2 2.5 rün\n".encode()
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "run.txt"
        path.write_bytes(data)
        with form("arrow"):
            run = Run.read(path)
    assert run.table.column("doc_id").to_pylist() == ["中文", "0007"]
    assert run.name == "rün"
