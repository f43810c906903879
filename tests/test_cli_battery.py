"""Every command, every option that takes a value, fed invalid values (issue 23, D).

The command tree comes from :func:`relkit.judging.cli.full_app`, so a new command or
option is covered without touching this file. Each option gets invalid values made from
its declared type: an integer option ``abc`` (and one below its declared minimum), a
float option ``abc``, a path a missing file and a directory, ``--db``/``--into`` a file
that is not a database, an empty file and a directory, and a string option a bogus
word. The rest of the command line is valid (the shipped sample collection and a judging
database made from it), so the bad value is what the command meets.

Asserted for each run: a value the option cannot take (not a number, out of range, not
one of its names) exits 2, as every usage error does (issue 15); a failure (a file that
cannot be read, a database that is not one, a name the data does not hold) exits 1;
either way exactly one line on stderr and no traceback; and the judging database given
by ``--db`` is unchanged byte-for-byte. A value that a command may legitimately accept (a
new output path, a free-text name) may succeed instead, but never with a traceback.
"""

from __future__ import annotations

import shutil
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import battery
from battery import RUNS, SAMPLE, annotation, assert_closed, digest
from helpers import run_cli

# Commands not run here, and why.
SKIP = {
    ("corpora", "fetch"): "downloads over the network",
}
# Valid arguments a command needs beyond its required ones (optional in the signature
# but needed to reach the option under test), by command; filled in by Project.
EXTRA: dict[tuple[str, ...], list[str]] = {
    # interleaving needs a second run
    ("interleave", "make"): [str(SAMPLE / "runs" / "ql.txt")],
    # ...and simulate a second run and a user
    ("interleave", "simulate"): [str(SAMPLE / "runs" / "ql.txt"), "--preset", "perfect"],
    # the owner names the lead (a lead's own login need not)
    ("adjudicate",): ["--lead", "lee"],
    # something to write: the trec_eval prefs format (to stdout)
    ("export", "prefs"): ["--to", "prefs"],
}
# ...except when they would make the option under test moot.
NO_EXTRA = {("systems run", "--docs"), ("systems run", "--topics"), ("agree", "--db"),
            ("judges", "--db"), ("adjudicate", "--lead")}
# String options naming something the data may or may not hold (not a fixed set of
# names): refusing one is a failure (exit 1), not a usage error.
DATA_NAMES = {
    ("assign", "--pool"), ("assign", "--topic"), ("pool", "--topic"), ("pool", "--name"),
    ("export qrels", "--assessor"), ("adjudicate", "--lead"), ("adjudicate", "--note"),
    ("agree", "--gold"), ("compare", "--baseline"), ("systems run", "--collection"),
    ("demo", "--assessor"), ("assign", "--lead"), ("import judgments", "--assessor"),
    ("clicks stats", "--by"), ("interleave analyze", "--names"),
    ("ab analyze", "--control"), ("ab monitor", "--control"),
    ("team init", "--serve-login"),  # a role on the server: looked up there
    ("judges-run", "--pool"),
}
# Options not fed bad values, and why.
SKIP_OPTIONS = {
    ("judge", "--assessor"): "a valid name opens the interactive judging screen",
    ("judge", "--keymap"): "checked when the screen opens (tests/test_tui.py)",
    ("judge", "--lead"): "a lead's name opens the interactive adjudication screen (anyone "
                         "else is refused: tests/test_tui_lead.py)",
}


def commands() -> list[tuple[list[str], Any]]:
    return [(list(path), cmd) for path, cmd in battery.commands()]


