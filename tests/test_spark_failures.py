"""Every command that takes ``--engine spark``, on every way Spark cannot run: one line
on stderr naming the option and the cause, the exit status of a usage error (2) or a
failure (1), and nothing from the JVM (issue 32).

The commands are found in the CLI tree (:func:`relkit.judging.cli.full_app`): a command
that gains ``--spark-master`` is walked here too, and fails until :data:`ARGS` gives it
valid arguments. Each case runs ``relkit`` in a subprocess, because the JVM writes to
the process's own stderr (file descriptor 2), which an in-process capture does not see.

The masters that cannot be used are refused before the JVM starts (a TCP probe and a
Spark RPC request, the URL's form, YARN's configuration): before that check, a
``spark://`` address where nothing listens failed after more than a minute with 132
lines of JVM stack trace.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from ab_helpers import click_log, write
from helpers import ROOT
from ports import refused_port

pytestmark = pytest.mark.slow   # subprocesses; the worker case starts Spark

SAMPLE = ROOT / "corpora" / "sample"

# Valid arguments for each command that takes --spark-master (given the files made by
# the `files` fixture), so that the master is what the command meets.
ARGS = {
    ("eval",): lambda f: [str(SAMPLE / "qrels.txt"), str(SAMPLE / "runs" / "bm25.txt")],
    ("ab", "analyze"): lambda f: [str(f["log"]), "--assign", str(f["assign"])],
    ("clicks", "fit"): lambda f: [str(f["log"]), "-o", str(f["out"])],
}
# Lines no failure may print: a Python traceback, a JVM stack frame or exception class,
# a log4j line, the JVM's own notices, the Spark launcher's shell errors.
NOISE = ("Traceback", "\tat ", "at org.", "at java.", "org.apache.", "py4j", "WARN ",
         "ERROR ", "log4j", "incubator modules", "spark-class")


def spark_commands() -> list[tuple[str, ...]]:
    import typer

    from relkit.judging.cli import full_app

    def walk(c: object, path: tuple[str, ...]) -> Iterator[tuple[str, ...]]:
        subs = getattr(c, "commands", None)
        if subs is not None:
            for name, sub in subs.items():
                yield from walk(sub, (*path, name))
        elif any("--spark-master" in p.opts for p in getattr(c, "params", [])):
            yield path

    return sorted(walk(typer.main.get_command(full_app()), ()))


COMMANDS = spark_commands()


def test_every_spark_command_is_walked() -> None:
    assert COMMANDS, "no command takes --spark-master"
    assert set(COMMANDS) == set(ARGS), ("give ARGS valid arguments for",
                                        set(COMMANDS) - set(ARGS))


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("spark_failures")
    log, assign = click_log(30, 5, queries=2)
    return {"log": write(log, d / "log.parquet"), "assign": write(assign, d / "assign.parquet"),
            "out": d / "model.json"}


def run(command: tuple[str, ...], files: dict[str, Path], master: str,
        **env: str | None) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items()
               if k not in ("HADOOP_CONF_DIR", "YARN_CONF_DIR", "RELKIT_SPARK_MASTER",
                            "MASTER", "PYSPARK_GATEWAY_PORT")}
    for key, value in env.items():
        if value is None:
            environ.pop(key, None)
        else:
            environ[key] = value
    args = [sys.executable, "-m", "relkit", *command, *ARGS[command](files),
            "--engine", "spark", "--spark-master", master]
    # A bound on a run that hangs, not a measure: each case ends in seconds.
    return subprocess.run(args, capture_output=True, text=True, env=environ, timeout=900)


def one_line(proc: subprocess.CompletedProcess[str], code: int, *words: str) -> str:
    err = proc.stderr
    assert proc.returncode == code, (proc.returncode, err)
    assert err.count("\n") == 1 and err.endswith("\n"), err
    for noise in NOISE:
        assert noise not in err, (noise, err)
    for word in words:
        assert word in err, (word, err)
    return err


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_a_master_nobody_answers_is_one_line(files: dict[str, Path],
                                             command: tuple[str, ...]) -> None:
    with refused_port() as port:
        master = f"spark://127.0.0.1:{port}"
        one_line(run(command, files, master), 1, f"--spark-master {master}",
                 "no Spark master answers there (connection refused)")


# One command: every command reaches the master through the same relkit code
# (relkit.metrics.spark.master, tried for each command by the other cases here).
@pytest.mark.parametrize("command", COMMANDS[:1], ids=" ".join)
def test_an_address_that_is_not_a_spark_master_is_one_line(files: dict[str, Path],
                                                           command: tuple[str, ...]) -> None:
    """Something accepts the connection but never answers: Spark would retry its
    registration for a minute (3 x 20 s, fixed in Spark's code) before the job died;
    relkit's probe gets no answer to its Spark RPC request and refuses the address
    before the JVM starts (in 5 s). A master that answers the probe but gives up on the
    application later is named from the JVM's log
    (test_spark_master.py::test_a_master_that_gives_up_is_named_from_the_jvm_log)."""
    with socket.socket() as listener:   # the kernel completes the handshakes; no reply
        listener.bind(("127.0.0.1", 0))
        listener.listen(16)
        master = f"spark://127.0.0.1:{listener.getsockname()[1]}"
        proc = run(command, files, master)
    one_line(proc, 1, f"--spark-master {master}", "no Spark master answers there",
             "accepts connections but sent no answer to a Spark RPC request within 5 s")


# One command: the MasterUnreachableError it raises (check_master's yarn branch) reaches
# every command through the same except clause of start_session that
# test_a_master_nobody_answers_is_one_line runs for each command.
@pytest.mark.parametrize("command", COMMANDS[:1], ids=" ".join)
def test_yarn_without_its_configuration_is_one_line(files: dict[str, Path],
                                                    command: tuple[str, ...]) -> None:
    one_line(run(command, files, "yarn"), 1, "--spark-master yarn", "HADOOP_CONF_DIR",
             "YARN_CONF_DIR")


# Every command with one bad URL, and every bad URL with one command: a command reaches
# the URL through start_session (relkit.metrics.spark.options), which turns any
# MasterURLError into the same one-line usage error whatever the URL; which URL is bad
# is check_master's alone (each form in-process in test_spark_master.py). The full
# product (15 runs of relkit, about 3 CPU-s each) repeated those two paths.
URL_CASES = ([(c, "foo://x") for c in COMMANDS]
             + [(COMMANDS[0], m) for m in ("local[0]", "local[abc]", "spark://host",
                                           "sc://localhost")])


@pytest.mark.parametrize(("command", "master"), URL_CASES,
                         ids=[f"{' '.join(c)}-{m}" for c, m in URL_CASES])
def test_a_url_spark_does_not_take_is_a_usage_error(files: dict[str, Path],
                                                    command: tuple[str, ...],
                                                    master: str) -> None:
    one_line(run(command, files, master), 2, "--spark-master", master)


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_java_home_pointing_nowhere_is_one_line(files: dict[str, Path], tmp_path: Path,
                                                command: tuple[str, ...]) -> None:
    nowhere = tmp_path / "no-java"
    one_line(run(command, files, "local[1]", JAVA_HOME=str(nowhere)), 2,
             f"JAVA_HOME={nowhere}")


# One command: the SparkUnavailableError it raises (get_session's quiet JVM launch) reaches
# every command through the same except clause of start_session that
# test_java_home_pointing_nowhere_is_one_line runs for each command.
@pytest.mark.parametrize("command", COMMANDS[:1], ids=" ".join)
def test_a_java_that_exits_at_once_is_one_line(files: dict[str, Path], tmp_path: Path,
                                               command: tuple[str, ...]) -> None:
    """The JVM's launcher fails (a broken Java installation): its own error line is the
    cause relkit names; nothing the launcher prints reaches stderr."""
    java = tmp_path / "broken-java" / "bin" / "java"
    java.parent.mkdir(parents=True)
    java.write_text("#!/bin/sh\necho 'Error: could not create the Java Virtual Machine' >&2\n"
                    "exit 1\n")
    java.chmod(0o755)
    one_line(run(command, files, "local[1]", JAVA_HOME=str(java.parent.parent)), 2,
             "the Java runtime exited before Spark started",
             "Error: could not create the Java Virtual Machine")


def python_without_relkit(root: Path) -> Path:
    """A virtual environment with this one's packages (PySpark, pyarrow, numpy) but not
    relkit: the Python of an executor where relkit was never installed."""
    venv = root / "bare"
    base = getattr(sys, "_base_executable", sys.executable)
    subprocess.run([base, "-m", "venv", "--without-pip", str(venv)], check=True)
    ours = Path(sysconfig.get_paths()["purelib"])
    deps = root / "deps"
    deps.mkdir()
    for entry in ours.iterdir():
        text = entry.read_text(errors="replace") if entry.suffix == ".pth" else ""
        if "relkit" in entry.name.lower() or str(ROOT) in text:
            continue
        (deps / entry.name).symlink_to(entry)
    python = venv / "bin" / "python"
    purelib = subprocess.run([python, "-c", "import sysconfig; "
                              "print(sysconfig.get_paths()['purelib'])"],
                             capture_output=True, text=True, check=True).stdout.strip()
    Path(purelib, "deps.pth").write_text(f"import site; site.addsitedir({str(deps)!r})\n")
    probe = subprocess.run([python, "-c", "import pyspark, pyarrow, numpy\n"
                            "try:\n import relkit\nexcept ImportError: print('no relkit')"],
                           capture_output=True, text=True)
    assert probe.stdout == "no relkit\n", probe
    return python


@pytest.fixture(scope="module")
def bare_python(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return python_without_relkit(tmp_path_factory.mktemp("executor"))


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_executors_without_relkit_name_the_cause_and_the_fix(
        files: dict[str, Path], bare_python: Path, command: tuple[str, ...]) -> None:
    """A real local Spark whose workers run a Python without relkit. A command whose job
    runs no Python on the executors (plain Spark SQL) succeeds; any other says why."""
    proc = run(command, files, "local[1]", PYSPARK_PYTHON=str(bare_python))
    if proc.returncode == 0:
        for noise in NOISE:
            assert noise not in proc.stderr, (noise, proc.stderr)
        return
    one_line(proc, 1, "the Spark executors cannot import relkit", "install relkit[spark]",
             "PYSPARK_PYTHON")
