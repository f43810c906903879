"""Small CLI defects a newcomer found (2026-11-25): each message as the user needs it."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from store_helpers import make_project


def test_judge_unknown_assessor_is_a_usage_error_naming_the_people(tmp_path: Path) -> None:
    """As ``--lead zed`` (exit 2), and the list is of people who judge on the screen:
    not the automatic assessor whose grades were imported."""
    db = str(tmp_path / "p.db")
    make_project(db).close()
    llm = tmp_path / "llm.qrels"
    llm.write_text("1 0 d00 1\n")
    code, _, err = run_cli(["import", "judgments", str(llm), "--db", db, "--assessor",
                            "umbrela", "--kind", "automatic"])
    assert code == 0, err
    code, _, err = run_cli(["judge", "--db", db, "--assessor", "zed"])
    assert code == 2, err
    assert "no assessor named 'zed'" in err and "the assessors are ann, bob" in err, err
    assert "umbrela" not in err and "--assessor" in err


def test_a_directory_as_the_database_says_so(tmp_path: Path) -> None:
    code, _, err = run_cli(["status", "--db", str(tmp_path)])
    assert code == 1 and len(err.splitlines()) == 1, err
    assert f"{tmp_path} is a directory, not a database file" in err, err


def test_assign_counts_one_assessor_in_the_singular(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    make_project(db, assessors=("ann",)).close()
    code, _, err = run_cli(["assign", "dave", "--db", db])
    assert code == 0, err
    assert "for 1 assessor (" in err, err


def test_adjudicate_takes_the_lead_relkit_acts_for(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    """carol's login (or $RELKIT_USER=carol) need not repeat --lead carol."""
    from relkit.judging.store.adjudication import register_leads
    from relkit.judging.store.assign import Store

    db = str(tmp_path / "p.db")
    store = make_project(db)
    register_leads(store, ["carol"])
    store.close()
    code, _, err = run_cli(["adjudicate", "1", "d00", "2", "--db", db])
    assert code == 2 and "name the lead" in err and "--lead" in err, err
    monkeypatch.setenv("RELKIT_USER", "ann")
    code, _, err = run_cli(["adjudicate", "1", "d00", "2", "--db", db])
    assert code == 2 and "ann, $RELKIT_USER, is an assessor" in err, err
    monkeypatch.setenv("RELKIT_USER", "carol")
    code, _, err = run_cli(["adjudicate", "1", "d00", "2", "--db", db])
    assert code == 0, err
    store = Store.open(db, create=False)
    try:
        from sqlalchemy import text

        with store.engine.connect() as c:
            rows = c.execute(text("SELECT a.name, j.grade FROM adjudication j JOIN assessor a "
                                  "ON a.id = j.lead_id")).all()
    finally:
        store.close()
    assert [tuple(r) for r in rows] == [("carol", 2)]


def test_team_init_on_a_missing_sqlite_file_says_it_is_missing(tmp_path: Path) -> None:
    missing = tmp_path / "nosuch.db"
    code, _, err = run_cli(["team", "init", "--db", str(missing)])
    assert code == 1 and len(err.splitlines()) == 1, err
    assert "SQLite has no users" not in err and "nosuch.db" in err, err
    assert not missing.exists()


# -- the newcomer of 2026-11-29 ------------------------------------------------------
SAMPLE = Path(__file__).resolve().parents[1] / "corpora" / "sample"


def test_export_names_the_assessors_as_a_list_of_names_not_a_python_list(
        tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    make_project(db).close()
    code, _, err = run_cli(["export", "qrels", "--db", db, "--method", "assessor",
                            "--assessor", "zed"])
    assert code == 1 and "no assessor named 'zed'; there are ann, bob" in err, err


def test_one_run_is_pooled_from_one_run(tmp_path: Path) -> None:
    code, _, err = run_cli(["pool", str(SAMPLE / "runs" / "bm25.txt"), "--depth", "2",
                            "-o", str(tmp_path / "p.tsv")])
    assert code == 0 and " from 1 run (depth, depth 2)" in err, err


def test_pairs_says_which_format_it_writes_when_another_is_asked(tmp_path: Path) -> None:
    runs = [str(SAMPLE / "runs" / f) for f in ("bm25.txt", "ql.txt")]
    code, out, err = run_cli(["compare", "--format", "markdown", "--pairs",
                              str(SAMPLE / "qrels.txt"), *runs])
    assert code == 0 and "," in out.splitlines()[0], out      # CSV, as before
    assert "--pairs writes CSV (JSON with --format json): --format markdown does not " \
        "apply to it" in err, err
    code, _, err = run_cli(["compare", "--format", "csv", "--pairs",
                            str(SAMPLE / "qrels.txt"), *runs])
    assert code == 0 and "does not apply" not in err, err


def test_what_stands_where_a_file_was_expected_is_named(tmp_path: Path) -> None:
    import os

    from relkit.metrics.core.errors import found_instead, not_a_file

    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert [not_a_file(p) for p in (tmp_path / "none", tmp_path, fifo)] == [
        "no such file", "is a directory, not a file",
        "is not a regular file (a pipe?): give a file"]
    assert [found_instead(p) for p in (tmp_path / "none", tmp_path, fifo)] == [
        "no file", "a directory", "a pipe or a device"]
