"""The fast paths of ``relkit eval`` against the slow ones they stand in for.

Three readers feed the one ranking: the small-input reader (numpy over the bytes, no
pyarrow), pyarrow's CSV reader (large inputs) and the line-by-line checking parser
(anything irregular). Ranking works on fixed-width bytes, or on Arrow strings when an
id is too long for that form. Every combination must give the same columns, line
numbers, run ids, errors and evaluation output; the typer coercion without pydantic
must give typer's own values and errors; and small evaluations must not import the
heavy stacks.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import ROOT, examples
from relkit.metrics import pairs
from relkit.metrics.data import Qrels, Run
from relkit.metrics.errors import RelkitError
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.readers import io as _io
from relkit.metrics.readers.fields import _Fields
from relkit.metrics.trec_eval.format import lines

SAMPLE = ROOT / "corpora" / "sample"
FAST = settings(max_examples=examples(120), deadline=None, derandomize=True,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])

# ---- the forms ---------------------------------------------------------------------


@contextmanager
def form(name: str) -> Iterator[None]:
    """Read and rank with one path: ``small`` (numpy), ``checking`` (line parser),
    ``arrow`` (pyarrow reader, bytes ranking), ``strings`` (Arrow strings throughout)."""
    saved = _io.SMALL_INPUT_BYTES, _io.MAX_ID_BYTES, _Fields.split
    try:
        if name == "checking":
            _Fields.split = classmethod(lambda cls, data, widths: None)  # type: ignore
        elif name == "arrow":
            _io.SMALL_INPUT_BYTES = 0
        elif name == "strings":
            _io.SMALL_INPUT_BYTES, _io.MAX_ID_BYTES = 0, 0
        yield
    finally:
        _io.SMALL_INPUT_BYTES, _io.MAX_ID_BYTES, _Fields.split = saved


FORMS = ("small", "checking", "arrow", "strings")


def _read(reader: Callable[[str], Any], text: str) -> object:
    """What a reader makes of ``text``: rows as Python values, lines, name, or the error."""
    try:
        r = reader(text)
    except RelkitError as exc:
        return type(exc).__name__, str(exc)
    lines_ = [r.line_of(i) for i in range(len(r))]
    return r.table.to_pylist(), lines_, getattr(r, "name", None)


def _all_forms(reader: Callable[[str], Any], text: str) -> None:
    seen = {}
    for name in FORMS:
        with form(name):
            seen[name] = _read(reader, text)
    for name in FORMS[1:]:
        assert seen[name] == seen["small"], (name, text)


# ---- readers -----------------------------------------------------------------------

IDS = st.sampled_from(["q1", "q10", "2", "007", "é", "D1", "d-2", "x.y", "#h", "a\u00a0b"])
SEPS = st.sampled_from([" ", " ", " ", "\t", "  ", " \t", "\x0b"])
SCORE_TEXT = st.one_of(
    st.sampled_from(["1", "-0", "+2.5", ".5", "5.", "1e3", "-1E-2", "inf", "nan", "abc",
                     "0.1", "3.14159265358979", "12345678901234567", "1_0", "", "1.2.3"]),
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.decimals(allow_nan=False, allow_infinity=False, places=6).map(str),
)


@st.composite
def run_texts(draw: st.DrawFn) -> str:
    # half the texts are regular (one separator, six fields: the fast readers' case),
    # the rest mix separators, field counts, blank and comment lines
    regular = draw(st.booleans())
    one_sep = draw(st.sampled_from([" ", "\t"]))
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        fields = [draw(IDS), draw(st.sampled_from(["Q0", "0"])), draw(IDS),
                  str(draw(st.integers(0, 99))), draw(SCORE_TEXT), draw(IDS)]
        if regular:
            rows.append(one_sep.join(fields))
            continue
        fields = fields[:draw(st.sampled_from([6, 6, 6, 6, 5, 7]))] + (
            ["extra"] if draw(st.integers(0, 9)) == 0 else [])
        line = draw(SEPS).join(fields)
        if draw(st.integers(0, 12)) == 0:
            line = draw(st.sampled_from(["", "# comment", "   "]))
        rows.append(line)
    end = draw(st.sampled_from(["\n", "\r\n", "\n", ""]))      # "": no final line break
    return (end or "\n").join(rows) + end + ("" if len(rows) > 1 or end else "\n")


@st.composite
def qrels_texts(draw: st.DrawFn) -> str:
    regular = draw(st.booleans())
    one_sep = draw(st.sampled_from([" ", "\t"]))
    width = draw(st.sampled_from([4, 4, 3]))
    rows = []
    for _ in range(draw(st.integers(1, 8))):
        grade = draw(st.sampled_from(["0", "1", "2", "-1", "+3", "1.5", "x", "٣", "007"]))
        fields = [draw(IDS), "0", draw(IDS), grade]
        if width == 3:
            del fields[1]
        if not regular and draw(st.integers(0, 9)) == 0:
            fields = fields[:-1]                  # a short line
        rows.append((one_sep if regular else draw(SEPS)).join(fields))
    end = draw(st.sampled_from(["\n", "\r\n", ""]))            # "": no final line break
    return (end or "\n").join(rows) + end + ("" if len(rows) > 1 or end else "\n")


@FAST
@given(run_texts())
def test_run_readers_agree(text: str) -> None:
    _all_forms(Run.read, text)


@FAST
@given(qrels_texts())
def test_qrels_readers_agree(text: str) -> None:
    _all_forms(Qrels.read, text)


def test_readers_agree_on_files_and_gzip(tmp_path) -> None:  # noqa: ANN001
    import gzip

    text = (SAMPLE / "runs" / "bm25.txt").read_text()
    (tmp_path / "r.txt").write_text(text)
    (tmp_path / "r.txt.gz").write_bytes(gzip.compress(text.encode()))
    for name in FORMS:
        with form(name):
            a = Run.read(tmp_path / "r.txt").table
            b = Run.read(tmp_path / "r.txt.gz").table
        assert a.equals(b) and a.equals(Run.read(text).table), name


@FAST
@given(st.lists(st.one_of(
    st.floats(allow_nan=False, allow_infinity=False).map(repr),
    st.floats(allow_nan=False, allow_infinity=False, width=32).map(lambda x: f"{x:.7g}"),
    st.decimals(allow_nan=False, allow_infinity=False, places=4).map(str),
    st.integers(-10**17, 10**17).map(str),
    st.from_regex(r"[+-]?[0-9]{0,9}\.?[0-9]{0,12}", fullmatch=True).filter(bool),
), min_size=1, max_size=30))
def test_scores_are_exactly_what_float_gives(tokens: list[str]) -> None:
    text = "".join(f"q Q0 d{i} 0 {t} r\n" for i, t in enumerate(tokens))
    fields = _Fields.split(text.encode(), (6,))
    assert fields is not None
    try:
        want = np.array([float(t) for t in tokens])
    except ValueError:
        assert fields.floats(4) is None
        return
    got = fields.floats(4)
    assert got is not None
    assert want.tobytes() == got.tobytes()          # bit for bit, -0.0 included


# ---- evaluation --------------------------------------------------------------------

QIDS = ["7", "07", "10", "2", "é"]
DOCS = ["7", "07", "a", "b", "B", "d1", "d10", "é", "x.1", "d" * 12]


@st.composite
def collections(draw: st.DrawFn) -> tuple[str, str]:
    qrels, run = [], []
    for q in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True)):
        for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6, unique=True)):
            qrels.append(f"{q} 0 {d} {draw(st.integers(-1, 3))}")
    for q in draw(st.lists(st.sampled_from(QIDS), min_size=1, max_size=4, unique=True)):
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=9))   # repeats
        for d in docs:
            score = draw(st.sampled_from(["1", "2", "0.5", "-3", "1.0000001", "2e0"]))
            run.append(f"{q} Q0 {d} 0 {score} r")
    if draw(st.booleans()):
        run = draw(st.permutations(run))
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _evaluate(qrels: str, run: str, **options: Any) -> object:
    try:
        ev = Evaluator(Qrels.read(qrels), ["all_trec"], **options)
        res = ev.compute(Run.read(run))
    except RelkitError as exc:
        return type(exc).__name__, str(exc)
    return "".join(lines(res, per_query=True, summary=True, compat=options.get("compat", 10)))


@FAST
@given(collections(), st.sampled_from([{}, {"max_docs": 2}, {"judged_only": True},
                                       {"complete": True}, {"compat": 9}, {"level": 2}]))
def test_every_form_evaluates_alike(data: tuple[str, str], options: dict) -> None:
    seen = {}
    for name in FORMS:
        with form(name):
            seen[name] = _evaluate(*data, **options)
    for name in FORMS[1:]:
        assert seen[name] == seen["small"], name


@FAST
@given(collections())
def test_hash_collisions_are_settled_exactly(data: tuple[str, str]) -> None:
    expected = _evaluate(*data)
    real = pairs.pair_hash
    try:
        # every (topic, doc) gets one of two hashes: lookups and the duplicate check
        # must still be exact
        pairs.pair_hash = lambda values, q: (real(values, q) & np.uint64(1))  # type: ignore
        for name in ("small", "arrow"):
            with form(name):
                assert _evaluate(*data) == expected, name
    finally:
        pairs.pair_hash = real


def test_long_ids_take_the_string_form() -> None:
    long = "d" * (_io.MAX_ID_BYTES + 1)
    qrels = f"q 0 {long} 1\nq 0 b 0\n"
    run = f"q Q0 {long} 1 2 r\nq Q0 b 2 1 r\nq Q0 c 3 1 r\n"
    r = Run.read(run)
    assert not isinstance(r.column("doc_id"), np.ndarray)           # Arrow strings
    out = _evaluate(qrels, run)
    with form("arrow"):
        assert _evaluate(qrels, run) == out
    assert "P_5                   \tall\t0.2000" in str(out)


def test_duplicates_name_the_same_line_on_every_form() -> None:
    qrels = "q1 0 a 1\nq2 0 a 1\n"
    run = "q2 Q0 a 0 3 r\nq2 Q0 a 0 2 r\nq1 Q0 b 0 3 r\nq1 Q0 c 0 1 r\nq1 Q0 b 0 2 r\n"
    for name in FORMS:
        with form(name):
            assert _evaluate(qrels, run) == (
                "DuplicateDocumentError",
                "<text>:5: expected each document at most once per topic; "
                "found document 'b' again for topic 'q1'"), name


# ---- the CLI -----------------------------------------------------------------------


@pytest.mark.private_api
def test_plain_coercion_gives_typers_values_and_errors() -> None:
    import typer.core as core
    from typer.main import get_command

    import relkit.metrics.eval.cli as cli

    plain = core.build_runtime_param
    full = getattr(plain, "full", None)
    if full is None:
        pytest.skip("this typer coerces without pydantic already")
    cmd = get_command(cli.app)
    values = ["1", "-3", "007", "+5", " 5", "1.0", "x", "", "٣", "q.txt", "-", "a b"]
    for p in cmd.params:
        desc = p.type_descriptor
        for v in [*values, None, [*values[:3]], ["x", "1"]]:
            if v is None and p.required:
                continue
            results = []
            for build in (plain, full):
                try:
                    results.append(("ok", build(desc).coerce(v, param=p, ctx=None)))
                except Exception as exc:  # noqa: BLE001  (typer raises several kinds)
                    results.append((type(exc).__name__, str(exc)))
            assert results[0] == results[1], (p.name, v, results)


def _modules_after(args: list[str], setup: str = "") -> list[str]:
    code = (f"import sys; {setup}from relkit.judging.cli import main; rc = main(sys.argv[1:]); "
            "heavy = ('pyarrow', 'pandas', 'scipy', 'pydantic', 'sqlalchemy', 'sqlmodel', "
            "'alembic', 'textual', 'matplotlib', 'concurrent.futures'); "
            "sys.stderr.write(repr(sorted(m for m in heavy if m in sys.modules))); sys.exit(rc)")
    proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    return eval(proc.stderr)  # noqa: S307  (our own repr of a list of names)


def test_small_eval_imports_none_of_the_heavy_stacks() -> None:
    args = ["eval", "-m", "all_trec", str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")]
    assert _modules_after(args) == []


def test_large_eval_imports_pyarrow_but_no_pandas() -> None:
    args = ["eval", "-m", "map", str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")]
    mods = _modules_after(
        args, "import relkit.metrics.readers.io as io; io.SMALL_INPUT_BYTES = 0; ")
    assert mods == ["pyarrow"]
