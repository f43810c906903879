"""``relkit judge``'s fast entry (relkit.judging.tui.argv, tui/run.py) reads what click
reads and runs what the typer command runs.

A valid command line on the light path is read without typer (whose reading imports
pydantic): the values must be the ones the typer command hands to ``judge``, and both
paths run the same app with the same settings. Anything the fast reader is not sure of,
and any command line the light path does not take, goes to the typer command.
"""

from __future__ import annotations

import shlex
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.judging.tui import argv as judge_argv
from relkit.judging.tui import run as tui_run
from store_helpers import make_project

VALID = [
    "", "--db p.db", "--db=p.db --assessor ann", "--assessor ann --assessor bob",
    "--keymap k.toml", "--idle 30", "--idle=0.5", "--idle 12.25 --min-view 0",
    "--min-view=250", "--pairs", "--pairs --pair-strategy top-k", "--pair-strategy=adaptive",
    "--topic 401", "--topic=T-2 --db x.db", "--lead carol", "--db p.db --db q.db",
]
HANDED_OVER = [
    "--help", "--bogus", "-x", "arg", "--db", "--idle 0", "--idle -1", "--idle 1e3",
    "--idle inf", "--idle nan", "--idle .5", "--min-view -3", "--min-view 1.5",
    "--min-view +1", "--pairs=yes", "--quiet=1", "--assessor -a", "--topic ''",
    "--db=", "-- --db p.db", "--topic",
]


def _typer_values(args: list[str]) -> dict[str, Any]:
    """What the typer command hands to ``judge`` for ``relkit judge ARGS``."""
    import typer

    import relkit.judging.tui.cli as cli

    command = typer.main.get_command(cli.app)
    ctx = command.make_context("judge", list(args))
    return dict(ctx.params)


@pytest.mark.parametrize("line", VALID)
@pytest.mark.parametrize("env", [{}, {"RELKIT_DB": "env.db", "RELKIT_ASSESSOR": "eve"},
                                 {"RELKIT_DB": "", "RELKIT_ASSESSOR": ""}])
def test_the_fast_reader_gives_typers_values(line: str, env: dict[str, str],
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("RELKIT_DB", "RELKIT_ASSESSOR"):
        monkeypatch.delenv(k, raising=False)
    for k, v in env.items():
        monkeypatch.setenv(k, v)
    args = shlex.split(line)
    values = judge_argv.parse(args)
    assert values is not None and values.pop("quiet") is False
    assert values == _typer_values(args)


@settings(max_examples=examples(300), deadline=None)
@example(option="--idle", value="9" * 400).via("a float that overflows to inf")
@example(option="--min-view", value="9" * 400)
@given(option=st.sampled_from(["--idle", "--min-view"]),
       value=st.text(alphabet="0123456789.e-+", min_size=1, max_size=400))
def test_a_number_the_fast_reader_takes_is_one_typer_takes_alike(option: str,
                                                                 value: str) -> None:
    """Any value of a numeric option: the fast reader takes it only as typer does (typer
    refused an ``--idle`` of 400 nines, inf, that the reader took)."""
    import click

    values = judge_argv.parse([option, value])
    if values is None:
        return
    values.pop("quiet")
    try:
        expected = _typer_values([option, value])
    except click.UsageError as exc:
        raise AssertionError(f"the fast reader took {option} {value!r}; typer: {exc}") from None
    assert values == expected


def test_quiet_is_read() -> None:
    values = judge_argv.parse(["--quiet", "--db", "p.db"])
    assert values is not None and values["quiet"] is True and values["db"] == "p.db"


@pytest.mark.parametrize("line", HANDED_OVER)
def test_anything_else_goes_to_the_typer_command(line: str) -> None:
    assert judge_argv.parse(shlex.split(line)) is None


def test_the_options_are_the_commands() -> None:
    """Every option of the typer command is read here (a new one must be added)."""
    import typer

    from relkit.judging.cli import full_app

    judge = typer.main.get_command(full_app()).commands["judge"]  # type: ignore[attr-defined]
    assert {o for p in judge.params for o in p.opts} == set(judge_argv.OPTIONS)


def _runs(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, Any]]:
    """The apps the command would run (not run: recorded), with their settings."""
    from relkit.judging.tui import app as tui_app

    ran: list[tuple[str, Any]] = []

    def run(self: Any) -> None:
        ran.append((self.first_view.name, self.settings))

    monkeypatch.setattr(tui_app.JudgeApp, "run", run)
    monkeypatch.setattr(tui_run, "is_terminal", lambda: True)
    monkeypatch.setattr("relkit.judging.tui.cli.need_terminal", lambda: None)
    monkeypatch.setattr(tui_run, "done", lambda app, db, pairs: 0)
    return ran


