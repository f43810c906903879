"""`relkit status` on a cal pool: per topic, judged, relevant found, the stopping rule's
state and its recall estimate (the target method's once its sample is complete); a
project without a cal pool prints what it printed before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from helpers import run_cli
from relkit.judging.store.assign import Store

WORDS = ["wing flutter", "wing lift", "cats", "dogs", "birds sing", "fish swim"]
DOCS = {f"d{i}": WORDS[i % len(WORDS)] for i in range(24)}


def _grade(doc: str) -> int:
    return int("wing" in DOCS[doc])


def _project(tmp_path: Path, *pool: str) -> str:
    (tmp_path / "docs.jsonl").write_text("".join(
        json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in DOCS.items()))
    (tmp_path / "topics.tsv").write_text("1\twing\n")
    (tmp_path / "r.txt").write_text("".join(f"1 Q0 {d} {k} {30 - k} r\n"
                                            for k, d in enumerate(list(DOCS)[:10], 1)))
    db = str(tmp_path / "p.db")
    assert run_cli(["init", "--topics", str(tmp_path / "topics.tsv"), "--docs",
                    str(tmp_path / "docs.jsonl"), "--scale", "binary", "--db", db])[0] == 0
    code, _, err = run_cli(["pool", str(tmp_path / "r.txt"), *pool, "--db", db])
    assert code == 0, err
    assert run_cli(["assign", "ann", "--db", db])[0] == 0
    return db


def _judge(db: str, n: int) -> list[str]:
    view, done = Store.open(db).assessor("ann"), []
    while len(done) < n and (item := view.next_item("1")) is not None:
        view.record(topic="1", doc=item.doc, grade=_grade(item.doc))
        done.append(item.doc)
    return done


def _cal(db: str) -> list[dict[str, object]]:
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, err
    return list(json.loads(out)["cal"])


@pytest.mark.slow
def test_status_follows_the_target_rule_from_sample_to_stop(tmp_path: Path) -> None:
    db = _project(tmp_path, "--strategy", "cal", "--from", "collection", "--budget", "24",
                  "--stop", "target:2")
    (row,) = _cal(db)
    assert row == {"topic": "1", "assessor": "ann", "pool": row["pool"], "judged": 0,
                   "relevant": 0, "rule": "target:2", "recall": None,
                   "state": "target:2: sampling, 0 of 2 target documents found"}
    done = _judge(db, 3)
    (row,) = _cal(db)
    assert row["judged"] == 3 and row["relevant"] == sum(map(_grade, done))
    done += _judge(db, 24)
    assert len(done) < 24            # the rule stopped it
    (row,) = _cal(db)
    assert row["judged"] == len(done) and row["relevant"] == sum(map(_grade, done))
    assert row["recall"] == 1.0 and str(row["state"]).startswith(
        "stopped: target:2: every target document found")
    code, out, _ = run_cli(["status", "--db", db])
    assert code == 0
    table = out[out.index("cal topic"):].splitlines()
    assert table[0].split() == ["cal", "topic", "assessor", "pool", "judged", "relevant",
                                "rule", "recall_est", "state"]
    assert table[1].split()[:7] == ["1", "ann", str(row["pool"]), str(len(done)),
                                    str(row["relevant"]), "target:2", "1.00"]


@pytest.mark.slow
def test_status_shows_the_knee_rules_ratio_and_no_estimate(tmp_path: Path) -> None:
    db = _project(tmp_path, "--strategy", "cal", "--from", "collection", "--budget", "24",
                  "--stop", "knee")
    done = _judge(db, 8)
    (row,) = _cal(db)
    assert row["judged"] == 8 and row["relevant"] == sum(map(_grade, done))
    assert row["recall"] is None and row["rule"] == "knee"
    # the knee rule needs 156 - min(relevant, 150) and at least 150 judgments
    assert str(row["state"]).endswith(f"needs {156 - row['relevant']} from 150 judged")


def test_status_without_a_cal_pool_prints_what_it_did(tmp_path: Path) -> None:
    db = _project(tmp_path, "--depth", "10")
    _judge(db, 3)
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, err
    assert set(json.loads(out)) == {"topics", "assessors", "automatic"}
    code, out, _ = run_cli(["status", "--db", db])
    assert "cal topic" not in out
