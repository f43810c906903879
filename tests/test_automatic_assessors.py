"""Automatic assessors (LLM judges): stored apart from people, counted only when asked.

The project (tests/store_helpers.py): ann judges topic 1 (d00-d07), bob topic 007
(d04-d11), no overlap. An automatic judge "umbrela" is imported on topic 1.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy import text

from helpers import run_cli
from relkit.judging.store.models import StoreError
from store_helpers import make_project, snapshot


def _project(tmp_path: Path) -> tuple[str, Path]:
    """ann: d00=3, d01=0 on topic 1; umbrela (automatic): d00=1, d01=2, d02=3."""
    db = str(tmp_path / "p.db")
    store = make_project(db)
    ann = next(n for n in ("ann", "bob") if "1" in {t.key for t in store.assessor(n).topics()})
    view = store.assessor(ann)
    view.record(topic="1", doc="d00", grade=3, dwell_ms=1000)
    view.record(topic="1", doc="d01", grade=0, dwell_ms=1000)
    llm = tmp_path / "llm.qrels"
    llm.write_text("1 0 d00 1\n1 0 d01 2\n1 0 d02 3\n")
    code, _, err = run_cli(["import", "judgments", str(llm), "--db", db, "--assessor",
                            "umbrela", "--kind", "automatic"])
    assert code == 0, err
    return db, llm


def _kind(db: str, name: str) -> str:
    from relkit.judging.store.assign import Store

    return Store.open(db, readonly=True).kinds()[name]


def test_import_kind_automatic_is_stored(tmp_path: Path) -> None:
    db, _ = _project(tmp_path)
    assert _kind(db, "umbrela") == "automatic"
    assert _kind(db, "ann") == "human"


def test_import_for_an_existing_assessor_of_the_other_kind_is_refused(tmp_path: Path) -> None:
    from relkit.judging.store.assign import Store

    db, llm = _project(tmp_path)
    before = snapshot(Store.open(db))
    code, _, err = run_cli(["import", "judgments", str(llm), "--db", db, "--assessor",
                            "umbrela"])      # --kind human (the default)
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "'umbrela' is an automatic assessor" in err and f"{llm}:1" in err
    ann = tmp_path / "ann.qrels"
    ann.write_text("1 0 d03 1\n")
    code, _, err = run_cli(["import", "judgments", str(ann), "--db", db, "--kind",
                            "automatic"])
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "'ann' is a human assessor" in err
    assert snapshot(Store.open(db)) == before    # nothing was imported


def test_bad_kind_is_a_usage_error(tmp_path: Path) -> None:
    db, llm = _project(tmp_path)
    code, _, err = run_cli(["import", "judgments", str(llm), "--db", db, "--kind", "llm"])
    assert code == 2 and "--kind" in err and "automatic" in err


def test_status_keeps_automatic_assessors_apart(tmp_path: Path) -> None:
    db, _ = _project(tmp_path)
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, err
    data = json.loads(out)
    assert "umbrela" not in {a["assessor"] for a in data["assessors"]}
    assert data["automatic"] == [{"assessor": "umbrela", "topics": 1, "judgments": 3,
                                  "grade_counts": {"1": 1, "2": 1, "3": 1}}]
    topic1 = next(t for t in data["topics"] if t["topic"] == "1")
    assert topic1["grade_counts"] == {"0": 1, "3": 1}       # ann's only
    code, out, _ = run_cli(["status", "--db", db])
    block = out.split("\n\n")[-1].splitlines()
    assert block[0].split()[:3] == ["automatic", "topics", "judgments"]
    assert block[1].split() == ["umbrela", "1", "3", "1:1", "2:1", "3:1"]


def _qrels(db: str, *args: str) -> list[str]:
    code, out, err = run_cli(["export", "qrels", "--db", db, "--no-unjudged", *args])
    assert code == 0, err
    return out.splitlines()


@pytest.mark.parametrize("method", ["majority", "adjudicated", "mean"])
def test_exports_count_humans_only_unless_asked(tmp_path: Path, method: str) -> None:
    db, _ = _project(tmp_path)
    # ann graded d00=3, d01=0; umbrela d00=1, d01=2, d02=3 (d02: only the machine).
    assert _qrels(db, "--method", method) == ["1 0 d00 3", "1 0 d01 0"]
    both = _qrels(db, "--method", method, "--include-automatic")
    assert "1 0 d02 3" in both
    if method != "mean":   # majority of {3, 1}: a tie, to the lower grade
        assert both[:2] == ["1 0 d00 1", "1 0 d01 0"]


@pytest.mark.parametrize("method", ["wawa", "dawid-skene"])
def test_crowd_methods_count_humans_only_unless_asked(tmp_path: Path, method: str) -> None:
    # The crowd methods read the store's labels through their own path: the machine's
    # grades must stay out of it as out of majority (d02 is graded by the machine only).
    db, _ = _project(tmp_path)
    assert [r.split()[2] for r in _qrels(db, "--method", method)] == ["d00", "d01"]
    assert "d02" in [r.split()[2] for r in _qrels(db, "--method", method,
                                                   "--include-automatic")]


def test_the_full_dump_says_who_is_automatic(tmp_path: Path) -> None:
    db, _ = _project(tmp_path)
    code, out, _ = run_cli(["export", "jsonl", "--db", db])
    d00 = next(r for r in map(json.loads, out.splitlines()) if r["doc"] == "d00")
    assert {j["assessor"]: j["kind"] for j in d00["judgments"]} == {
        next(j["assessor"] for j in d00["judgments"] if j["assessor"] != "umbrela"): "human",
        "umbrela": "automatic"}


def test_one_automatic_assessors_qrels_are_exported_by_name(tmp_path: Path) -> None:
    db, _ = _project(tmp_path)
    assert _qrels(db, "--method", "assessor", "--assessor", "umbrela") == [
        "1 0 d00 1", "1 0 d01 2", "1 0 d02 3"]


def test_disagreements_and_the_leads_cases_leave_machines_out(tmp_path: Path) -> None:
    from relkit.judging.store.adjudication import cases
    from relkit.judging.store.assign import Store

    db, _ = _project(tmp_path)
    code, out, _ = run_cli(["disagreements", "--db", db])
    assert out.splitlines()[1:] == []
    code, out, _ = run_cli(["disagreements", "--db", db, "--include-automatic"])
    assert len(out.splitlines()) == 3     # header, d00 and d01
    store = Store.open(db, readonly=True)
    assert cases(store) == []
    assert [c.doc for c in cases(store, include_automatic=True)] == ["d00", "d01"]


def test_an_automatic_assessor_is_not_assigned_items(tmp_path: Path) -> None:
    from relkit.judging.store.assign import Store

    db, _ = _project(tmp_path)
    before = snapshot(Store.open(db))
    code, _, err = run_cli(["assign", "umbrela", "carl", "--db", db])
    assert code == 1 and len(err.strip().splitlines()) == 1, err
    assert "umbrela: an automatic assessor" in err and "Traceback" not in err
    assert snapshot(Store.open(db)) == before


def test_an_automatic_assessor_does_not_open_the_judging_screen(tmp_path: Path) -> None:
    db, _ = _project(tmp_path)
    code, _, err = run_cli(["judge", "--db", db, "--assessor", "umbrela"])
    assert code == 2 and "umbrela is an automatic assessor" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("args", [
    ["assign", "--lead", "umbrela"],
    ["judge", "--lead", "umbrela"],
    ["adjudicate", "1", "d00", "2", "--lead", "umbrela"],
])
def test_an_automatic_assessor_is_never_a_lead(tmp_path: Path, args: list[str]) -> None:
    from relkit.judging.store.assign import Store

    db, _ = _project(tmp_path)
    before = snapshot(Store.open(db))
    code, _, err = run_cli([*args, "--db", db])
    assert code in (1, 2) and "umbrela is an automatic assessor" in err.replace(
        "umbrela: an automatic assessor", "umbrela is an automatic assessor"), err
    assert "Traceback" not in err
    assert snapshot(Store.open(db)) == before


def test_the_database_refuses_an_automatic_lead(db_url: str) -> None:
    # The invariant is a constraint too, whoever writes.
    from sqlalchemy.exc import IntegrityError

    store = make_project(db_url)
    with pytest.raises(IntegrityError), store.writer.begin() as conn:
        conn.execute(text("INSERT INTO assessor (name, role, kind, created_at) VALUES "
                          "('bot', 'lead', 'automatic', CURRENT_TIMESTAMP)"))
    with pytest.raises(IntegrityError), store.writer.begin() as conn:
        conn.execute(text("INSERT INTO assessor (name, role, kind, created_at) VALUES "
                          "('bot', 'assessor', 'robot', CURRENT_TIMESTAMP)"))


def test_library_import_refuses_an_unknown_kind(tmp_path: Path) -> None:
    from relkit.judging.judgment_files import JudgmentLine
    from relkit.judging.store.imports import import_judgments

    store = make_project(str(tmp_path / "p.db"))
    with pytest.raises(StoreError, match="unknown assessor kind"):
        import_judgments(store, [JudgmentLine("x", "1", "d00", 1, "f", 1)], kind="robot")


def test_upgrade_from_0004_with_data_makes_everyone_human(db_url: str) -> None:
    """A database at 0004 with assessors, assignments, judgments and an adjudication."""
    from alembic import command
    from alembic.autogenerate import compare_metadata
    from alembic.runtime.migration import MigrationContext
    from sqlmodel import SQLModel

    from relkit.judging.store.assign import Store
    from relkit.judging.store.connection import writer
    from relkit.judging.store.migrate import _config, current, head, upgrade
    from relkit.judging.store.reports import adjudicate

    store = make_project(db_url, overlap=1.0)
    store.assessor("ann").record(topic="1", doc="d00", grade=3)
    store.assessor("bob").record(topic="1", doc="d00", grade=1)
    adjudicate(store, "lee", "1", "d00", 2)
    cfg = _config()
    with writer(store.engine).begin() as conn:
        cfg.attributes["connection"] = conn
        command.downgrade(cfg, "0004")
    assert current(store.engine) == "0004"
    store.engine.dispose()
    reopened = Store.open(db_url)          # a write open: upgraded to head
    assert current(reopened.engine) == head() >= "0005"
    assert reopened.kinds() == {"ann": "human", "bob": "human", "lee": "human"}
    assert reopened.assessors(role="lead") == ["lee"]
    assert [j.grade for j in reopened.assessor("ann").judgments("1")] == [3]
    with reopened.engine.connect() as conn:
        diff = compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}),
                                SQLModel.metadata)
        assert diff == []
    upgrade(reopened.engine)               # idempotent
    # The upgraded database takes automatic assessors.
    from relkit.judging.judgment_files import JudgmentLine
    from relkit.judging.store.imports import import_judgments

    import_judgments(reopened, [JudgmentLine("bot", "1", "d00", 0, "f", 1)], kind="automatic")
    assert reopened.kinds()["bot"] == "automatic"
