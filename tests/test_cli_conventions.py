"""One set of conventions for every ``relkit`` command (issue 15, "CLI conventions").

Each test was failing before its fix: ``--runs runs/*.txt`` read the runs as judgment
files; ``--help`` listed 21 commands in one block and showed ``<bool>`` after flags; a
bad option value exited 1; ``| head -1`` exited 1 (click's convention for a closed pipe);
there was no ``--quiet``; the help ignored ``NO_COLOR``; ``relkit eval -`` could not read
qrels from stdin; ``pool`` had ``--into`` where every other command says ``--db``; the
pool diagnostics printed TSV only, to stdout only.
"""

from __future__ import annotations

import csv
import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from helpers import ROOT, run_cli

SAMPLE = ROOT / "corpora" / "sample"
QRELS = str(SAMPLE / "qrels.txt")
RUNS = [str(p) for p in sorted((SAMPLE / "runs").glob("*.txt"))]


# -- several files after one option ------------------------------------------------------

@pytest.mark.parametrize(("args", "want"), [
    # the values run to the next option...
    (["a.qrels", "--runs", "r1", "r2", "--format", "json"],
     ["a.qrels", "--runs", "r1", "--runs", "r2", "--format", "json"]),
    # ...or to the end, or to a `--` that ends the list (dropped: options still follow)
    (["--runs", "r1", "r2"], ["--runs", "r1", "--runs", "r2"]),
    (["--runs", "r1", "r2", "--", "a.qrels", "--format", "json"],
     ["--runs", "r1", "--runs", "r2", "a.qrels", "--format", "json"]),
    # `-` (stdin) is a value, not an option
    (["--runs", "-", "r2"], ["--runs", "-", "--runs", "r2"]),
    # `--runs=FILE` is one value; a later `--runs` adds more
    (["--runs=r1", "x", "--runs", "r2"], ["--runs=r1", "x", "--runs", "r2"]),
    # no value: left for click to report
    (["--runs", "--format", "json"], ["--runs", "--format", "json"]),
    # a `--` before the option keeps click's meaning: the rest is positional
    (["--", "--runs", "r1", "r2"], ["--", "--runs", "r1", "r2"]),
])
def test_spread(args: list[str], want: list[str]) -> None:
    from relkit.judging.conventions import spread

    assert spread(args, {"--runs"}) == want


@pytest.fixture
def judgments(tmp_path: Path) -> list[str]:
    """Two assessors' qrels: the sample's, and one with every 7th grade flipped."""
    ann, bob = tmp_path / "ann.qrels", tmp_path / "bob.qrels"
    lines = (SAMPLE / "qrels.txt").read_text().splitlines()
    ann.write_text("\n".join(lines) + "\n")
    flipped = []
    for i, line in enumerate(lines, 1):
        t, it, d, g = line.split()
        flipped.append(f"{t} {it} {d} {(0 if int(g) > 0 else 1) if i % 7 == 0 else g}")
    bob.write_text("\n".join(flipped) + "\n")
    return [str(ann), str(bob)]


def test_agree_runs_takes_a_shell_glob_as_in_the_readme(judgments: list[str],
                                                        tmp_path: Path) -> None:
    """``relkit agree a.qrels b.qrels --runs runs/*.txt``: the shell expands the glob."""
    code, out, err = run_cli(["agree", *judgments, "--runs", *RUNS, "--replicates", "0"])
    assert code == 0, err
    assert "942 judgments by 2 assessors" in err  # the runs were not read as judgments
    assert f"Effect on conclusions (nDCG@10, {len(RUNS)} runs)" in out
    # the runs first and the judgments after `--`: the same report
    code, out2, err = run_cli(["agree", "--runs", *RUNS, "--", *judgments,
                               "--replicates", "0"])
    assert code == 0, err
    assert out2 == out
    # the tutorial's form: options after the list end it
    report = tmp_path / "agreement.json"
    code, _, err = run_cli(["agree", *judgments, "--runs", *RUNS, "--format", "json",
                            "-o", str(report), "--replicates", "0"])
    assert code == 0, err
    assert json.loads(report.read_text())


