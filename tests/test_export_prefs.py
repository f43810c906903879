"""`relkit export prefs DB --answers OUT.tsv` (issue 38): the answers file the
aggregation reads: current answers, not history, one line per assessor and pair."""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import run_cli
from relkit.corpora.types import TREC_DL, Document, Topic
from relkit.judging.store.assign import Store
from relkit.judging.store.preferences import PreferenceView
from store_helpers import make_project


def _project(path: Path) -> str:
    store = make_project(str(path), overlap=1.0)
    ann, bob = PreferenceView(store, "ann"), PreferenceView(store, "bob")
    ann.record("1", "d03", "d01", "left")
    ann.record("1", "d01", "d02", "equal")
    ann.record("1", "d01", "d02", "right")   # revised: the current answer is written
    ann.record("1", "d04", "d05", "neither")
    ann.undo("1", "d04", "d05")              # undone: not written
    bob.record("007", "d10", "d04", "right")
    store.close()
    return str(path)


def test_the_answers_file_holds_the_current_answers(tmp_path: Path) -> None:
    db = _project(tmp_path / "p.db")
    out = tmp_path / "answers.tsv"
    code, stdout, err = run_cli(["export", "prefs", db, "--answers", str(out)])
    assert (code, stdout) == (0, "")
    assert err == f"relkit: wrote 3 answers to {out}\n"
    assert out.read_text() == ("topic_id\tleft\tright\tanswer\tassessor\n"
                               "1\td01\td02\tright\tann\n"
                               "1\td03\td01\tleft\tann\n"
                               "007\td10\td04\tright\tbob\n")
    again = tmp_path / "again.tsv"  # --db as every other command takes it
    assert run_cli(["export", "prefs", "--db", db, "--answers", str(again)])[0] == 0
    assert again.read_text() == out.read_text()


def test_two_databases_are_a_usage_error(tmp_path: Path) -> None:
    db = _project(tmp_path / "p.db")
    code, _, err = run_cli(["export", "prefs", db, "--db", str(tmp_path / "other.db"),
                            "--answers", str(tmp_path / "a.tsv")])
    assert code == 2
    assert len(err.strip().splitlines()) == 1 and "two databases given" in err
    assert not (tmp_path / "a.tsv").exists()


def test_an_id_with_a_tab_is_refused_in_one_line(tmp_path: Path) -> None:
    store = Store.open(tmp_path / "t.db")
    store.create_collection("c", TREC_DL, [Topic("1", "t")],
                            [Document("a\tb", "", "x"), Document("c", "", "y")])
    store.import_pool([("1", "a\tb"), ("1", "c")], name="p")
    store.assign(["ann"])
    PreferenceView(store, "ann").record("1", "a\tb", "c", "left")
    store.close()
    out = tmp_path / "a.tsv"
    code, _, err = run_cli(["export", "prefs", str(tmp_path / "t.db"), "--answers", str(out)])
    assert code == 1
    assert err.strip().splitlines() == [
        "relkit: error: document id 'a\\tb' holds a tab or a line break: it cannot be written to "
        "a tab-separated answers file"]
    assert not out.exists()


@pytest.mark.parametrize("bad", ["missing-dir/a.tsv", "."])
def test_an_unwritable_answers_path_is_one_line(tmp_path: Path, bad: str) -> None:
    db = _project(tmp_path / "p.db")
    code, _, err = run_cli(["export", "prefs", db, "--answers", str(tmp_path / bad)])
    assert code == 1
    assert len(err.strip().splitlines()) == 1 and "--answers " in err
