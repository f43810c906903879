"""Defects a newcomer's review of issues 15 and 16 found: each test failed before its fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import SHARED, run_cli
from ports import POLL
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store

CORPORA = SHARED / "corpora"


def _project(tmp_path: Path) -> str:
    store = Store.open(tmp_path / "p.db")
    docs = [Document(f"d{i}", f"Title {i}", f"Text {i}.") for i in range(3)]
    store.create_collection("c", TREC_DL, [Topic("1", "solar")], docs)
    store.import_pool([("1", d.id) for d in docs], name="p")
    store.assign(["ann", "bob"], overlap=1.0)
    return str(tmp_path / "p.db")


def test_judge_as_assessor_with_a_leads_name_is_refused(tmp_path: Path) -> None:
    # Before: the screen opened with "0 topics" (a lead has no assignment).
    db = _project(tmp_path)
    assert run_cli(["assign", "--db", db, "--lead", "carol"])[0] == 0
    code, out, err = run_cli(["judge", "--db", db, "--assessor", "carol"])
    assert (code, out) == (2, "")
    (line,) = err.splitlines()
    assert "carol is a lead, not an assessor" in line and "--lead carol" in line


def test_export_quiet_is_quiet(tmp_path: Path) -> None:
    # Before: export's own --quiet silenced the warning but not "wrote N qrels lines".
    db = _project(tmp_path)
    Store.open(db).assessor("ann").record(topic="1", doc="d0", grade=2)
    out_file = tmp_path / "q.txt"
    code, _, err = run_cli(["export", "qrels", "--db", db, "-o", str(out_file), "--quiet"])
    assert (code, err) == (0, "") and out_file.read_text().startswith("1 0 d0 2\n")
    code, _, err = run_cli(["export", "qrels", "--db", db, "-o", str(out_file)])
    assert code == 0 and "wrote 3 qrels lines" in err


def test_judgment_files_after_runs_get_the_hint(tmp_path: Path) -> None:
    # Before: "agreement needs two or more assessors; found ['ann']" and no hint.
    (tmp_path / "ann.qrels").write_text("1 0 d1 1\n1 0 d2 0\n")
    (tmp_path / "bob.qrels").write_text("1 0 d1 1\n1 0 d2 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    code, _, err = run_cli(["agree", str(tmp_path / "ann.qrels"), "--runs",
                            str(tmp_path / "r.txt"), str(tmp_path / "bob.qrels"),
                            "--scale", "binary"])
    assert code == 1
    (line,) = err.splitlines()
    assert "found ann (judgment files after --runs are read as runs" in line
    assert "['" not in line


@pytest.mark.parametrize("args", [
    ["pool", "RUN", "--depth", "-3"],
    ["corpora", "fetch", "cranfield", "--source", "nosuch"],
])
def test_a_bad_option_value_exits_2(tmp_path: Path, args: list[str]) -> None:
    # Before: exit 1 (a failure), with "it has ['github', 'glasgow']" for the source.
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 d1 1 2.0 r\n")
    code, _, err = run_cli([str(run) if a == "RUN" else a for a in args])
    assert code == 2
    (line,) = err.splitlines()
    assert "Invalid value for" in line and "['" not in line


def test_messages_list_choices_plainly(tmp_path: Path) -> None:
    # Before: Python lists ("expected one of ['text', 'tsv', 'json']", "[0, 1, 2, 3]").
    db = _project(tmp_path)
    code, _, err = run_cli(["status", "--db", db, "--format", "csv"])
    assert code == 2 and "expected one of text, tsv, json" in err
    bad = tmp_path / "ann.qrels"
    bad.write_text("1 0 d0 7\n")
    code, _, err = run_cli(["import", "judgments", str(bad), "--db", db])
    assert code == 1 and "expected one of 0, 1, 2, 3" in err and "[" not in err


@pytest.mark.skipif(not (CORPORA / "cranfield").is_dir(), reason="shared corpora missing")
def test_fetch_to_a_folder_suggests_a_command_that_works(tmp_path: Path,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    # Before: "try: relkit corpora info cranfield", which says it is not fetched yet.
    import functools
    import http.server
    import threading

    handler = functools.partial(http.server.SimpleHTTPRequestHandler,
                                directory=str(CORPORA / "cranfield"))
    handler.log_message = lambda *a: None  # type: ignore[attr-defined]
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, args=(POLL,), daemon=True).start()
    monkeypatch.setenv("RELKIT_CACHE", str(tmp_path / "cache"))
    try:
        dest = tmp_path / "cf"
        code, _, err = run_cli(["corpora", "fetch", "cranfield", "--url-base",
                                f"http://127.0.0.1:{server.server_address[1]}",
                                "--dest", str(dest)])
    finally:
        server.shutdown()
    assert code == 0, err
    hint = err.strip().splitlines()[-1]
    assert hint.endswith(f"try: relkit corpora info {dest}")
    code, out, err = run_cli(["corpora", "info", str(dest)])
    assert code == 0, err


def test_help_shows_plain_value_labels() -> None:
    # Before (Typer 0.29): `<list[Path]>`, `<int range>`, `<str>` after the options.
    import typer

    from relkit.judging.cli import full_app
    from relkit.judging.clidoc import _walk

    leaves = [path[1:] for path, cmd in _walk(typer.main.get_command(full_app()), ["relkit"])
              if not getattr(cmd, "commands", None)]
    assert len(leaves) > 20
    for path in leaves:
        code, out, _ = run_cli([*path, "--help"])
        assert code == 0, path
        for typename in ("<list[", "<str>", "<int", "<float", "<Path", "<bool"):
            assert typename not in out, (path, typename)


def test_compare_reads_a_run_from_stdin() -> None:
    # Before: "-: expected an existing file; found no such file".
    import subprocess
    import sys

    sample = Path(__file__).parents[1] / "corpora" / "sample"
    qrels, (a, b) = sample / "qrels.txt", sorted((sample / "runs").glob("*.txt"))[:2]

    def compare(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
        return subprocess.run([sys.executable, "-m", "relkit", "compare", "--format", "csv",
                               *args], input=stdin, capture_output=True)

    files = compare(str(qrels), str(a), str(b))
    piped = compare(str(qrels), "-", str(b), stdin=a.read_bytes())
    assert files.returncode == piped.returncode == 0, piped.stderr
    assert piped.stdout.decode().replace("stdin", a.stem) == files.stdout.decode()
    twice = compare("-", "-", str(b), stdin=a.read_bytes())
    assert twice.returncode == 2 and b"not both" in twice.stderr