def test_the_rule_is_in_the_help() -> None:
    code, out, _ = run_cli(["agree", "--help"])
    assert code == 0
    flat = " ".join(out.replace("│", " ").split())
    assert "Several files after one flag: --runs A B C" in flat and "`--` ends the list" in flat


# -- help: sections, examples, no <bool> ---------------------------------------------------

def _leaves() -> list[tuple[list[str], Any]]:
    import typer

    from relkit.judging.cli import full_app
    from relkit.judging.clidoc import _walk

    return [(path[1:], cmd) for path, cmd in _walk(typer.main.get_command(full_app()),
                                                   ["relkit"])
            if not getattr(cmd, "commands", None)]


def test_root_help_groups_the_commands_in_sections() -> None:
    from relkit.judging.cli import COMMANDS, root_help

    sections = list(dict.fromkeys(e.section for e in COMMANDS.values()))
    assert sections == ["Evaluate", "Build a collection", "Judge", "Agree",
                        "Pooling analysis", "Collections", "Online evaluation"]
    # each section's commands together, so each heading appears once
    order = [e.section for e in COMMANDS.values()]
    assert order == sorted(order, key=sections.index)
    lines = root_help(width=200).splitlines()
    for name, entry in COMMANDS.items():
        at = next(i for i, line in enumerate(lines) if line.split()[:1] == [name])
        heading = next(line for line in reversed(lines[:at]) if line.endswith(":"))
        assert heading == f"{entry.section}:", name


def test_every_command_has_an_example_quiet_and_no_bool_placeholder() -> None:
    leaves = _leaves()
    assert len(leaves) > 25
    for path, cmd in leaves:
        name = " ".join(path)
        text = f"{cmd.help or ''}\n{cmd.epilog or ''}"
        assert f"relkit {name}" in text and "Example" in text, name
        assert any("--quiet" in p.opts for p in cmd.params), name
        code, out, err = run_cli([*path, "--help"])
        assert code == 0, (name, err)
        assert "<bool>" not in out, name
        assert "--quiet" in out, name


@pytest.mark.parametrize("group", ["export", "import", "db", "corpora", "systems"])
def test_groups_show_no_bool_placeholder_either(group: str) -> None:
    code, out, err = run_cli([group, "--help"])
    assert code == 0, err
    assert "--help" in out and "<bool>" not in out


# -- exit status ---------------------------------------------------------------------------

@pytest.mark.parametrize("args", [
    ["agree", QRELS, QRELS, "--format", "xml"],
    ["pool-simulate", QRELS, *RUNS, "--budget", "many"],
    ["pool-coverage", QRELS, *RUNS, "--format", "xls"],
    ["compare", "--test", "z-test", QRELS, *RUNS],
    ["eval", "-m", "ndgc@10", QRELS, RUNS[0]],
    ["pool", *RUNS, "--strategy", "dpeth"],
    ["systems", "run", "--collection", str(SAMPLE), "--stemmer", "krovetz"],
])
def test_a_value_an_option_cannot_take_exits_2(args: list[str]) -> None:
    code, _, err = run_cli(args)
    assert code == 2, err
    assert err.count("\n") == 1 and "Invalid value for" in err, err


def test_a_failure_still_exits_1(tmp_path: Path) -> None:
    code, _, err = run_cli(["eval", QRELS, str(tmp_path / "missing.txt")])
    assert code == 1 and "missing.txt" in err and err.count("\n") == 1


def test_a_closed_pipe_exits_0_quietly() -> None:
    """``relkit eval ... | head -1``: the reader is gone before relkit writes."""
    read, write = os.pipe()
    os.close(read)  # every write now fails with EPIPE, whatever the timing
    try:
        proc = subprocess.run([sys.executable, "-m", "relkit", "eval", "-q", "-m", "all_trec",
                               QRELS, *RUNS], stdout=write, stderr=subprocess.PIPE,
                              timeout=120)
    finally:
        os.close(write)
    assert proc.returncode == 0
    assert proc.stderr == b""


