"""``relkit eval``'s fast entry (relkit.metrics.eval.argv) reads what click reads.

A valid command line is read without typer: the values must be the ones the typer
command hands to ``run_eval``, and the output (stdout, stderr, exit status) the typer
path's, errors included. Anything the fast reader is not sure of goes to the typer
command (help pages and click's error messages come from one place).
"""

from __future__ import annotations

import shlex
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from helpers import ROOT, run_cli
from relkit.metrics.eval import argv as eval_argv
from relkit.metrics.readers.sources import path_text

SAMPLE = ROOT / "corpora" / "sample"
QRELS = str(SAMPLE / "qrels.txt")
RUN = str(SAMPLE / "runs" / "bm25.txt")
RUN2 = str(SAMPLE / "runs" / "ql.txt")

# Valid command lines (the files appended): every option, every spelling click takes.
VALID = [
    "", "-m official", "-m all_trec", "-q -m P.10 -l2", "-mP.5 --measure=map -l 2 -c -J -n",
    "-q -n -c -M 10 -N 1000", "--compat 9 -m map", "--compat=9 -m ndcg", "-M0 -N5",
    "--format csv -m ndcg_cut.10", "--format=json -m map", "--format tsv -q -m P.5",
    "--quiet -m map", "-m map --quiet --quiet", "-l -1 -m map", "-l0 -m map", "-R qrels",
    "--format trec --format csv", "-m map -m P.5 -m map", "-R subtopics -m alpha_nDCG@20",
]
# Valid as far as click goes; the body refuses them (the same words on both paths).
REFUSED = [
    "-m nosuch", "--names a,b", "-R bogus", "--smoothing x", "--format xml",
    "-R prels --smoothing nope", "--names 'a b'", "--names a --name-from-file",
]
# What the fast reader hands to the typer command, untouched.
HANDED_OVER = [
    "--help", "-qn", "-m", "--bogus", "-l abc", "-l 1e3", "-l 2000", "-l +1", "-M -3",
    "--compat 11", "--engine spark", "--spark-master local[2]", "--format parquet",
    "-q=1", "--quiet=yes", "-N=5", "-m -x", "-o ''", "-- -m map", "-x",
]


def _args(line: str, *files: str) -> list[str]:
    return [*shlex.split(line), *files]


def _typer_values(args: list[str], monkeypatch: pytest.MonkeyPatch) -> dict[str, Any]:
    """What the typer command hands to run_eval for ``relkit eval ARGS``, its paths as
    text: the fast reader gives ``str(Path(text))`` without importing pathlib."""
    import typer

    import relkit.metrics.eval.cli as cli

    got: dict[str, Any] = {}
    monkeypatch.setattr(cli, "run_eval", lambda **kw: got.update(kw))
    typer.main.get_command(cli.app).main(args=args, prog_name="relkit eval",
                                         standalone_mode=False)
    got.pop("bad")
    return {k: str(v) if isinstance(v, Path) else v for k, v in got.items()}


