"""Bad input is one clear line, never a traceback (issue 23, B and C).

Each case was seen as a traceback or a message that did not say where; each says now
which file, line or option, on one line of stderr.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import ROOT, run_cli
from store_helpers import make_project

SAMPLE = ROOT / "corpora" / "sample"


def one_line(code: int, err: str, want_code: int = 1) -> None:
    assert code == want_code, err
    assert err.count("\n") == 1 and err.endswith("\n"), err
    assert "Traceback" not in err


@pytest.fixture
def project(tmp_path: Path) -> str:
    db = str(tmp_path / "p.db")
    make_project(db).close()
    return db


def test_init_with_a_missing_or_directory_topics_file(tmp_path: Path) -> None:
    db = tmp_path / "n.db"
    code, _, err = run_cli(["init", "--topics", str(tmp_path / "missing.trec"),
                            "--db", str(db)])
    one_line(code, err)
    assert f"{tmp_path / 'missing.trec'}: no such file" in err
    code, _, err = run_cli(["init", "--topics", str(tmp_path), "--db", str(db)])
    one_line(code, err)
    assert "is a directory" in err
    assert not db.exists()  # nothing was created for a failed init


def test_import_binary_and_bad_utf8_judgments(tmp_path: Path, project: str) -> None:
    binary = tmp_path / "bin.qrels"
    binary.write_bytes(bytes(range(128, 256)) * 4)
    code, _, err = run_cli(["import", "judgments", str(binary), "--db", project])
    one_line(code, err)
    assert f"{binary}:1: expected UTF-8 text" in err
    bad = tmp_path / "ann.qrels"
    bad.write_bytes(b"1 0 d00 1\n1 0 d01 0\n1 0 d\xff02 1\n")
    code, _, err = run_cli(["import", "judgments", str(bad), "--db", project])
    one_line(code, err)
    assert f"{bad}:3: expected UTF-8 text; found byte 0xff at column 6" in err
    table = tmp_path / "long.csv"
    table.write_bytes(b"assessor,topic,doc,grade\nann,1,d00,1\nann,1,d\xfe01,1\n")
    for args in (["import", "judgments", str(table), "--db", project], ["agree", str(table)]):
        code, _, err = run_cli(args)
        one_line(code, err)
        assert f"{table}:3: expected UTF-8 text" in err


def test_import_of_an_empty_file_names_it(tmp_path: Path, project: str) -> None:
    empty = tmp_path / "empty.qrels"
    empty.write_text("# nothing\n\n")
    code, _, err = run_cli(["import", "judgments", str(empty), "--db", project])
    one_line(code, err)
    assert f"{empty}: no judgments in it" in err


def test_export_to_a_missing_directory_or_a_directory(tmp_path: Path, project: str) -> None:
    target = tmp_path / "missing" / "dir" / "q.txt"
    code, _, err = run_cli(["export", "qrels", "--db", project, "-o", str(target)])
    one_line(code, err)
    assert f"-o {target}: directory {target.parent} does not exist" in err
    code, _, err = run_cli(["export", "jsonl", "--db", project, "-o", str(tmp_path)])
    one_line(code, err)
    assert f"-o {tmp_path}: is a directory" in err
    runs = sorted((SAMPLE / "runs").glob("*.txt"))[:1]
    code, _, err = run_cli(["pool", *map(str, runs), "-o", str(target)])
    assert code == 1 and "does not exist" in err.splitlines()[-1]


def test_usage_errors_are_one_line(project: str) -> None:
    for args in (["status", "--format", "xml", "--db", project],
                 ["pool", "--depth", "abc", "x.txt"], ["eval", "--nope"]):
        code, _, err = run_cli(args)
        one_line(code, err, 2)
        assert err.startswith(f"relkit {args[0]}: error: ")


def test_debug_still_shows_the_traceback(tmp_path: Path) -> None:
    with pytest.raises(Exception, match="missing.trec"):
        run_cli(["--debug", "init", "--topics", str(tmp_path / "missing.trec"),
                 "--db", str(tmp_path / "n.db")])


def test_judge_refuses_a_negative_idle(tmp_path: Path) -> None:
    for value in ("-5", "0", "nan"):
        code, _, err = run_cli(["judge", "--idle", value, "--db", str(tmp_path / "p.db")])
        one_line(code, err, 2)
        assert "'--idle'" in err and f"{value} is not in x > 0" in err


def test_keymap_errors_name_the_file(tmp_path: Path) -> None:
    from relkit.corpora.types import TREC_DL
    from relkit.judging.tui.keymap import KeymapError, load

    clash = tmp_path / "keys.toml"
    clash.write_text('[keys]\nflag = "2"\n')
    with pytest.raises(KeymapError, match=f"{clash}: key '2' is bound to both"):
        load(clash, TREC_DL)
    for text in (b"keys = 5\n", b"\x80[keys]\n"):
        clash.write_bytes(text)
        with pytest.raises(KeymapError, match=str(clash)):
            load(clash, TREC_DL)


def test_pool_into_a_bad_database_fails_before_pooling(tmp_path: Path) -> None:
    junk = tmp_path / "junk.db"
    junk.write_text("not a database\n" * 20)
    runs = sorted((SAMPLE / "runs").glob("*.txt"))
    code, _, err = run_cli(["pool", *map(str, runs), "--into", str(junk)])
    one_line(code, err)
    assert "not a SQLite database" in err
    code, _, err = run_cli(["pool", *map(str, runs), "--docs", str(SAMPLE / "docs.jsonl")])
    one_line(code, err, 2)
    assert "--db" in err


def test_pool_into_names_the_run_file_of_a_bad_entry(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    code, _, err = run_cli(["init", "--topics", str(SAMPLE / "topics.trec"), "--docs",
                            str(SAMPLE / "docs.jsonl"), "--db", db])
    assert code == 0, err
    run = tmp_path / "extra.txt"
    run.write_text((SAMPLE / "runs" / "bm25.txt").read_text() + "999 Q0 D006 1 9.5 x\n")
    code, _, err = run_cli(["pool", str(run), "--depth", "5", "--into", db])
    one_line(code, err)
    assert f"{run} (topic 999, rank 1): unknown topic '999'" in err
