"""The store commands end to end through the `relkit` CLI (SQLite)."""

from __future__ import annotations

import json
from pathlib import Path

from helpers import run_cli
from store_helpers import make_project


def test_status_export_import_adjudicate(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    store = make_project(db, overlap=1.0)
    ann, bob = store.assessor("ann"), store.assessor("bob")
    ann.record(topic="1", doc="d00", grade=3, dwell_ms=4000)
    bob.record(topic="1", doc="d00", grade=1, dwell_ms=2000)
    code, out, err = run_cli(["status", "--db", db])
    assert code == 0, err
    assert "ann" in out and "median_dwell_s" in out
    code, out, _ = run_cli(["status", "--db", db, "--format", "json"])
    data = json.loads(out)
    assert {a["assessor"]: a["done"] for a in data["assessors"]} == {"ann": 1, "bob": 1}
    code, out, err = run_cli(["export", "qrels", "--db", db, "--method", "assessor",
                              "--assessor", "ann"])
    assert code == 0, err
    assert "1 0 d00 3" in out.splitlines() and "1 0 d01 -1" in out.splitlines()
    code, out, _ = run_cli(["disagreements", "--db", db])
    assert out.splitlines()[1] == "1\td00\tann=3 bob=1\t-"
    code, _, err = run_cli(["adjudicate", "1", "d00", "2", "--lead", "lee", "--db", db])
    assert code == 0, err
    code, out, _ = run_cli(["export", "qrels", "--db", db, "--method", "adjudicated",
                            "--no-unjudged"])
    assert out == "1 0 d00 2\n"
    carol = tmp_path / "carol.qrels"
    carol.write_text("1 0 d00 2\n1 0 d01 x\n")
    before = run_cli(["export", "jsonl", "--db", db])[1]
    code, _, err = run_cli(["import", "judgments", str(carol), "--db", db])
    assert code == 1 and f"{carol}:2" in err and "integer grade" in err
    assert "Traceback" not in err
    assert run_cli(["export", "jsonl", "--db", db])[1] == before  # nothing was written
    carol.write_text("1 0 d00 2\n1 0 d01 0\n")
    code, _, err = run_cli(["import", "judgments", str(carol), "--db", db])
    assert code == 0 and "imported 2" in err
    recs = [json.loads(line) for line in run_cli(["export", "jsonl", "--db", db])[1].splitlines()]
    d00 = next(r for r in recs if r["doc"] == "d00")
    assert {j["assessor"] for j in d00["judgments"]} == {"ann", "bob", "carol"}
    assert d00["pools"][0]["pool"] == "depth-8"


def test_missing_database_and_bad_options(tmp_path: Path) -> None:
    code, _, err = run_cli(["status", "--db", str(tmp_path / "none.db")])
    assert code == 1 and "no judging database" in err
    db = str(tmp_path / "p.db")
    make_project(db)
    code, _, err = run_cli(["export", "qrels", "--db", db, "--method", "vote"])
    assert code == 2 and "majority" in err
    code, _, err = run_cli(["export", "qrels", "--db", db, "--method", "assessor"])
    assert code == 1 and "needs --assessor" in err


def test_adjudicated_export_counts_what_the_majority_rule_settled(tmp_path: Path) -> None:
    """Unadjudicated disagreements were settled silently (997 on the tutorial's data)."""
    from relkit.judging.judgment_files import JudgmentLine
    from relkit.judging.store.imports import import_judgments
    from relkit.judging.store.reports import adjudicate, export_qrels

    db = str(tmp_path / "p.db")
    store = make_project(db)
    # d00: 3,1 -> tie, settled low (1).  d01: 2,2,0 -> majority 2 (no tie).
    # d02: 3,0 -> adjudicated by a lead (2): not settled by rule.  d03: 1,1 -> agreement.
    grades = {"ann": (3, 2, 3, 1), "bob": (1, 2, 0, 1), "cy": (None, 0, None, None)}
    lines = [JudgmentLine(who, "1", doc, g, f"{who}.qrels", i)
             for who, gs in grades.items()
             for i, (doc, g) in enumerate(zip(("d00", "d01", "d02", "d03"), gs, strict=True))
             if g is not None]
    import_judgments(store, lines, add_missing=True)
    adjudicate(store, "lee", "1", "d02", 2)
    rows = export_qrels(store, "adjudicated", unjudged=False)
    assert rows[:4] == [("1", "d00", 1), ("1", "d01", 2), ("1", "d02", 2), ("1", "d03", 1)]
    assert (rows.settled, rows.ties_low) == (2, 1)
    code, out, err = run_cli(["export", "qrels", "--db", db, "--method", "adjudicated",
                              "--no-unjudged"])
    assert code == 0 and out.splitlines()[:2] == ["1 0 d00 1", "1 0 d01 2"]
    assert err == ("relkit export qrels: warning: 2 disagreements without a lead's grade were "
                   "settled by majority (1 tie given the lower grade); adjudicate them first "
                   "(relkit disagreements; relkit judge --lead NAME) or pass --quiet\n")
    quiet = run_cli(["export", "qrels", "--db", db, "--method", "adjudicated", "--no-unjudged",
                     "--quiet"])
    assert quiet == (0, out, "")
    # The other methods say what they do by their name: no warning.
    assert run_cli(["export", "qrels", "--db", db, "--method", "majority"])[2] == ""
    adjudicate(store, "lee", "1", "d00", 3)
    adjudicate(store, "lee", "1", "d01", 2)
    code, _, err = run_cli(["export", "qrels", "--db", db, "--method", "adjudicated"])
    assert code == 0 and err == ""


def test_a_second_gold_file_cannot_change_a_gold_grade(tmp_path: Path) -> None:
    """`assign --gold` again with another grade for a gold pair kept the old one
    silently; the known grade assessors are checked against has no history."""
    from store_helpers import snapshot

    db = str(tmp_path / "p.db")
    make_project(db, assessors=("ann",)).close()
    gold = tmp_path / "gold.qrels"
    gold.write_text("1 0 d00 3\n")
    code, _, err = run_cli(["assign", "bob", "--gold", str(gold), "--db", db])
    assert code == 0, err
    from relkit.judging.store.assign import Store

    store = Store.open(db, create=False)
    before = snapshot(store)
    gold.write_text("1 0 d00 1\n")
    code, _, err = run_cli(["assign", "cy", "--gold", str(gold), "--db", db])
    assert code == 1 and err.count("\n") == 1, err
    assert "gold pair ('1', 'd00') already has grade 3" in err and "says 1" in err
    assert snapshot(store) == before
    gold.write_text("1 0 d00 3\n")  # the same grade again: fine
    code, _, err = run_cli(["assign", "cy", "--gold", str(gold), "--db", db])
    assert code == 0, err
    store.close()
