"""``relkit judges-run --backend supervised`` end to end on the shipped sample project:
people judge a third of the pairs, the offline judge learns them and grades the pool
(held-out pairs out of fold), ``relkit judges`` compares it with the people. Grades are
checked against SupervisedJudge fitted directly on the same judgments and text."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from autojudge_helpers import automatic_grades as _grades
from helpers import run_cli
from relkit.corpora.known import SAMPLE_DIR

QRELS = SAMPLE_DIR / "qrels.txt"


def _project(tmp: Path, every: int = 3) -> str:
    """The demo project, with every ``every``-th line of the sample's qrels that is in
    the pool imported as a person's (``nist``) judgments."""
    db = str(tmp / "demo.db")
    assert run_cli(["demo", "--no-judge", "--db", db, "--quiet"])[0] == 0
    pooled = set(_pool(db))
    lines = [ln for ln in QRELS.read_text().splitlines()
             if tuple(ln.split()[0::2][:2]) in pooled]
    (tmp / "some.qrels").write_text("\n".join(lines[::every]) + "\n")
    code, _, err = run_cli(["import", "judgments", str(tmp / "some.qrels"), "--assessor",
                            "nist", "--db", db])
    assert code == 0, err
    return db


def _pool(db: str) -> list[tuple[str, str]]:
    from relkit.judging.autojudge.pairs import pool_requests
    from relkit.judging.store.assign import Store

    store = Store.open(db, readonly=True)
    try:
        return [(r.topic, r.doc) for r in pool_requests(store)[1]]
    finally:
        store.close()


def _human(db: str) -> dict[tuple[str, str], int]:
    from relkit.judging.store.assign import Store
    from relkit.judging.store.reports import export_qrels

    store = Store.open(db, readonly=True)
    try:
        return {(t, d): g for t, d, g in export_qrels(store, "adjudicated", unjudged=False)}
    finally:
        store.close()


def _rows(path: Path) -> list[tuple[object, ...]]:
    with sqlite3.connect(path) as c:
        return sorted(c.execute("SELECT * FROM answer"))


def _history(db: str) -> int:
    with sqlite3.connect(db) as c:
        return int(c.execute("SELECT COUNT(*) FROM judgment_history").fetchone()[0])


def _run(db: str, *more: str) -> tuple[int, str, str]:
    return run_cli(["judges-run", "--db", db, "--backend", "supervised", *more])


def test_grades_the_pool_as_an_automatic_assessor_and_judges_compares_it(
        tmp_path: Path) -> None:
    from relkit.corpora.collection import Collection
    from relkit.judging.autojudge.supervised import FOLDS, SupervisedBackend
    from relkit.pooling.cal.supervised import SupervisedJudge
    from relkit.pooling.cal.texts import TextSource, read_texts

    db = _project(tmp_path)
    human = _human(db)
    assert 20 < len(human) < 100
    code, out, err = _run(db, "--answers", str(tmp_path / "a.tsv"))
    assert code == 0, err
    assert out == ""
    got = _grades(db, "supervised")
    pool = _pool(db)
    # Every topic of the sample has a judged relevant document in a third of its pool.
    assert set(got) == set(pool), err
    assert f"imported {len(pool)} grades ({len(pool)} new, 0 revised)" in err
    assert "0 requests" not in err and "(0 tokens in, 0 out)" in err
    assert set(got.values()) <= {0, 1, 2, 3} and len(set(got.values())) > 1

    # The oracle: SupervisedJudge fitted on the same text and judgments, directly.
    docs = read_texts(SAMPLE_DIR / "docs.jsonl", "documents")
    texts = TextSource({d: docs[d] for _, d in pool},
                       {t.id: " ".join(x for x in (t.title, t.description) if x)
                        for t in Collection.load(SAMPLE_DIR).read_topics()})
    full = SupervisedJudge.fit(texts, [(t, d, g) for (t, d), g in human.items()], level=2)
    fold = SupervisedBackend(texts, human, level=2).fold
    assert set(fold.values()) == set(range(FOLDS))
    rows = {(ln.split("\t")[0], ln.split("\t")[1]): ln.split("\t")
            for ln in (tmp_path / "a.tsv").read_text().splitlines()[1:]}
    held = {k: SupervisedJudge.fit(texts, [(a, b, x) for (a, b), x in human.items()
                                           if fold[(a, b)] != k], level=2)
            for k in range(FOLDS)}
    for (t, d), g in got.items():
        raw = json.loads(json.loads(rows[(t, d)][6]))
        if (t, d) in human:
            judge = held[fold[(t, d)]]
            assert raw["held_out"] is True
        else:
            judge = full
            assert raw["held_out"] is False
        grade, p = judge.grade(t, d)
        assert (g, raw["grade"]) == (grade, grade)
        assert raw["probability"] == pytest.approx(p, abs=1e-6)
        assert raw["relevant"] == pytest.approx(judge.relevance(t, d), abs=1e-6)

    # `relkit judges` compares it with the people, on the pairs they judged (held out).
    code, out, err = run_cli(["judges", "--db", db, "--format", "json"])
    assert code == 0, err
    (row,) = [j for j in json.loads(out)["judges"] if j["judge"] == "supervised"]
    assert row["items"] == len(human) and row["only_human"] == 0