# -- --quiet, NO_COLOR ---------------------------------------------------------------------

def test_quiet_silences_diagnostics_not_data_or_errors(tmp_path: Path) -> None:
    code, out, err = run_cli(["pool", *RUNS, "--depth", "3"])
    assert code == 0 and "relkit: pooled" in err
    code, quiet_out, quiet_err = run_cli(["pool", *RUNS, "--depth", "3", "--quiet"])
    assert (code, quiet_out, quiet_err) == (0, out, "")
    code, _, err = run_cli(["pool", str(tmp_path / "missing.txt"), "--quiet"])
    assert code == 1 and "missing.txt" in err and err.count("\n") == 1


def _escapes(args: list[str], **env: str) -> int:
    """How many ANSI escape sequences ``relkit ARGS`` writes on a forced colour terminal."""
    full = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    full.update(FORCE_COLOR="1", COLUMNS="100", **env)
    proc = subprocess.run([sys.executable, "-m", "relkit", *args], capture_output=True,
                          text=True, env=full, timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.count("\x1b[")


@pytest.mark.parametrize("args", [["pool", "--help"], ["export", "--help"],
                                  ["compare", QRELS, *RUNS[:2]]])
def test_no_color_means_plain_text(args: list[str]) -> None:
    assert _escapes(args) > 0  # styled otherwise: the test would not see a difference
    assert _escapes(args, NO_COLOR="1") == 0


# -- stdin, --db, -o/--format --------------------------------------------------------------

def test_eval_reads_the_qrels_from_stdin() -> None:
    args = [sys.executable, "-m", "relkit", "eval", "-m", "P@5", "-m", "map"]
    named = subprocess.run([*args, QRELS, RUNS[0]], capture_output=True, text=True,
                           check=True, timeout=120)
    with open(QRELS, "rb") as fp:
        piped = subprocess.run([*args, "-", RUNS[0]], stdin=fp, capture_output=True,
                               text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == named.stdout and "map" in named.stdout
    code, _, err = run_cli(["eval", "-", "-"])
    assert code == 2 and "not both" in err


@pytest.mark.parametrize("option", ["--db", "--into"])
def test_pool_takes_db_and_still_into(tmp_path: Path, option: str) -> None:
    db = str(tmp_path / "p.db")
    code, _, err = run_cli(["init", "--topics", str(SAMPLE / "topics.trec"), "--docs",
                            str(SAMPLE / "docs.jsonl"), "--db", db])
    assert code == 0, err
    code, out, err = run_cli(["pool", *RUNS, "--depth", "3", option, db])
    assert code == 0, err
    assert out == "" and "imported pool 'depth-3'" in err


@pytest.fixture(scope="module")
def pool_file(tmp_path_factory: pytest.TempPathFactory) -> str:
    path = tmp_path_factory.mktemp("pool") / "pool.tsv"
    code, _, err = run_cli(["pool", *RUNS, "--depth", "5", "-o", str(path)])
    assert code == 0, err
    return str(path)


@pytest.mark.parametrize("command", [
    ["pool-stats", "{pool}", "--overlap"],
    ["pool-coverage", QRELS, *RUNS],
    ["pool-reuse", QRELS, *RUNS, "--depth", "5"],
    ["pool-simulate", QRELS, *RUNS, "-s", "depth", "--budget", "5,10"],
    ["pool-strategies"],
    ["systems", "list"],
    ["corpora", "formats"],
])
def test_table_commands_write_every_format_to_a_file(command: list[str], pool_file: str,
                                                    tmp_path: Path) -> None:
    args = [a.replace("{pool}", pool_file) for a in command]
    code, tsv, err = run_cli([*args, "--quiet"])
    assert code == 0, err
    header, *rows = list(csv.reader(io.StringIO(tsv), delimiter="\t"))
    assert rows
    outputs = {}
    for fmt in ("tsv", "csv", "json", "markdown"):
        out = tmp_path / f"table.{fmt}"
        code, stdout, err = run_cli([*args, "--format", fmt, "-o", str(out), "--quiet"])
        assert (code, stdout, err) == (0, "", ""), (fmt, err)
        outputs[fmt] = out.read_text()
    assert outputs["tsv"] == tsv
    assert list(csv.reader(io.StringIO(outputs["csv"]))) == [header, *rows]
    records = json.loads(outputs["json"])
    assert [list(r) for r in records] == [header] * len(rows)
    for rec, row in zip(records, rows, strict=True):
        # numbers stay numbers; text formats show them with four decimals
        assert ["" if v is None else f"{v:.4f}" if isinstance(v, float) else str(v)
                for v in rec.values()] == row
    md = outputs["markdown"].splitlines()
    assert len(md) == len(rows) + 2 and md[0] == "| " + " | ".join(header) + " |"


def test_an_error_a_command_reports_itself_is_shown_under_quiet(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """``relkit judge --quiet``: a judgment NOT saved is still said (tui/cli.py finish)."""
    from relkit.judging.conventions import error_stream, go_quiet

    err = io.StringIO()
    monkeypatch.setattr(sys, "stderr", err)
    go_quiet(True)
    sys.stderr.write("relkit: a diagnostic\n")
    error_stream().write("relkit: NOT saved: ...\n")
    assert err.getvalue() == "relkit: NOT saved: ...\n"


@pytest.mark.parametrize("command", [["pool-coverage"], ["compare", "--format", "csv"]])
def test_other_commands_read_the_qrels_from_stdin_too(command: list[str]) -> None:
    args = [sys.executable, "-m", "relkit", *command]
    named = subprocess.run([*args, QRELS, *RUNS[:2]], capture_output=True, text=True,
                           check=True, timeout=120)
    with open(QRELS, "rb") as fp:
        piped = subprocess.run([*args, "-", *RUNS[:2]], stdin=fp, capture_output=True,
                               text=True, timeout=120)
    assert piped.returncode == 0, piped.stderr
    assert piped.stdout == named.stdout and piped.stdout


def test_judgments_swallowed_by_runs_get_a_hint(judgments: list[str], tmp_path: Path) -> None:
    """``agree --runs r*.txt a.qrels b.qrels``: the rule is said where it bites."""
    code, _, err = run_cli(["agree", "--runs", *RUNS, *judgments], cwd=tmp_path)
    assert code == 1 and err.count("\n") == 1
    assert "judgment files after --runs are read as runs" in err and "with --" in err


def test_store_tables_take_output_and_format(tmp_path: Path) -> None:
    """``disagreements`` (any table format) and ``status`` (its own) write to ``-o`` too."""
    from store_helpers import make_project

    db = str(tmp_path / "p.db")
    store = make_project(db, overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d00", grade=3, dwell_ms=4000)
    store.assessor("bob").record(topic="1", doc="d00", grade=1, dwell_ms=2000)
    store.close()
    code, tsv, err = run_cli(["disagreements", "--db", db])
    assert code == 0, err
    assert tsv == "topic\tdoc\tgrades\tadjudicated\n1\td00\tann=3 bob=1\t-\n"
    out = tmp_path / "d.json"
    code, stdout, err = run_cli(["disagreements", "--db", db, "--format", "json", "-o",
                                 str(out)])
    assert (code, stdout) == (0, ""), err
    assert json.loads(out.read_text()) == [
        {"topic": "1", "doc": "d00", "grades": "ann=3 bob=1", "adjudicated": None}]
    code, shown, _ = run_cli(["status", "--db", db, "--format", "tsv"])
    out = tmp_path / "status.tsv"
    code, stdout, err = run_cli(["status", "--db", db, "--format", "tsv", "-o", str(out)])
    assert (code, stdout) == (0, ""), err
    assert out.read_text() == shown