@pytest.mark.parametrize("line", ["", "--idle 5 --min-view 200 --topic {topic}",
                                  "--pairs --pair-strategy top-k --keymap k.toml"])
def test_both_paths_run_the_same_app(line: str, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "p.db"
    store = make_project(str(db))
    topic = store.assessor("ann").topics()[0].key
    store.close()
    (tmp_path / "k.toml").write_text("")
    monkeypatch.chdir(tmp_path)
    ran = _runs(monkeypatch)
    args = ["judge", "--db", str(db), "--assessor", "ann",
            *shlex.split(line.format(topic=topic))]
    fast_calls: list[dict[str, Any]] = []
    real = tui_run.fast_judge
    monkeypatch.setattr(tui_run, "fast_judge",
                        lambda **kw: fast_calls.append(kw) or real(**kw))
    assert run_cli(args)[0] == 0
    assert len(fast_calls) == 1 and len(ran) == 1  # the fast path ran it
    monkeypatch.setattr(judge_argv, "parse", lambda args: None)
    assert run_cli(args)[0] == 0
    assert len(fast_calls) == 1 and len(ran) == 2  # the typer command ran it
    assert ran[0] == ran[1]


def test_no_terminal_and_a_bad_topic_are_the_typer_commands_words(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    code, _, err = run_cli(["judge", "--db", str(db), "--assessor", "ann"])
    assert code == 2 and "needs a terminal" in err  # (run_cli: no terminal)
    monkeypatch.setattr(tui_run, "is_terminal", lambda: True)
    monkeypatch.setattr("relkit.judging.tui.cli.need_terminal", lambda: None)
    code, _, err = run_cli(["judge", "--db", str(db), "--assessor", "ann", "--topic", "999"])
    assert (code, err.count("\n")) == (2, 1)
    assert "relkit judge: error: Invalid value for --topic: '999' is not one of ann's" in err


PROBE = """
import sys
import relkit.judging.tui.run as run
from relkit.judging.tui.app import JudgeApp
run.is_terminal = lambda: True
JudgeApp.run = lambda self: None
run.done = lambda app, db, pairs: 0
from relkit.judging.cli import main
code = main(sys.argv[1:])
print(str(code) + " " + " ".join(sorted(sys.modules)))
"""


def test_the_fast_path_imports_no_typer_click_nor_pydantic(tmp_path: Path) -> None:
    import subprocess

    db = tmp_path / "p.db"
    make_project(str(db)).close()
    proc = subprocess.run([sys.executable, "-c", PROBE, "judge", "--db", str(db),
                           "--assessor", "ann"], capture_output=True, text=True, timeout=120)
    code, *modules = proc.stdout.split()
    assert code == "0", proc.stderr
    heavy = {m.split(".")[0] for m in modules} & {"typer", "click", "pydantic", "sqlalchemy",
                                                  "sqlmodel"}
    assert not heavy, heavy


def test_topic_is_not_for_the_leads_screen(tmp_path: Path) -> None:
    db = tmp_path / "p.db"
    make_project(str(db)).close()
    code, _, err = run_cli(["judge", "--db", str(db), "--lead", "carol", "--topic", "1"])
    assert (code, err.count("\n")) == (2, 1)
    assert err.startswith("relkit judge: error: Invalid value for --topic: opens one of an")