def test_same_seed_and_judgments_same_grades_and_a_rerun_writes_nothing(
        tmp_path: Path) -> None:
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    one, two = _project(tmp_path / "a"), _project(tmp_path / "b")
    assert _run(one)[0] == 0 and _run(two)[0] == 0
    cache_one, cache_two = tmp_path / "a" / "demo.answers.sqlite", \
        tmp_path / "b" / "demo.answers.sqlite"
    assert _grades(one, "supervised") == _grades(two, "supervised")
    strip = [r[:-1] for r in _rows(cache_one)]       # all but the time received
    assert strip == [r[:-1] for r in _rows(cache_two)] and len(strip) == len(_pool(one))

    before, history = _rows(cache_one), _history(one)
    code, _, err = _run(one)
    assert code == 0, err
    assert f"{len(strip)} answers from the cache, 0 requests" in err
    assert "relkit: supervised: no new grades to import" in err
    assert _rows(cache_one) == before and _history(one) == history

    # Another seed: other folds, another key: graded anew, not read from the cache.
    code, _, err = _run(one, "--seed", "5", "--assessor", "supervised-5")
    assert code == 0 and "0 answers from the cache" in err, err


def test_too_little_to_learn_from_says_so_in_one_line(tmp_path: Path) -> None:
    db = str(tmp_path / "demo.db")
    assert run_cli(["demo", "--no-judge", "--db", db, "--quiet"])[0] == 0
    code, out, err = _run(db)
    assert code == 1 and out == ""
    assert err.count("\n") == 1 and "nothing to learn from: 0 human judgments" in err, err
    assert not (tmp_path / "demo.answers.sqlite").exists()

    # Topic 101 only, and only not-relevant grades for 102: the rest is named, not graded.
    pooled = [p for p in _pool(db) if p[0] in ("101", "102")]
    q = {(f[0], f[2]): f[3] for f in (ln.split() for ln in QRELS.read_text().splitlines())}
    lines = [f"{t} 0 {d} {q[(t, d)]}" for t, d in pooled
             if (t, d) in q and (t == "101" or int(q[(t, d)]) < 2)]
    (tmp_path / "j.qrels").write_text("\n".join(lines) + "\n")
    assert run_cli(["import", "judgments", str(tmp_path / "j.qrels"), "--assessor", "nist",
                    "--db", db])[0] == 0
    code, _, err = _run(db)
    assert code == 0, err
    graded = _grades(db, "supervised")
    assert {t for t, _ in graded} == {"101"}
    n_other = sum(1 for t, _ in _pool(db) if t != "101")
    assert (f"relkit: supervised: {n_other} of {len(_pool(db))} pairs not graded (topics "
            "with no human-judged relevant document to learn from: 102, 103, 104, 105, "
            "106)\n") in err


@pytest.mark.parametrize(("args", "hint"), [
    (["--backend", "chat"], "--endpoint"),
    (["--endpoint", "http://127.0.0.1:9/v1"], "--model"),
    (["--backend", "bogus"], "--backend"),
    (["--backend", "supervised", "--endpoint", "http://127.0.0.1:9/v1"], "--endpoint"),
    (["--backend", "supervised", "--model", "m"], "--model"),
])
def test_backend_options_are_usage_errors(tmp_path: Path, args: list[str], hint: str) -> None:
    db = str(tmp_path / "p.db")
    code, out, err = run_cli(["judges-run", "--db", db, *args])
    assert code == 2 and out == ""
    assert hint in err and "Traceback" not in err
    assert not Path(db).exists()


