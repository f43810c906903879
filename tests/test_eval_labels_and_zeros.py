"""``relkit eval`` output that cannot mislead: labelled blocks, and zeros said aloud.

Several runs: each block starts with the run's ``runid`` line (trec_eval's own line,
as ``-m official`` prints it); one run stays trec_eval's output byte for byte.
Topics that score 0 whatever the run (only -1 lines, or nothing relevant) are named
on stderr once, with counts; ``--quiet`` silences it.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import CONFORMANCE, ROOT, needs_shared, run_cli

SAMPLE = ROOT / "corpora" / "sample"
QRELS = str(SAMPLE / "qrels.txt")
BM25, QL = str(SAMPLE / "runs" / "bm25.txt"), str(SAMPLE / "runs" / "ql.txt")


def _runid(tag: str) -> str:
    return f"{'runid':<22}\tall\t{tag}\n"      # trec_eval's "%-22s\t%s\t%s\n"


@pytest.mark.parametrize("opts", [["-m", "map", "-m", "P@10"], ["-q", "-m", "map"],
                                  ["-m", "official"], ["-q", "-m", "official"],
                                  ["-n", "-q", "-m", "P.5"]])
def test_each_run_block_starts_with_its_runid_line(opts: list[str]) -> None:
    code, out, err = run_cli(["eval", *opts, QRELS, BM25, QL])
    assert code == 0 and err == ""
    blocks = []
    for path, tag in ((BM25, "bm25"), (QL, "ql")):
        single = run_cli(["eval", *opts, QRELS, path])[1]
        # a block already headed by its runid line (official, no -q) is left as it is
        blocks.append(single if single.startswith(_runid(tag)) else _runid(tag) + single)
    assert out == "".join(blocks)
    assert [ln for ln in out.splitlines() if ln.startswith("runid")][0] == _runid("bm25")[:-1]


def test_one_run_is_unlabelled_as_in_trec_eval() -> None:
    code, out, _ = run_cli(["eval", "-m", "map", "-m", "P@10", QRELS, BM25])
    assert code == 0 and [ln.split("\t")[0].strip() for ln in out.splitlines()] == ["map", "P_10"]


@needs_shared
def test_one_run_is_still_trec_eval_byte_for_byte() -> None:
    code, out, _ = run_cli("eval -q -m all_trec qrels.test results.test", cwd=CONFORMANCE)
    assert code == 0 and out == (CONFORMANCE / "out.test.aq").read_text()


@needs_shared
def test_prefs_mode_labels_several_runs_too(tmp_path: Path) -> None:
    other = tmp_path / "other.run"
    other.write_text((CONFORMANCE / "results.test").read_text().replace("STANDARD", "OTHER"))
    args = ["eval", "-R", "qrels_prefs", "-m", "all_prefs", "-q",
            str(CONFORMANCE / "qrels.test")]
    code, out, _ = run_cli([*args, str(CONFORMANCE / "results.test"), str(other)])
    first, second = run_cli([*args, str(CONFORMANCE / "results.test")])[1], \
        run_cli([*args, str(other)])[1]
    assert code == 0 and out == _runid("STANDARD") + first + _runid("OTHER") + second
    assert first == (CONFORMANCE / "out.test.qrels_prefs").read_text()


def test_tidy_formats_carry_the_run_id_on_every_row() -> None:
    code, out, _ = run_cli(["eval", "--format", "json", "-m", "map", QRELS, BM25, QL])
    assert code == 0 and [r["run_id"] for r in json.loads(out)] == ["bm25", "ql"]
    code, out, _ = run_cli(["eval", "--format", "tsv", "-m", "map", QRELS, BM25, QL])
    assert [ln.split("\t")[0] for ln in out.splitlines()] == ["run_id", "bm25", "ql"]


def test_runs_sharing_a_run_id_are_pointed_out(tmp_path: Path) -> None:
    copy = tmp_path / "copy.txt"
    copy.write_text(Path(BM25).read_text())
    code, _, err = run_cli(["eval", "-m", "map", QRELS, BM25, str(copy)])
    assert code == 0
    assert err == (f"relkit eval: warning: runs {BM25}, {copy} have the same run id 'bm25': "
                   "their results carry the same label (--name-from-file or --names tells "
                   "them apart)\n")
    code, _, err = run_cli(["eval", "--quiet", "-m", "map", QRELS, BM25, str(copy)])
    assert code == 0 and err == ""


def _same_tag(tmp_path: Path) -> tuple[Path, Path]:
    """Two runs tagged alike in folders of their own (Cranfield's four STANDARD runs)."""
    (tmp_path / "x").mkdir()
    (tmp_path / "y").mkdir()
    a, b = tmp_path / "x" / "run.txt", tmp_path / "y" / "run.txt"
    a.write_text(Path(BM25).read_text().replace(" bm25", " STANDARD"))
    b.write_text(Path(QL).read_text().replace(" ql", " STANDARD"))
    return a, b


@pytest.mark.parametrize("fmt", ["csv", "trec"])
def test_names_and_name_from_file_tell_runs_with_one_tag_apart(tmp_path: Path,
                                                                fmt: str) -> None:
    """Tester: several runs tagged STANDARD read as one run in --format csv."""
    a, b = _same_tag(tmp_path)
    plain = run_cli(["eval", "--format", fmt, "-m", "map", QRELS, str(a), str(b)])
    for opts, labels in ((["--names", "bm25,ql"], ["bm25", "ql"]),
                         (["--name-from-file"], ["x/run.txt", "y/run.txt"])):
        code, out, err = run_cli(["eval", "--format", fmt, *opts, "-m", "map", QRELS,
                                  str(a), str(b)])
        assert code == 0 and err == "", err           # nothing shared, nothing to warn
        if fmt == "csv":
            assert [ln.split(",")[0] for ln in out.splitlines()] == ["run_id", *labels]
        else:
            assert [ln.split("\t")[2] for ln in out.splitlines()
                    if ln.startswith("runid")] == labels
        # the numbers are those of the plain output, only the labels differ
        for old_label, new in zip(["STANDARD", "STANDARD"], labels, strict=True):
            out = out.replace(new, old_label, 1)
        assert out == plain[1]


@pytest.mark.parametrize("opts, message", [
    (["--names", "one"], "expected 2 names (one per run); got 1"),
    (["--names", "a,a"], "a given twice"),
    (["--names", "a,b c"], "one word"),
    (["--names", "a,b", "--name-from-file"], "not both"),
])
def test_bad_names_are_usage_errors(tmp_path: Path, opts: list[str], message: str) -> None:
    a, b = _same_tag(tmp_path)
    code, out, err = run_cli(["eval", *opts, QRELS, str(a), str(b)])
    assert (code, out, err.count("\n")) == (2, "", 1) and message in err, err


def test_compare_takes_the_same_options_from_the_same_declaration(tmp_path: Path) -> None:
    from typing import get_args, get_type_hints

    from relkit.metrics.compare.cli import compare_cmd
    from relkit.metrics.eval.cli import eval_cmd

    a, b = _same_tag(tmp_path)
    code, out, err = run_cli(["compare", "-m", "map", "--format", "csv", "--names",
                              "bm25,ql", QRELS, str(a), str(b)])
    assert code == 0, err
    assert {ln.split(",")[0] for ln in out.splitlines()[1:]} == {"bm25", "ql"}
    code, out, err = run_cli(["compare", "-m", "map", "--format", "csv", "--name-from-file",
                              QRELS, str(a), str(b)])
    assert code == 0 and {ln.split(",")[0] for ln in out.splitlines()[1:]} == {
        "x/run.txt", "y/run.txt"}
    ev = get_type_hints(eval_cmd, include_extras=True)
    cmp = get_type_hints(compare_cmd, include_extras=True)
    for name in ("names", "name_from_file"):
        assert get_args(ev[name])[1] is get_args(cmp[name])[1]   # one declaration, one help


def _qrels(tmp_path: Path, grades: dict[str, int]) -> Path:
    """The sample qrels with every grade of some topics replaced."""
    lines = []
    for raw in Path(QRELS).read_text().splitlines():
        q, it, d, g = raw.split()
        lines.append(f"{q} {it} {d} {grades.get(q, g)}")
    path = tmp_path / "qrels.txt"
    path.write_text("\n".join(lines) + "\n")
    return path


def test_topics_that_score_zero_are_named_once_with_counts(tmp_path: Path) -> None:
    # 101 and 103: pooled, never judged (all -1); 102: judged, nothing relevant (all 0).
    qrels = _qrels(tmp_path, {"101": -1, "103": -1, "102": 0})
    code, out, err = run_cli(["eval", "-q", "-m", "map", "-m", "P@10", str(qrels), BM25, QL])
    assert code == 0
    per_topic = {tuple(ln.split("\t")[:2]) for ln in out.splitlines()
                 if ln.split("\t")[1] in ("101", "102", "103")}
    assert all(ln.split("\t")[2] == "0.0000" for ln in out.splitlines()
               if tuple(ln.split("\t")[:2]) in per_topic)
    assert err.splitlines() == [
        f"relkit eval: warning: 2 topics of {qrels} have no judged document (only -1 lines: "
        "pooled, unjudged) and score 0 for every run: 101, 103; see docs/trec_eval.md, "
        "'Silent zeros'",
        f"relkit eval: warning: 1 topic of {qrels} has no document graded >= 1 (-l) and "
        "scores 0 on every relevance measure for every run: 102; see docs/trec_eval.md, "
        "'Silent zeros'",
    ]
    code, out_quiet, err = run_cli(["eval", "--quiet", "-q", "-m", "map", "-m", "P@10",
                                    str(qrels), BM25, QL])
    assert (code, out_quiet, err) == (0, out, "")


def test_the_relevance_level_decides_what_has_nothing_relevant(tmp_path: Path) -> None:
    code, _, err = run_cli(["eval", "-m", "map", QRELS, BM25])
    assert code == 0 and err == ""                 # every sample topic has a relevant doc
    qrels = _qrels(tmp_path, {"104": 1})           # 104: every document graded 1
    code, _, err = run_cli(["eval", "-m", "map", str(qrels), BM25])
    assert code == 0 and err == ""
    code, _, err = run_cli(["eval", "-l", "2", "-m", "map", str(qrels), BM25])
    assert code == 0 and err == (f"relkit eval: warning: 1 topic of {qrels} has no document "
                                 "graded >= 2 (-l) and scores 0 on every relevance measure "
                                 "for every run: 104; see docs/trec_eval.md, 'Silent zeros'\n")


def test_only_topics_the_runs_are_evaluated_on_are_named(tmp_path: Path) -> None:
    qrels = _qrels(tmp_path, {"101": -1})
    extra = "999 0 x -1\n"                          # a qrels topic no run retrieves for
    qrels.write_text(qrels.read_text() + extra)
    code, _, err = run_cli(["eval", "-m", "map", str(qrels), BM25])
    assert code == 0 and "1 topic of" in err and ": 101;" in err and "999" not in err
    code, _, err = run_cli(["eval", "-c", "-m", "map", str(qrels), BM25])  # -c averages it
    assert code == 0 and "2 topics of" in err and ": 101, 999;" in err
