"""The CLI battery's shared parts: the command tree, a valid project, running one case.

tests/test_cli_battery.py (bad option values), tests/test_cli_battery_files.py (hostile
files) and tests/test_cli_battery_numbers.py (numeric boundaries) walk every command of
:func:`relkit.judging.cli.full_app`; this module gives them the tree, the valid files
and command lines a case starts from, the in-process runner (a hang is a failure: an
alarm stops it) and the tally the session's summary prints (tests/conftest.py).
"""

from __future__ import annotations

import csv
import functools
import hashlib
import json
import os
import resource
import shutil
import signal
import traceback
import typing
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from helpers import ROOT, run_cli

SAMPLE = ROOT / "corpora" / "sample"
RUNS = sorted((SAMPLE / "runs").glob("*.txt"))
# A case still running after this long hangs (most take well under a second).
HANG_SECONDS = int(os.environ.get("RELKIT_BATTERY_HANG", "120"))

# Commands not run, and why.
SKIP = {
    ("corpora", "fetch"): "downloads over the network",
    ("judge",): "opens the interactive judging screen (tests/test_tui*.py)",
    ("serve",): "serves until stopped (tests/test_serve*.py)",
}

# Every case's outcome, by suite: what the session's summary reports.
TALLY: dict[str, Counter[str]] = {}
COVERED: dict[str, set[str]] = {}


ESCAPES: dict[str, str] = {}


def record(suite: str, case: str, command: list[str], result: Result | None,
           clean: bool) -> None:
    """Count one case of ``suite`` (clean: it behaved as the standard says)."""
    TALLY.setdefault(suite, Counter())["clean" if clean else "escape"] += 1
    COVERED.setdefault(suite, set()).add(" ".join(command))
    if not clean and result is not None:
        why = (result.crash or "").strip().splitlines()[-1:] or [
            f"exit {result.code}: {result.err.strip()[:200]}"]
        ESCAPES[case] = why[0][:300]


def state() -> dict[str, Any]:
    """This process's tally, as plain data (a pytest-xdist worker sends it to the
    controller, which prints the summary: tests/conftest.py)."""
    return {"tally": {k: dict(v) for k, v in TALLY.items()},
            "commands": {k: sorted(v) for k, v in COVERED.items()}, "escapes": ESCAPES}


def merge(got: dict[str, Any]) -> None:
    """Add another process's :func:`state` to this one's."""
    for suite, counts in got["tally"].items():
        TALLY.setdefault(suite, Counter()).update(counts)
    for suite, done in got["commands"].items():
        COVERED.setdefault(suite, set()).update(done)
    ESCAPES.update(got["escapes"])


def summary() -> list[str]:
    """The lines the session's summary prints (tests/conftest.py)."""
    from relkit.metrics.core.readers import READERS

    lines = []
    for suite, counts in sorted(TALLY.items()):
        total = sum(counts.values())
        lines.append(f"CLI battery, {suite}: {total} cases over {len(COVERED[suite])} "
                     f"commands, {counts['clean']} clean, {counts['escape']} escapes")
    if TALLY:
        lines.append(f"file readers registered (tests/test_reader_fuzz.py): {len(READERS)}")
    return lines


@functools.cache
def commands() -> list[tuple[tuple[str, ...], Any]]:
    """(path, click command) of every leaf command."""
    import typer

    from relkit.judging.cli import full_app

    def walk(c: Any, path: tuple[str, ...]) -> typing.Iterator[tuple[tuple[str, ...], Any]]:
        if hasattr(c, "commands"):
            for name, sub in c.commands.items():
                yield from walk(sub, (*path, name))
        else:
            yield path, c

    return list(walk(typer.main.get_command(full_app()), ()))


def command(path: tuple[str, ...] | list[str]) -> Any:
    return dict(commands())[tuple(path)]


def annotation(param: Any) -> Any:
    """The leaf type of a parameter (``X`` of ``list[X] | None``)."""
    ann = param.type_descriptor.annotation
    args = [a for a in typing.get_args(ann) if a is not type(None)]
    if typing.get_origin(ann) in (list, typing.Union) or type(ann).__name__ == "UnionType":
        return annotation_of(args[0]) if args else str
    return ann


def annotation_of(ann: Any) -> Any:
    args = [a for a in typing.get_args(ann) if a is not type(None)]
    return annotation_of(args[0]) if args else ann


def digest(path: Path) -> str | None:
    return hashlib.sha256(path.read_bytes()).hexdigest() if path.is_file() else None