@pytest.mark.slow
def test_the_docs_offline_example_runs_as_written(tmp_path: Path) -> None:
    """docs/automatic-judges.md's ``sh offline-judge`` blocks, in order, in one fresh
    directory (with the repository's ``corpora`` beside them, as in the repository), each
    printing the lines of the ``text output`` block after it (tests/test_tutorial.py's
    rules)."""
    import re
    import subprocess

    from helpers import ROOT
    from test_tutorial import env_for, shows

    doc = (ROOT / "docs" / "automatic-judges.md").read_text()
    blocks = re.findall(r"^```(\S*)[ \t]*(\S*)\n(.*?)^```$", doc, flags=re.M | re.S)
    steps: list[tuple[str, list[str]]] = []
    for lang, tag, body in blocks:
        if (lang, tag) == ("sh", "offline-judge"):
            steps.append((body, []))
        elif (lang, tag) == ("text", "output") and steps and not steps[-1][1]:
            steps[-1][1].extend(body.splitlines())
    assert len(steps) == 4 and all(expected for _, expected in steps)
    (tmp_path / "corpora").symlink_to(ROOT / "corpora")
    env = env_for(tmp_path)
    for script, expected in steps:
        proc = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=tmp_path,
                              env=env, capture_output=True, text=True, timeout=600)
        printed = proc.stdout + proc.stderr
        assert proc.returncode == 0 and "Traceback" not in printed, (script, printed)
        assert shows(printed, expected) is None, (script, shows(printed, expected), printed)


def test_the_demo_hints_run_the_offline_judge(tmp_path: Path) -> None:
    """Once something is judged, `relkit demo` (`make demo`) suggests the offline judge
    and `relkit judges`; pasted as printed, both run."""
    from relkit.judging.store.assign import Store
    from test_demo import _commands, _paste

    assert run_cli(["demo", "--db", "demo.db", "--no-judge"], cwd=tmp_path)[0] == 0
    q = {(f[0], f[2]): int(f[3]) for f in (ln.split() for ln in QRELS.read_text().splitlines())}
    store = Store.open(str(tmp_path / "demo.db"), create=False)
    ann = store.assessor("ann")
    for item in ann.items("101")[:8]:
        ann.record(topic="101", doc=item.doc, grade=q.get(("101", item.doc), 0))
    store.close()
    code, _, err = run_cli(["demo", "--db", "demo.db", "--no-judge"], cwd=tmp_path)
    assert code == 0, err
    (run,) = [c for c in _commands(err) if " judges-run " in c]
    (cmp,) = [c for c in _commands(err) if c.split()[1:2] == ["judges"]]
    assert run.endswith("judges-run --db demo.db --backend supervised")
    done = _paste(run, tmp_path)
    assert done.returncode == 0, done.stderr
    assert "supervised (automatic): imported" in done.stderr
    done = _paste(cmp, tmp_path)
    assert done.returncode == 0 and "supervised" in done.stdout, done.stderr


def test_both_stores_grade_and_a_rerun_imports_nothing(db_url: str, tmp_path: Path) -> None:
    """SQLite and PostgreSQL: the humans' grades and the pool's text read, the grades
    imported, a re-run importing nothing (the answers file in --cache)."""
    from store_helpers import make_project

    store = make_project(db_url)
    for name in ("ann", "bob"):
        who = store.assessor(name)
        for t in who.topics():
            for k, item in enumerate(who.items(t.key)):
                who.record(topic=t.key, doc=item.doc, grade=3 if k % 2 else 0)
    store.close()
    cache = str(tmp_path / "answers.sqlite")
    code, _, err = _run(db_url, "--cache", cache)
    assert code == 0, err
    graded = _grades(db_url, "supervised")
    assert graded and set(graded.values()) <= {0, 1, 2, 3}
    code, _, err = _run(db_url, "--cache", cache)
    assert code == 0 and "no new grades to import" in err, err
