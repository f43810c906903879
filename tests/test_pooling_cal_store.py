"""cal in the judging store: `relkit pool --strategy cal --from collection --db`, judged
through the store's views, equals AdaptivePool on the same text; restarts and two
sessions of the assessor continue the one sequence; a stopping rule shows in `status`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from cal_corpora import CORPORA, qrels, runs, texts
from helpers import run_cli
from relkit.judging.store.assign import Store
from relkit.pooling.adaptive import AdaptivePool
from relkit.pooling.cal.strategy import with_collection
from relkit.pooling.candidates import Candidates
from relkit.pooling.simulate import grades_of

CRAN = CORPORA / "cranfield"
RUNS = sorted((CRAN / "runs").glob("*/*.txt"))
needs = pytest.mark.skipif(not CRAN.exists(), reason="needs ../shared")


def _project(tmp_path: Path, *extra: str) -> str:
    db = str(tmp_path / "p.db")
    code, _, err = run_cli(["init", "--topics", str(CRAN / "cran.qry"), "--docs",
                            str(CRAN / "cran.all.1400"), "--scale", "cranfield", "--db", db])
    assert code == 0, err
    code, _, err = run_cli(["pool", *map(str, RUNS), "--strategy", "cal", "--from",
                            "collection", "--depth", "50", "--budget", "20", "--topic", "1",
                            "--topic", "2", "--seed", "3", *extra, "--db", db])
    assert code == 0, err
    assert "(cal, seed 3, budget 20 per topic" in err and "2,800 candidates" in err
    assert run_cli(["assign", "ann", "--db", db])[0] == 0
    return db


def _reference(topic: str, budget: int) -> list[str]:
    c = Candidates.from_runs(runs("cranfield"), 50, [topic])
    c = with_collection(c, texts("cranfield").docs, texts("cranfield"))
    g = grades_of(qrels("cranfield"))[topic]
    pool = AdaptivePool("cal", c, {"from": "collection"}, seed=3, level=1, max_grade=4)
    return [j.doc for j in pool.run(topic, lambda d: max(g.get(d, 0), 0), budget)]


@pytest.mark.slow
@needs
def test_the_store_shows_cals_sequence_across_restarts_and_sessions(tmp_path: Path) -> None:
    db = _project(tmp_path)
    g = grades_of(qrels("cranfield"))["1"]
    shown: list[str] = []
    one, two = Store.open(db).assessor("ann"), Store.open(db).assessor("ann")
    for k in range(20):
        view = (one, two)[k % 2] if k < 12 else Store.open(db).assessor("ann")  # restarts
        item = view.next_item("1")
        assert item is not None
        shown.append(item.doc)
        view.record(topic="1", doc=item.doc, grade=max(g.get(item.doc, 0), 0))
    assert Store.open(db).assessor("ann").next_item("1") is None      # budget reached
    assert shown == _reference("1", 20)


@needs
def test_from_is_cals_option(tmp_path: Path) -> None:
    code, _, err = run_cli(["pool", *map(str, RUNS), "--strategy", "bandit", "--from",
                            "collection", "--budget", "5", "--db", str(tmp_path / "x.db")])
    assert code == 2 and "--from" in err and len(err.strip().splitlines()) == 1
    code, _, err = run_cli(["pool", *map(str, RUNS), "--strategy", "cal", "--from",
                            "everything", "--budget", "5", "--db", str(tmp_path / "x.db")])
    assert code == 2 and "--from" in err and "everything" in err


@pytest.mark.slow
def test_status_says_the_target_rule_stopped_a_cal_topic(tmp_path: Path) -> None:
    words = ["wing flutter", "wing lift", "cats", "dogs", "birds sing", "fish swim"]
    docs = [(f"d{i}", words[i % len(words)]) for i in range(24)]
    (tmp_path / "docs.jsonl").write_text("".join(
        json.dumps({"_id": d, "title": "", "text": t}) + "\n" for d, t in docs))
    (tmp_path / "topics.tsv").write_text("1\twing\n")
    (tmp_path / "r.txt").write_text("".join(f"1 Q0 {d} {k} {30 - k} r\n"
                                            for k, (d, _) in enumerate(docs[:10], 1)))
    db = str(tmp_path / "p.db")
    assert run_cli(["init", "--topics", str(tmp_path / "topics.tsv"), "--docs",
                    str(tmp_path / "docs.jsonl"), "--scale", "binary", "--db", db])[0] == 0
    code, _, err = run_cli(["pool", str(tmp_path / "r.txt"), "--strategy", "cal", "--from",
                            "collection", "--budget", "24", "--stop", "target:2", "--db", db])
    assert code == 0, err
    assert run_cli(["assign", "ann", "--db", db])[0] == 0
    view = Store.open(db).assessor("ann")
    n = 0
    while (item := view.next_item("1")) is not None:
        view.record(topic="1", doc=item.doc, grade=int("wing" in dict(docs)[item.doc]))
        n += 1
    assert n < 24
    code, out, err = run_cli(["status", "--db", db, "--format", "json"])
    assert code == 0, err
    (stop,) = json.loads(out)["stopped"]
    assert stop["rule"] == "target:2" and stop["assessor"] == "ann"
    assert stop["judged"] == n