def assert_closed(db: Path) -> None:
    """The command closed the database it opened.

    Left open, SQLite keeps the last writes in ``-wal`` beside the file: a copy of the
    file alone (a backup, this battery's template) misses them, and :func:`digest`
    would not see a change. (A read-only connection cannot remove the -wal it opened,
    but leaves it empty: nothing was written.)
    """
    wal = Path(f"{db}-wal")
    assert not wal.exists() or wal.stat().st_size == 0, (
        db, "left open: its writes are still in -wal")


class Hang(BaseException):
    """A case ran past :data:`HANG_SECONDS` (BaseException: no ``except Exception`` eats it)."""


@dataclass
class Result:
    code: int | None
    out: str
    err: str
    crash: str | None  # a traceback, or "hang"

    def one_line(self) -> bool:
        return self.err.count("\n") == 1 and self.err.endswith("\n")


def run(args: list[str], cwd: Path) -> Result:
    """``relkit ARGS`` in this process; an exception or a hang is returned, not raised."""
    def alarm(*_: object) -> None:
        raise Hang

    old = signal.signal(signal.SIGALRM, alarm)
    signal.alarm(HANG_SECONDS)
    limits = _memory_cap()
    try:
        code, out, err = run_cli(args, cwd=cwd)
        crash = "Traceback: " + err if "Traceback" in err else None
        return Result(code, out, err, crash)
    except Hang:
        return Result(None, "", "", "hang")
    except BaseException:  # noqa: BLE001 - the finding
        return Result(None, "", "", traceback.format_exc(limit=-3))
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
        if limits is not None:
            resource.setrlimit(resource.RLIMIT_AS, limits)


def _memory_cap() -> tuple[int, int] | None:
    """Cap this process's address space at its size now + 4 GiB; the old limits.

    A case that allocates without bound (a count of 99999999999999999999) then fails
    with MemoryError, a finding like any other, instead of the machine killing pytest.
    """
    try:
        with open("/proc/self/status", encoding="ascii") as fp:
            kib = next(int(line.split()[1]) for line in fp if line.startswith("VmSize:"))
    except (OSError, StopIteration, ValueError):
        return None
    old = resource.getrlimit(resource.RLIMIT_AS)
    cap = kib * 1024 + (4 << 30)
    if old[1] != resource.RLIM_INFINITY and cap > old[1]:
        return None
    resource.setrlimit(resource.RLIMIT_AS, (cap, old[1]))
    return old


# -- a valid project ------------------------------------------------------------------
LOG_FIELDS = ["impression_id", "user_id", "variant", "query_id", "rank", "doc_id", "clicked",
              "ts", "dwell_s"]


