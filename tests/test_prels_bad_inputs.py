"""Hostile files and option values fed to ``relkit eval -R prels`` and ``relkit pool-sample``.

Every case: exactly one line on stderr naming the file as typed (and the line where
there is one), exit 1 for a file it cannot use and 2 for an option value it cannot
take, nothing on stdout, no traceback, no output file left behind. Before the fixes,
binary, non-UTF-8 and gzip files gave tracebacks (prels and pool files), an empty pool
was sampled with exit 0, grades of 10^23 and duplicate pairs were taken, and messages
named ``<text>`` and ``<dict>`` instead of the files.
"""

from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from helpers import run_cli
from relkit.metrics.eval.modes import MODES

GOOD_PRELS = b"1 0 a 1 1\n1 0 b 1 0\n1 0 c 2 2\n1 0 d 2 -1\n2 0 a 1 0\n2 0 b 2 1\n"
GOOD_RUN = b"1 Q0 a 1 3 r\n1 Q0 c 2 2 r\n1 Q0 x 3 1 r\n2 Q0 b 1 1 r\n"
GOOD_POOL = (b"topic\tdoc\tpriority\tprovenance\n1\ta\t1.0\tr:1\n1\tb\t0.5\tr:2\n"
             b"1\tc\t0.3\tr:3\n2\ta\t1.0\tr:1\n")
GOOD_QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 a 0\n"

# name -> (content, the line the error names, or None for the whole file)
COMMON = {
    "empty": (b"", None),
    "blank": (b"\n  \n\n", None),
    "binary": (bytes(range(256)) * 4, 1),
    "invalid_utf8": (b"1 0 d\xff 1 1\n", 1),
    "truncated_gzip": (gzip.compress(GOOD_PRELS * 50)[:40], None),
}
PRELS_CASES = {
    **COMMON,
    "header_only": (b"topic iteration doc stratum grade\n", 1),
    "three_columns": (b"1 0 a 1 1\n1 0 b\n", 2),
    "six_columns": (b"1 0 a 1 1 x\n", 1),
    "grade_word": (b"1 0 a 1 rel\n", 1),
    "grade_float": (b"1 0 a 1 0.5\n", 1),
    "grade_nan": (b"1 0 a 1 nan\n", 1),
    "grade_1e23": (b"1 0 a 1 1e23\n", 1),
    "grade_huge": (b"1 0 a 1 100000000000000000000000\n", 1),
    "duplicate_pair": (b"1 0 a 1 1\n1 0 b 1 0\n1 0 a 2 0\n", 3),
}
RUN_CASES = {
    **COMMON,
    "header_only": (b"qid iter docno rank score runid\n", 1),
    "four_columns": (b"1 Q0 a 1\n", 1),
    "score_nan": (b"1 Q0 a 1 nan r\n", 1),
    "score_word": (b"1 Q0 a 1 high r\n", 1),
    "duplicate_doc": (b"1 Q0 a 1 2 r\n1 Q0 a 2 1 r\n", 2),
    "no_topic_in_common": (b"9 Q0 a 1 1 r\n", None),
}
POOL_CASES = {
    **COMMON,
    "header_only": (b"topic\tdoc\tpriority\tprovenance\n", None),
    "one_column": (b"topic\tdoc\tpriority\tprovenance\n1\n", 2),
    "priority_word": (b"1\ta\thigh\tr:1\n", 1),
    "priority_nan": (b"1\ta\tnan\tr:1\n", 1),
    "negative_rank": (b"1\ta\t1\tr:-3\n", 1),
    "rank_zero": (b"1\ta\t1\tr:0\n", 1),
    "no_provenance": (b"topic\tdoc\tpriority\tprovenance\n1\ta\t1\t\n", 2),
    "duplicate_pair": (b"1\ta\t1\tr:1\n1\ta\t1\tr:2\n", 2),
}
QRELS_CASES = {
    **{k: v for k, v in COMMON.items() if k not in ("empty", "blank")},
    "empty": (b"", None),                          # then no judgment for a sampled pair
    "missing_pair": (b"1 0 a 1\n", None),
    "grade_huge": (b"1 0 a 100000000000000000000000\n", 1),
    "grade_nan": (b"1 0 a nan\n", 1),
    "five_columns": (b"1 0 a 1 1\n", 1),
}


