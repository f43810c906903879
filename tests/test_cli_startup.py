"""Start-up is a feature: what each command imports, and the lazy root agreeing with the app.

Each check runs ``relkit`` in a fresh interpreter (the only way to see what a command
really imports) and reads ``sys.modules`` at exit.
"""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.metadata import version
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "corpora" / "sample"

# What a command that neither opens a database nor draws a screen must not load.
HEAVY = {"sqlalchemy", "sqlmodel", "alembic", "textual", "matplotlib", "pandas"}
# What --version and --help must not load: not even the CLI framework or numpy.
FRAMEWORK = {"typer", "click", "rich", "numpy", "pyarrow", *HEAVY}

PROBE = """
import json, sys
from relkit.judging.cli import main
try:
    code = main(sys.argv[1:])
except SystemExit as exc:
    code = exc.code
sys.stdout.flush()
print("\\n" + json.dumps({"code": code,
                         "modules": sorted({m.split('.')[0] for m in sys.modules})}))
"""


def _run(*args: str, cwd: Path | None = None) -> tuple[int, set[str], str]:
    proc = subprocess.run([sys.executable, "-c", PROBE, *args], capture_output=True,
                          text=True, cwd=cwd, timeout=120)
    *out, last = proc.stdout.rstrip("\n").split("\n")
    report = json.loads(last)
    return report["code"], set(report["modules"]), "\n".join(out) + proc.stderr


@pytest.mark.parametrize("args", [["--version"], ["--help"], []])
def test_version_and_help_import_no_framework(args: list[str]) -> None:
    code, modules, out = _run(*args)
    assert code == 0, out
    assert not modules & FRAMEWORK, sorted(modules & FRAMEWORK)


def test_eval_imports_no_database_screen_plot_or_pandas() -> None:
    code, modules, out = _run("eval", "-m", "all_trec", str(SAMPLE / "qrels.txt"),
                              str(SAMPLE / "runs" / "bm25.txt"))
    assert code == 0, out
    assert "ndcg_cut_10" in out  # it really evaluated
    assert not modules & HEAVY, sorted(modules & HEAVY)
    assert not modules & {"pyspark", "py4j"}   # only --engine spark loads Spark


@pytest.mark.parametrize("args", [
    ["pool", "--depth", "5", str(SAMPLE / "runs" / "bm25.txt"), str(SAMPLE / "runs" / "ql.txt")],
    ["pool-strategies"],
    ["corpora", "list"],
    ["eval", "--help"],
])
def test_file_commands_open_no_database_stack(args: list[str]) -> None:
    code, modules, out = _run(*args)
    assert code == 0, out
    assert not modules & {"sqlalchemy", "sqlmodel", "alembic", "textual"}, \
        sorted(modules & {"sqlalchemy", "sqlmodel", "alembic", "textual"})


def test_version_is_the_installed_distributions() -> None:
    code, _, out = _run("--version")
    assert code == 0
    assert out.strip() == f"relkit {version('relkit')}"
    proc = subprocess.run([sys.executable, "-m", "relkit", "--version"], capture_output=True,
                          text=True, timeout=60)
    assert (proc.returncode, proc.stdout.strip()) == (0, f"relkit {version('relkit')}")


def test_root_help_lists_exactly_the_apps_commands_with_their_help() -> None:
    """The lazy table (COMMANDS) says what the full Typer app says."""
    import typer

    from relkit.judging.cli import COMMANDS, full_app, root_help

    group = typer.main.get_command(full_app())
    # (Typer lists sub-apps after plain commands: the order is COMMANDS', checked below.)
    assert sorted(group.commands) == sorted(COMMANDS)  # type: ignore[attr-defined]
    for name, cmd in group.commands.items():  # type: ignore[attr-defined]
        summary = (cmd.help or "").strip().split("\n\n")[0].replace("\n", " ")
        assert COMMANDS[name].help == summary, name
        # the full app's help (`relkit --bogus`) shows the same sections
        assert cmd.rich_help_panel == COMMANDS[name].section, name
    text = root_help(width=200)
    for name, entry in COMMANDS.items():
        assert f"  {name}" in text and entry.help in text


def test_unknown_command_is_one_line_with_a_suggestion() -> None:
    code, modules, out = _run("evl", "qrels", "run")
    assert code == 2
    assert out.strip() == ("relkit: error: no command 'evl'; did you mean 'eval'? "
                           "(see `relkit --help`)")
    assert "typer" not in modules


def test_a_command_help_still_names_the_program() -> None:
    code, _, out = _run("eval", "--help")
    assert code == 0
    assert "relkit eval" in out


# What `relkit --version` and `relkit --help` may import beyond what the interpreter had
# loaded before relkit: relkit's own three modules (and __future__; --help also wraps
# text). Not even typing or importlib: each was a noticeable share of a ~10 ms start-up.
OWN = {"__future__", "relkit", "relkit.judging", "relkit.judging.cli"}
NEW_MODULES = """
import sys
before = set(sys.modules)
from relkit.judging.cli import main
main(sys.argv[1:])
sys.stdout.flush()
print("\\n" + " ".join(sorted(set(sys.modules) - before)))
"""


@pytest.mark.parametrize(("args", "allowed"), [
    (["--version"], OWN),
    (["--help"], OWN | {"textwrap", "re", "re._casefix", "re._compiler", "re._constants",
                        "re._parser", "enum", "functools", "collections", "keyword",
                        "operator", "reprlib", "copyreg", "_sre", "itertools", "_locale",
                        "_functools", "_collections", "_operator", "types"}),
])
def test_version_and_help_import_only_relkits_own_modules(args: list[str],
                                                          allowed: set[str]) -> None:
    proc = subprocess.run([sys.executable, "-c", NEW_MODULES, *args], capture_output=True,
                          text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    new = set(proc.stdout.rstrip("\n").rsplit("\n", 1)[-1].split())
    assert new <= allowed, sorted(new - allowed)


@pytest.mark.parametrize("args", [["-m", "official"], ["-q", "-m", "all_trec", "-l2"],
                                  ["-m", "map", "--format", "csv", "--quiet"]])
def test_a_valid_eval_never_imports_the_cli_framework(args: list[str]) -> None:
    """relkit.metrics.eval.argv reads it; typer and click are a fifth of the command."""
    code, modules, out = _run("eval", *args, str(SAMPLE / "qrels.txt"),
                              str(SAMPLE / "runs" / "bm25.txt"))
    assert code == 0, out
    assert not modules & {"typer", "click", "pydantic", "rich"}, \
        sorted(modules & {"typer", "click", "pydantic", "rich"})


def test_eval_help_and_click_errors_still_come_from_typer() -> None:
    code, modules, out = _run("eval", "-l", "abc", str(SAMPLE / "qrels.txt"),
                              str(SAMPLE / "runs" / "bm25.txt"))
    assert code == 2 and "typer" in modules
    assert out.strip().startswith("relkit eval: error: Invalid value for '-l'"), out