class Project:
    """The sample collection, a judging database, and a valid file of every kind."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.template = root / "template.db"
        db = str(self.template)
        for args in (["init", "--topics", str(SAMPLE / "topics.trec"), "--docs",
                      str(SAMPLE / "docs.jsonl"), "--db", db],
                     ["pool", *map(str, RUNS), "--depth", "3", "--into", db],
                     ["assign", "ann", "bob", "--overlap", "0.5", "--db", db],
                     ["pool", *map(str, RUNS), "--depth", "3", "-o", str(root / "pool.tsv")],
                     ["interleave", "make", str(RUNS[0]), str(RUNS[1]), "--depth", "3",
                      "-o", str(root / "lists.tsv")]):
            code, _, err = run_cli(args)
            assert code == 0, (args, err)
        # the commands closed it: every write is in the file itself, so a copy holds them
        assert not Path(f"{db}-wal").exists(), "the template database was left open"
        (root / "prompt.txt").write_text("Query: {query}\nPassage: {text}\n")  # judges-run
        shutil.copy(SAMPLE / "qrels.txt", root / "ann.qrels")
        shutil.copy(SAMPLE / "qrels.txt", root / "bob.qrels")
        self._online()
        code, _, err = run_cli(["clicks", "fit", str(root / "log.csv"), "--model", "pbm",
                                "-o", str(root / "model.json")])
        assert code == 0, err
        (root / "groups.txt").write_text("".join(f"{r.stem} g{i % 2} {i + 1}\n"
                                                 for i, r in enumerate(RUNS)))
        # every pooled pair judged (gold pairs, judgments of a pool sample, an import)
        with open(root / "pool.tsv", encoding="utf-8") as fp:
            pairs = [line.split("\t")[:2] for line in fp.read().splitlines()[1:]]
        (root / "pool.qrels").write_text("".join(f"{t} 0 {d} {i % 3}\n"
                                                 for i, (t, d) in enumerate(pairs)))
        (root / "zscores.txt").write_text("101 map 0.3 0.1\n102 map 0.2 0.1\n")
        # preference answers on pooled pairs (relkit prefs)
        answers = ["topic_id\tleft\tright\tanswer\tassessor"]
        for (t1, d1), (t2, d2) in zip(pairs, pairs[1:], strict=False):
            if t1 == t2:
                answers.append(f"{t1}\t{d1}\t{d2}\t{('left', 'equal')[len(answers) % 2]}\tann")
        (root / "answers.tsv").write_text("\n".join(answers) + "\n")
        # topics' text as pool-simulate --topics reads it (id<TAB>text), for cal
        (root / "topics.tsv").write_text("".join(f"{101 + i}\t{t}\n" for i, t in enumerate(
            ["solar panel output", "heat pump", "home battery", "draught proofing",
             "standby power", "export tariff"])))
        (root / "labels.csv").write_text("assessor,topic,doc,grade\n" + "".join(
            f"{w},{t},{d},{g}\n" for w in ("w1", "w2", "w3")
            for t, d, g in (("101", "D006", 3), ("101", "D008", 0), ("102", "D001", 1))))

    def _online(self) -> None:
        """A click log and assignments (A/B), and a log of the interleaved lists."""
        rows = []
        for u in range(40):
            for q in range(3):
                for rank in (1, 2, 3):
                    rows.append([f"u{u}q{q}", f"u{u}", "control" if u % 2 else "treatment",
                                 str(101 + q), rank, f"D{rank:03d}",
                                 int((u + q + rank) % 4 == 0),
                                 f"2024-01-{1 + u % 20:02d} 10:0{q}:00", 30.0])
        self._csv("log.csv", LOG_FIELDS, rows)
        self._csv("assign.csv", ["unit_id", "variant"],
                  [[f"u{u}", "control" if u % 2 else "treatment"] for u in range(40)])
        with open(self.root / "lists.tsv", encoding="utf-8") as fp:
            shown = list(csv.DictReader(fp, delimiter="\t"))
        self._csv("ilog.csv", ["impression_id", "user_id", "query_id", "rank", "doc_id",
                               "clicked"],
                  [[f"i{u}-{r['query_id']}", f"u{u}", r["query_id"], r["rank"], r["doc_id"],
                    int((u + int(r["rank"])) % 3 == 0)] for u in range(10) for r in shown])

    def _csv(self, name: str, header: list[str], rows: list[list[Any]]) -> None:
        with open(self.root / name, "w", encoding="utf-8", newline="") as fp:
            w = csv.writer(fp)
            w.writerow(header)
            w.writerows(rows)

    def file_for(self, path: tuple[str, ...], name: str) -> Path:
        """A valid file for the file parameter ``name`` of command ``path``."""
        r = self.root
        if path == ("interleave", "analyze") and name == "log":
            return r / "ilog.csv"
        if (path, name) in ((("assign",), "gold"), (("pool-sample",), "qrels"),
                            (("import", "judgments"), "files")):
            return r / "pool.qrels"
        if name == "runs" and path in (("agree",), ("judges",)):
            return RUNS[0]
        by_name = {"qrels": SAMPLE / "qrels.txt", "runs": RUNS[0], "run": RUNS[0],
                   "pool": r / "pool.tsv", "files": r / "ann.qrels",
                   "judgments": r / "ann.qrels", "topics": SAMPLE / "topics.trec",
                   "docs": SAMPLE / "docs.jsonl", "gold": r / "ann.qrels",
                   "log": r / "log.csv", "source": r / "log.csv", "cuped": r / "log.csv",
                   "from_log": r / "log.csv", "assign": r / "assign.csv",
                   "model": r / "model.json", "lists": r / "lists.tsv",
                   "group_file": r / "groups.txt", "zscores": r / "zscores.txt",
                   "labels": r / "labels.csv", "keymap": r / "keys.toml",
                   "topics_file": r / "topics.tsv",
                   "ref": SAMPLE / "collection.toml", "collection": SAMPLE / "collection.toml",
                   "template": r / "prompt.txt",
                   "answers": r / "answers.tsv", "known": r / "pool.qrels"}
        return by_name.get(name, SAMPLE / "qrels.txt")

    def positional(self, path: tuple[str, ...], name: str) -> list[str]:
        """Valid values of a positional argument (optional ones a command needs too)."""
        r = self.root
        two = [str(RUNS[0]), str(RUNS[1])]
        given = {("eval", "runs"): [str(RUNS[0])], ("agree", "judgments"):
                 [str(r / "ann.qrels"), str(r / "bob.qrels")], ("assign", "assessors"): ["cy"],
                 ("compare", "runs"): two, ("interleave", "make", "runs"): two,
                 ("interleave", "simulate", "runs"): two}
        if (*path, name) in given:
            return given[(*path, name)]
        return [str(self.file_for(path, name))]

    def extra(self, path: tuple[str, ...]) -> list[str]:
        """Options a command needs beyond its required ones to do its work."""
        return {
            ("agree",): ["--replicates", "0", "--quiet"],
            ("judges",): ["--qrels", str(SAMPLE / "qrels.txt")],
            ("systems", "run"): ["--collection", str(SAMPLE)],
            ("adjudicate",): ["--lead", "lee"],
            ("ab", "power"): ["--baseline", "0.4", "--mde", "1%"],
            ("interleave", "simulate"): ["--preset", "perfect", "--impressions", "10",
                                         "--trials", "2"],
            ("clicks", "simulate"): ["--preset", "perfect", "--qrels",
                                     str(SAMPLE / "qrels.txt")],
            ("clicks", "fit"): ["--model", "pbm"],
            # (in-process, stdout is text: the lists go to a file)
            ("interleave", "make"): ["-o", str(self.root / "made.tsv")],
        }.get(path, []) if path != ("judges-run",) else [
            # --backend chat (the default) needs both (not required: --backend supervised)
            "--endpoint", chat_endpoint(), "--model", "x"]

    def scalar(self, name: str, ann: Any, db: str, tmp: Path) -> str:
        """A valid value for a required parameter that is not a file to read."""
        if name in ("db", "into"):
            return db
        if name == "endpoint":
            return chat_endpoint()
        if name == "output":
            return str(tmp / ("out.parquet" if "parquet" in name else "out"))
        if ann is int:
            return "1"
        if ann is float:
            return "0.5"
        return {"assessors": "ann", "topic": "101", "doc": "D006", "lead": "lee",
                "ref": "sample", "name": "sample", "grade": "1",
                "expected": "control=50,treatment=50"}.get(name, "x")


def output_name(path: tuple[str, ...], name: str) -> str:
    """The file name a required output gets (its suffix chooses the format)."""
    return {("clicks", "convert"): "out.parquet", ("clicks", "simulate"): "out.parquet",
            ("clicks", "fit"): "model-out.json"}.get(path, "out.txt")


OUTPUTS = {"output", "html", "plot", "plot_file", "dest"}


def command_line(project: Project, path: tuple[str, ...], cmd: Any, tmp: Path, db: Path,
                 given: dict[str, list[str]] | None = None, *, extra: bool = True
                 ) -> list[str]:
    """A valid command line for ``path``, with ``given`` values for some parameters.

    Positional arguments first (a multi-value option takes every value up to the next
    option), then the required options, ``--db``, the command's extra options and the
    given options.
    """
    from pathlib import Path as P

    given = dict(given or {})
    positional: list[str] = []
    options: list[str] = []
    for p in cmd.params:
        if p.param_type_name == "argument":
            if p.name in given:
                positional += given.pop(p.name)
            elif p.required or (*path, p.name) in POSITIONAL_NEEDED:
                positional += project.positional(path, p.name)
            continue
        if p.name in given or not p.required:
            continue
        ann = annotation(p)
        if p.name in OUTPUTS:
            value = str(tmp / output_name(path, p.name))
        elif ann is P and p.name not in ("db", "into"):
            value = str(project.file_for(path, p.name))
        else:
            value = project.scalar(p.name, ann, str(db), tmp)
        options += [p.opts[0], value]
    if any(p.name == "db" for p in cmd.params) and "db" not in given:
        options += ["--db", str(db)]
    if extra:
        options += project.extra(path)
    for name, values in given.items():
        opt = next(p for p in cmd.params if p.name == name).opts[0]
        options += [opt, *values]
    return [*path, *positional, *options]


# Optional positional arguments a command needs to do anything.
POSITIONAL_NEEDED = {("eval", "qrels"), ("eval", "runs"), ("agree", "judgments"),
                     ("judges", "files"), ("assign", "assessors")}


def json_dump(path: Path) -> None:
    """Write the tally (for the closing note's before/after counts)."""
    path.write_text(json.dumps(state(), indent=1))


_CHAT: list[str] = []


def chat_endpoint() -> str:
    """A local chat-completions server for `relkit judges-run` (tests/chat_server.py),
    started once per session and stopped when the session ends."""
    if not _CHAT:
        import atexit

        from chat_server import ChatServer

        server = ChatServer()
        atexit.register(server.stop)
        _CHAT.append(server.url)
    return _CHAT[0]