def _check(args: list[str], named: str, line: int | None, code: int = 1,
           absent: tuple[Path, ...] = ()) -> str:
    got, out, err = run_cli(args)
    assert (got, out) == (code, ""), err
    assert len(err.splitlines()) == 1 and "Traceback" not in err, err
    assert named in err, err
    if line is not None:
        assert f"{named}:{line}:" in err, err
    assert "<text>" not in err and "<dict>" not in err, err
    for path in absent:
        assert not path.exists(), path
    return err


@pytest.mark.parametrize("case", sorted(PRELS_CASES))
def test_eval_prels_bad_prels_file(case: str, tmp_path: Path) -> None:
    content, line = PRELS_CASES[case]
    (tmp_path / "bad.prels").write_bytes(content)
    (tmp_path / "run").write_bytes(GOOD_RUN)
    _check(["eval", "-R", "prels", str(tmp_path / "bad.prels"), str(tmp_path / "run"),
            "-o", str(tmp_path / "out")], str(tmp_path / "bad.prels"), line,
           absent=(tmp_path / "out",))


@pytest.mark.parametrize("case", sorted(RUN_CASES))
def test_eval_prels_bad_run_file(case: str, tmp_path: Path) -> None:
    content, line = RUN_CASES[case]
    (tmp_path / "prels").write_bytes(GOOD_PRELS)
    (tmp_path / "good.run").write_bytes(GOOD_RUN)
    (tmp_path / "bad.run").write_bytes(content)
    # the bad run second: the first run's lines are not written either
    _check(["eval", "-R", "prels", str(tmp_path / "prels"), str(tmp_path / "good.run"),
            str(tmp_path / "bad.run"), "-o", str(tmp_path / "out")],
           str(tmp_path / "bad.run"), line, absent=(tmp_path / "out",))


@pytest.mark.parametrize("case", sorted(POOL_CASES))
def test_pool_sample_bad_pool_file(case: str, tmp_path: Path) -> None:
    content, line = POOL_CASES[case]
    (tmp_path / "bad.pool").write_bytes(content)
    _check(["pool-sample", str(tmp_path / "bad.pool"), "--strata", "2:1,5:0.5",
            "-o", str(tmp_path / "sample")], str(tmp_path / "bad.pool"), line,
           absent=(tmp_path / "sample",))


@pytest.mark.parametrize("case", sorted(QRELS_CASES))
def test_pool_sample_bad_qrels_file(case: str, tmp_path: Path) -> None:
    content, line = QRELS_CASES[case]
    (tmp_path / "pool").write_bytes(GOOD_POOL)
    (tmp_path / "bad.qrels").write_bytes(content)
    _check(["pool-sample", str(tmp_path / "pool"), "--strata", "2:1,5:0.5", "--qrels",
            str(tmp_path / "bad.qrels"), "--prels", str(tmp_path / "prels"),
            "-o", str(tmp_path / "sample")], str(tmp_path / "bad.qrels"), line,
           absent=(tmp_path / "prels", tmp_path / "sample"))


@pytest.mark.parametrize("which", ["missing", "directory"])
def test_files_that_are_not_there(which: str, tmp_path: Path) -> None:
    bad = tmp_path / "nothing"
    if which == "directory":
        bad.mkdir()
    (tmp_path / "run").write_bytes(GOOD_RUN)
    _check(["eval", "-R", "prels", str(bad), str(tmp_path / "run")], str(bad), None)
    _check(["pool-sample", str(bad), "-o", str(tmp_path / "s")], str(bad), None,
           absent=(tmp_path / "s",))


def test_gzip_files_are_read(tmp_path: Path) -> None:
    (tmp_path / "prels.gz").write_bytes(gzip.compress(GOOD_PRELS))
    (tmp_path / "pool.gz").write_bytes(gzip.compress(GOOD_POOL))
    (tmp_path / "run").write_bytes(GOOD_RUN)
    (tmp_path / "plain").write_bytes(GOOD_PRELS)
    plain = run_cli(["eval", "-R", "prels", str(tmp_path / "plain"), str(tmp_path / "run")])
    assert plain[0] == 0 and plain[1]
    assert run_cli(["eval", "-R", "prels", str(tmp_path / "prels.gz"),
                    str(tmp_path / "run")]) == plain
    code, _, err = run_cli(["pool-sample", str(tmp_path / "pool.gz"), "--strata", "2:1,5:0.5",
                            "-o", str(tmp_path / "s")])
    assert code == 0, err