class Project(battery.Project):
    """The battery's valid project (tests/battery.py), with what this battery adds: the
    valid value of a required parameter and the invalid values of an option."""

    def __init__(self, root: Path) -> None:
        super().__init__(root)
        qrels, ann, bob = (str(p) for p in (SAMPLE / "qrels.txt", root / "ann.qrels",
                                            root / "bob.qrels"))
        EXTRA.update({("eval",): [qrels, str(RUNS[0])],
                      ("compare",): [qrels, str(RUNS[0]), str(RUNS[1])],
                      ("agree",): [ann, bob, "--replicates", "0", "--quiet"],
                      ("judges",): [ann, "--qrels", qrels],
                      ("systems", "run"): ["--collection", str(SAMPLE)],
                      # Assessors became optional (a lead alone may be registered):
                      # name one, so the option under test is what assign meets.
                      ("assign",): ["ann"],
                      # power needs a baseline and an effect (or a log) to compute anything
                      ("ab", "power"): ["--baseline", "0.4", "--mde", "1%"]})

    def valid(self, name: str, ann: Any, db: str) -> str:
        """A valid value for a required parameter."""
        if name in ("db", "into"):
            return db
        if name == "endpoint":
            return battery.chat_endpoint()
        if ann is Path:
            return str({"qrels": SAMPLE / "qrels.txt", "runs": RUNS[0], "run": RUNS[0],
                        "pool": self.root / "pool.tsv", "files": self.root / "ann.qrels",
                        "judgments": self.root / "ann.qrels", "topics": SAMPLE / "topics.trec",
                        "docs": SAMPLE / "docs.jsonl", "output": self.root / "out.txt",
                        "answers": self.root / "answers.tsv"}
                       .get(name, SAMPLE / "qrels.txt"))
        if ann is int:
            return "1"
        if ann is float:
            return "0.5"
        return {"assessors": "ann", "topic": "101", "doc": "D006", "lead": "lee",
                "ref": "sample", "name": "sample",
                "expected": "control=50,treatment=50"}.get(name, "x")

    def bad(self, param: Any, ann: Any, tmp: Path, command: str) -> list[tuple[str, bool]]:
        """Invalid values for ``param``, each with whether succeeding is acceptable.

        :func:`expected_code` says how each should fail.
        """
        junk, empty, self.dir = tmp / "junk.db", tmp / "empty.db", tmp / "a-directory"
        junk.write_bytes(b"not a database, just some text\n" * 40)
        empty.touch()
        self.dir.mkdir()
        if param.name in ("db", "into"):
            # `init` and `demo` create a database: in an empty file too.
            return [(str(junk), False), (str(empty), command in ("init", "demo")),
                    (str(self.dir), False)]
        if ann is int:
            out = [("abc", False)]
            if param.min is not None:
                out.append((str(param.min - 1), False))
            return out
        if ann is float:
            return [("abc", False)] + ([(str(param.min - 1), False)]
                                       if param.min is not None else [])
        if ann is Path:
            output = param.name in ("output", "dest", "plot", "html") or (
                command, param.name) in (("judges-run", "cache"), ("judges-run", "answers"))
            return [(str(self.root / "missing" / "x.txt"), False),
                    (str(tmp / "no-such-file.txt"), output), (str(self.dir), False)]
        if getattr(ann, "__members__", None) is not None or typing.get_origin(ann) is \
                typing.Literal:
            return [("bogus-choice", False)]
        return [("bogus-choice", True)]


def expected_code(path: list[str], opt: str, param: Any, ann: Any, value: str) -> int:
    """2 for a value the option cannot take (a usage error), 1 for a failure."""
    if param.name in ("db", "into"):
        return 1  # a database that is not one: a failure, named
    if ann is Path:
        # A file that cannot be read or written is a failure, except a plot whose type
        # (its suffix) relkit cannot write, and pool's --docs without --db and
        # pool-sample's --qrels without --prels and vice versa (an option that needs
        # another: refused before the file is looked at).
        # (clicks convert -o writes Parquet only: a .txt is a usage error too.)
        if (opt == "--plot" or path == ["clicks", "convert"] and opt == "-o") \
                and value.endswith("no-such-file.txt") \
                or (path, opt) in ((["pool"], "--docs"), (["pool-sample"], "--qrels"),
                                   (["pool-sample"], "--prels"),
                                   # --ppi's files without --ppi
                                   (["eval"], "--human"), (["eval"], "--auto"),
                                   # needs --model or --preset, which the battery omits
                                   (["clicks", "simulate"], "-o")):
            return 2
        return 1
    if ann in (int, float) or getattr(ann, "__members__", None) is not None \
            or typing.get_origin(ann) is typing.Literal:
        return 2
    return 1 if (" ".join(path), opt) in DATA_NAMES else 2


def cases() -> Iterator[Any]:
    for path, cmd in commands():
        if tuple(path) in SKIP:
            continue
        for param in cmd.params:
            if param.param_type_name != "option" or getattr(param, "is_flag", False) \
                    or param.name == "help" or (path[0], param.opts[0]) in SKIP_OPTIONS:
                continue
            yield pytest.param(path, param.opts[0], id=f"{' '.join(path)} {param.opts[0]}")


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    return Project(tmp_path_factory.mktemp("battery"))


@pytest.mark.parametrize(("path", "opt"), list(cases()))
def test_invalid_option_value_is_one_clean_line(project: Project, tmp_path: Path,
                                                path: list[str], opt: str) -> None:
    cmd = dict((tuple(p), c) for p, c in commands())[tuple(path)]
    param = next(p for p in cmd.params if p.opts and p.opts[0] == opt)
    db = tmp_path / "p.db"
    shutil.copy(project.template, db)
    base: list[str] = []
    has_db = any(p.name == "db" for p in cmd.params)
    for p in cmd.params:
        if p is param or not p.required:
            continue
        value = project.valid(p.name, annotation(p), str(db))
        base += [value] if p.param_type_name == "argument" else [p.opts[0], value]
    if has_db and param.name != "db":
        base += ["--db", str(db)]
    if (" ".join(path), opt) not in NO_EXTRA:
        base += EXTRA.get(tuple(path), [])
    if tuple(path) == ("judges-run",):   # --backend chat (the default) needs both
        base += ["--endpoint", battery.chat_endpoint(), "--model", "x"]
    for value, may_succeed in project.bad(param, annotation(param), tmp_path, path[0]):
        before = digest(db)
        args = [*path, *base, opt, value]
        code, _, err = run_cli(args, cwd=tmp_path)
        assert "Traceback" not in err, (args, err)
        assert_closed(db)
        if code == 0:
            assert may_succeed, (args, "accepted an invalid value", err)
            continue
        assert code == expected_code(path, opt, param, annotation(param), value), \
            (args, code, err)
        assert err.count("\n") == 1 and err.endswith("\n"), (args, err)
        assert digest(db) == before, (args, "changed the database")