@pytest.mark.parametrize("line", VALID + REFUSED)
def test_the_fast_reader_gives_typers_values(line: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    args = _args(line, QRELS, RUN)
    assert eval_argv.parse(args) == _typer_values(args, monkeypatch)


def test_paths_and_several_runs_read_alike(tmp_path: Path,
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    z = tmp_path / "z.txt"
    z.write_text("")
    args = [QRELS, "-Z", str(z), RUN, "-o", str(tmp_path / "out.txt"), RUN2, "-", "-m", "map"]
    values = eval_argv.parse(args)
    assert values == _typer_values(args, monkeypatch)
    assert values is not None and values["runs"] == [RUN, RUN2, "-"]
    assert values["zscores"] == str(z)


@given(st.lists(st.sampled_from(["", ".", "..", "a", "b.txt", " ", "-", "a b"]), max_size=6),
       st.sampled_from(["", "/", "//", "///"]), st.sampled_from(["", "/", "//"]))
def test_a_path_is_named_as_pathlib_names_it(parts: list[str], root: str, end: str) -> None:
    # `relkit eval ./run.txt` names run.txt in its messages, as when typer's Path read it
    text = root + "/".join(parts) + end
    assert path_text(text) == str(Path(text)) == path_text(Path(text))


@pytest.mark.parametrize("line", [*HANDED_OVER, "-m map"])
def test_anything_else_goes_to_the_typer_command(line: str) -> None:
    files = [] if line == "-m map" else [QRELS, RUN]   # no files: typer's help or error
    assert eval_argv.parse(_args(line, *files)) is None


def _both_paths(args: list[str], monkeypatch: pytest.MonkeyPatch
                ) -> tuple[tuple[int, str, str], tuple[int, str, str]]:
    fast = run_cli(["eval", *args])
    with monkeypatch.context() as m:
        m.setattr(eval_argv, "parse", lambda args: None)
        slow = run_cli(["eval", *args])
    return fast, slow


@pytest.mark.parametrize("line", VALID + REFUSED)
def test_fast_and_typer_paths_print_the_same(line: str,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_paths(_args(line, QRELS, RUN), monkeypatch)
    assert fast == slow


def test_several_runs_print_the_same(monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_paths(["-q", "-m", "map", "-m", "P.5", QRELS, RUN, RUN2, RUN],
                             monkeypatch)
    assert fast == slow and fast[0] == 0 and fast[1].count("runid") == 3


@pytest.mark.parametrize("files", [["/no/such/qrels", RUN], [QRELS, "/no/such/run"],
                                   [QRELS, str(SAMPLE)], [RUN, QRELS],
                                   # named as pathlib names them, pathlib not imported
                                   ["/no/./such//qrels/", RUN], [QRELS, "//no/such/./run"],
                                   [QRELS, RUN.replace("/", "//"), "/no/such/../run"]])
def test_files_it_cannot_use_are_the_same_error(files: list[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_paths(["-m", "map", *files], monkeypatch)
    assert fast == slow and fast[0] != 0


def test_a_file_name_holding_a_newline_names_a_file(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # The readers take a str holding a newline for inline TREC lines: the names given to
    # relkit eval are paths (FileName), as typer's Path was, never such a str.
    absent = "101 0 D190 1\n"     # a qrels line, and the name of no file
    fast, slow = _both_paths(["-m", "P.5", absent, RUN], monkeypatch)
    assert fast == slow and fast[0] == 1 and "no such file" in fast[2], fast
    named = tmp_path / "q\nrels"
    named.write_bytes(Path(QRELS).read_bytes())
    fast, slow = _both_paths(["-m", "P.5", str(named), RUN], monkeypatch)
    assert fast == slow and fast[0] == 0
    assert fast == run_cli(["eval", "-m", "P.5", QRELS, RUN])


def test_output_file_and_zscores_alike(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, slow = _both_paths(["-m", "map", "--format", "csv", "-o", str(tmp_path / "a.csv"),
                              QRELS, RUN], monkeypatch)
    assert fast == slow
    assert (tmp_path / "a.csv").read_text().startswith("run_id,")
    z = tmp_path / "z.txt"
    z.write_text("401 map 0.1 0.05\n")
    fast, slow = _both_paths(["-m", "map", "-Z", str(z), QRELS, RUN], monkeypatch)
    assert fast == slow


def test_debug_keeps_the_fast_path_only_in_front(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    real = eval_argv.parse
    monkeypatch.setattr(eval_argv, "parse", lambda args: calls.append(args) or real(args))
    assert run_cli(["--debug", "eval", "-m", "map", QRELS, RUN])[0] == 0
    assert calls == [["-m", "map", QRELS, RUN]]


def test_the_diversity_names_are_the_diversity_families() -> None:
    """names.parse_measure asks diversity_names, not the families (their import)."""
    from relkit.metrics.measures import diversity, diversity_names

    assert set(diversity.REGISTRY) | set(diversity.ALIASES) == diversity_names.HEADS
    for name in ["alpha_nDCG@20", "strec@5", "MAP-IA", "NRBP(beta=0.8)", "nDCG@20", "map",
                 "P_IA(rel=2)@10", "ERR@20", "alpha_ndcg@20", " StRecall@10 "]:
        assert diversity_names.is_diversity(name) == (
            (m := diversity._NAME.fullmatch(name.strip())) is not None
            and diversity.ALIASES.get(m["head"], m["head"]) in diversity.REGISTRY), name


PROBE = """
import sys
from relkit.judging.cli import main
code = main(sys.argv[1:])
sys.stdout.flush()
print("\\n" + str(code) + " " + " ".join(sorted(sys.modules)))
"""


@pytest.mark.parametrize("measure", ["official", "map"])
def test_a_qrels_eval_imports_no_other_modes_nor_diversity(measure: str) -> None:
    import subprocess
    import sys

    proc = subprocess.run([sys.executable, "-c", PROBE, "eval", "-m", measure, QRELS, RUN],
                          capture_output=True, text=True, timeout=120)
    code, *modules = proc.stdout.rstrip("\n").rsplit("\n", 1)[-1].split()
    assert code == "0", proc.stderr
    unneeded = {"relkit.metrics.eval.modes", "relkit.metrics.inferred.measures",
                "relkit.metrics.inferred.prels", "relkit.metrics.measures.diversity"}
    assert not unneeded & set(modules), sorted(unneeded & set(modules))