# option values: exit 2, one line naming the option, before any file is read (the
# prels named does not exist)
BAD_OPTIONS = {
    "unknown -R": (["-R", "prel"], "'-R'"),
    "unknown estimator": (["-R", "prels", "-m", "MAP"], "'-m'"),
    "smoothing value": (["-R", "prels", "--smoothing", "3eps"], "'--smoothing'"),
    "smoothing off prels": (["--smoothing", "trec_eval"], "'--smoothing'"),
    "negative level": (["-R", "prels", "-l", "-1"], "'-l'"),
    "negative -M": (["-R", "prels", "-M", "-5"], "'-M'"),
    "-J": (["-R", "prels", "-J"], "'-J'"),
    "-N": (["-R", "prels", "-N", "100"], "'-N'"),
    "-Z": (["-R", "prels", "-Z", "z.txt"], "'-Z'"),
    "stdin": (["-R", "prels"], "'-'"),
    "format": (["-R", "prels", "--format", "xml"], "--format"),
    "parquet to stdout": (["-R", "prels", "--format", "parquet"], "--format"),
}


@pytest.mark.parametrize("case", sorted(BAD_OPTIONS))
def test_eval_prels_bad_option_values(case: str, tmp_path: Path) -> None:
    extra, option = BAD_OPTIONS[case]
    files = [str(tmp_path / "no.prels"), "-" if case == "stdin" else str(tmp_path / "run")]
    _check(["eval", *extra, *files], option, None, code=2)


def test_unknown_mode_lists_every_mode_from_the_registry(tmp_path: Path) -> None:
    got, _, err = run_cli(["eval", "-R", "xml", "q", "r"])
    assert got == 2 and len(err.splitlines()) == 1
    assert f"(known: {', '.join(MODES)})" in err
    assert "prels" in err and "subtopics" in err


@pytest.mark.parametrize("value", ["10:nan", "10:inf", "10:-0.5", "0:1", "-3:1", "10:1,5:1",
                                   "1e30:1", "10", ""])
def test_pool_sample_bad_strata(value: str, tmp_path: Path) -> None:
    (tmp_path / "pool").write_bytes(GOOD_POOL)
    _check(["pool-sample", str(tmp_path / "pool"), "--strata", value, "-o",
            str(tmp_path / "s")], "--strata", None, code=2, absent=(tmp_path / "s",))


def test_outputs_that_cannot_be_written(tmp_path: Path) -> None:
    (tmp_path / "pool").write_bytes(GOOD_POOL)
    (tmp_path / "qrels").write_bytes(GOOD_QRELS)
    # --prels a directory: nothing written, not even the sample asked with -o
    _check(["pool-sample", str(tmp_path / "pool"), "--qrels", str(tmp_path / "qrels"),
            "--prels", str(tmp_path), "-o", str(tmp_path / "s")], "--prels", None,
           absent=(tmp_path / "s",))
    (tmp_path / "prels").write_bytes(GOOD_PRELS)
    (tmp_path / "run").write_bytes(GOOD_RUN)
    _check(["eval", "-R", "prels", str(tmp_path / "prels"), str(tmp_path / "run"), "-o",
            str(tmp_path / "no" / "out")], str(tmp_path / "no" / "out"), None)


SAMPLE_CASES = {
    **{k: v for k, v in COMMON.items() if k not in ("empty", "blank")},
    "three_columns": (b"topic\tdoc\tstratum\tprobability\n1\ta\t1\n", 2),
    "probability_nan": (b"1\ta\t1\tnan\n", 1),
    "probability_zero": (b"1\ta\t1\t0\n", 1),
    "stratum_word": (b"1\ta\ttop\t0.5\n", 1),
}


@pytest.mark.parametrize("case", sorted(SAMPLE_CASES))
def test_read_sample_bad_file(case: str, tmp_path: Path) -> None:
    """The library reader of pool-sample's -o file: a FormatError naming file and line."""
    from relkit.metrics.core.errors import FormatError
    from relkit.pooling.sample import read_sample

    content, line = SAMPLE_CASES[case]
    bad = tmp_path / "bad.sample"
    bad.write_bytes(content)
    where = str(bad) if line is None else f"{bad}:{line}:"
    with pytest.raises(FormatError) as exc:
        read_sample(bad)
    assert where in str(exc.value)
