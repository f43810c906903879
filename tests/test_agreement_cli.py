"""``relkit agree`` end to end: files, the database, runs, every format, bad input."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from scipy.stats import kendalltau

from helpers import ROOT, run_cli

SAMPLE = ROOT / "corpora" / "sample"


def _files(tmp: Path) -> list[str]:
    (tmp / "alice.qrels").write_text("1 0 d1 2\n1 0 d2 0\n1 0 d3 3\n2 0 d4 1\n2 0 d5 2\n")
    (tmp / "bob.qrels").write_text("1 0 d1 2\n1 0 d2 1\n1 0 d3 3\n2 0 d4 0\n2 0 d5 2\n")
    (tmp / "carol.tsv").write_text("assessor\ttopic\tdoc\tgrade\ncarol\t1\td1\t3\ncarol\t1\td2\t0\n"
                                   "carol\t1\td3\t3\ncarol\t2\td4\t1\ncarol\t2\td5\t1\n")
    return [str(tmp / n) for n in ("alice.qrels", "bob.qrels", "carol.tsv")]


@pytest.mark.parametrize("fmt", ["text", "json", "markdown", "html"])
def test_agree_formats(tmp_path: Path, fmt: str) -> None:
    code, out, err = run_cli(["agree", *_files(tmp_path), "--scale", "trec-dl", "--format", fmt,
                              "--replicates", "50"])
    assert code == 0, err
    if fmt == "json":
        d = json.loads(out)
        k = d["graded"]["pairs"][0]["stats"]["cohen_kappa"]
        assert k["status"] == "ok" and k["analytic"]["low"] < k["value"] < k["analytic"]["high"]
        assert d["binary"]["overall"]["fleiss_kappa"]["bootstrap"]["replicates"] <= 50
        assert d["threshold"] == 2 and d["assessors"] == ["alice", "bob", "carol"]
    elif fmt == "html":
        # a kappa matrix per level (graded, binary) and the per-topic columns
        assert out.startswith("<!DOCTYPE html>") and out.count("<svg") == 3
        assert "Confusion matrices" in out and "http" not in out.replace("http://www.w3", "")
    else:
        assert "fleiss_kappa" in out and "Overlap of relevant sets" in out


def test_agree_bad_input_is_one_line(tmp_path: Path) -> None:
    files = _files(tmp_path)
    (tmp_path / "bad.qrels").write_text("1 0 d1 2\n1 0 d2 7\n")
    code, out, err = run_cli(["agree", files[0], str(tmp_path / "bad.qrels"), "--scale",
                              "trec-dl"])
    assert code == 1 and err.strip().endswith("expected one of 0, 1, 2, 3)")
    assert f"{tmp_path / 'bad.qrels'}:2: grade 7 is not on" in err
    code, _, err = run_cli(["agree", files[0], "--scale", "trec-dl"])
    assert code == 1 and "two or more assessors" in err
    code, _, err = run_cli(["agree", *files, "--gold", "alcie", "--scale", "trec-dl"])
    assert code == 1 and "did you mean 'alice'?" in err


def test_agree_inferred_scale_keeps_unused_middle_grade(tmp_path: Path) -> None:
    (tmp_path / "a.qrels").write_text("1 0 d1 0\n1 0 d2 3\n1 0 d3 1\n")
    (tmp_path / "b.qrels").write_text("1 0 d1 0\n1 0 d2 3\n1 0 d3 0\n")
    code, out, err = run_cli(["agree", str(tmp_path / "a.qrels"), str(tmp_path / "b.qrels"),
                              "--format", "json", "--replicates", "0"])
    assert code == 0 and "scale inferred" in err
    assert json.loads(out)["graded"]["grades"] == [0, 1, 2, 3]


def test_agree_from_the_database(tmp_path: Path) -> None:
    db = str(tmp_path / "p.db")
    files = _files(tmp_path)
    from relkit.corpora.types import TREC_DL, Topic
    from relkit.judging.store.assign import Store

    store = Store.open(db)
    store.create_collection("demo", TREC_DL, [Topic("1"), Topic("2")])
    store.close()
    code, _, err = run_cli(["import", "judgments", *files, "--db", db, "--add-missing"])
    assert code == 0, err
    code, out, err = run_cli(["agree", "--db", db, "--format", "json", "--replicates", "0"])
    assert code == 0, err
    d = json.loads(out)
    assert d["scale"] == "trec-dl" and d["judgments"] == 15 and d["items"] == 5
    code2, out2, _ = run_cli(["agree", *files, "--scale", "trec-dl", "--format", "json",
                              "--replicates", "0"])
    assert json.loads(out2)["graded"]["overall"] == d["graded"]["overall"]


def test_effect_on_conclusions(tmp_path: Path) -> None:
    """Two assessors' qrels: the sample qrels and a copy with topic 101's grades flipped."""
    lines = (SAMPLE / "qrels.txt").read_text().splitlines()
    (tmp_path / "nist.qrels").write_text("\n".join(lines) + "\n")
    flipped = []
    for ln in lines:
        t, it, d, g = ln.split()
        flipped.append(f"{t} {it} {d} {3 - int(g) if t == '101' else g}")
    (tmp_path / "other.qrels").write_text("\n".join(flipped) + "\n")
    runs = sorted(str(p) for p in (SAMPLE / "runs").glob("*.txt"))
    args = ["agree", str(tmp_path / "nist.qrels"), str(tmp_path / "other.qrels"), "--scale",
            "trec-dl", "--format", "json", "--replicates", "0"]
    for r in runs:
        args += ["--runs", r]
    code, out, err = run_cli(args)
    assert code == 0, err
    e = json.loads(out)["effect_on_conclusions"]
    p = e["pairs"][0]
    systems = e["systems"]
    ref = kendalltau([p["mean_a"][s] for s in systems], [p["mean_b"][s] for s in systems])
    assert p["kendall_tau"] == pytest.approx(ref.statistic)
    assert p["flips"] >= abs(p["significant_a"] - p["significant_b"])
    assert p["system_pairs"] == len(runs) * (len(runs) - 1) // 2 == 6


def test_per_topic_pairwise_in_json_matches_sklearn(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    code, out, err = run_cli(["agree", *_files(tmp_path), "--scale", "trec-dl", "--format",
                              "json", "--replicates", "0"])
    assert code == 0, err
    d = json.loads(out)
    grades = {"alice": {"d1": 2, "d2": 0, "d3": 3}, "carol": {"d1": 3, "d2": 0, "d3": 3}}
    pairs = {(p["a"], p["b"]): p for p in d["graded"]["per_topic_pairs"]["1"]}
    p = pairs[("alice", "carol")]
    ref = cohen_kappa_score([grades["alice"][x] for x in ("d1", "d2", "d3")],
                            [grades["carol"][x] for x in ("d1", "d2", "d3")],
                            labels=[0, 1, 2, 3])
    assert p["n"] == 3 and p["stats"]["cohen_kappa"]["value"] == pytest.approx(ref)
    assert p["stats"]["cohen_kappa"]["analytic"]["se"] >= 0
    t1 = d["graded"]["per_topic"]["1"]
    kappas = [q["stats"]["cohen_kappa"]["value"] for q in pairs.values()]
    assert t1["mean_pairwise_cohen_kappa"]["value"] == pytest.approx(sum(kappas) / 3)
    assert t1["fleiss_kappa"]["analytic"]["se"] > 0
    assert "positive_agreement" in d["binary"]["per_topic_pairs"]["1"][0]["stats"]
    assert d["notes"] and "per topic" in d["notes"][0]


def test_gold_column_of_a_long_table(tmp_path: Path) -> None:
    f = tmp_path / "crowd.tsv"
    f.write_text("topicID\tworkerID\tdocID\tgold\tlabel\n"
                 "1\tw1\td1\t2\t2\n1\tw2\td1\t2\t1\n1\tw1\td2\t-1\t0\n1\tw2\td2\t-1\t-2\n"
                 "1\tw1\td3\t0\t0\n1\tw2\td3\t0\t0\n")
    code, out, err = run_cli(["agree", str(f), "--format", "json", "--replicates", "0"])
    assert code == 0, err
    assert "gold column read as assessor 'gold': 2 pairs" in err and "1 with gold -1" in err
    assert "1 with -2" in err
    d = json.loads(out)
    assert d["gold"] == "gold" and d["judgments"] == 5 + 2
    assert {p["a"] for p in d["graded"]["gold"]} == {"w1", "w2"}
    f.write_text("topicID\tworkerID\tdocID\tgold\tlabel\n1\tw1\td1\t2\t2\n1\tw2\td1\t1\t1\n")
    code, _, err = run_cli(["agree", str(f)])
    assert code == 1 and "crowd.tsv:3" in err and "gold grade 2" in err


def test_gold_pairs_from_the_database(tmp_path: Path) -> None:
    from sklearn.metrics import cohen_kappa_score

    from relkit.corpora.types import TREC_DL, Topic
    from relkit.judging.store.assign import Store
    from relkit.judging.store.tables import GoldRow

    db = str(tmp_path / "g.db")
    store = Store.open(db)
    store.create_collection("demo", TREC_DL, [Topic("1"), Topic("2")])
    store.close()
    code, _, err = run_cli(["import", "judgments", *_files(tmp_path), "--db", db,
                            "--add-missing"])
    assert code == 0, err
    gold = {("1", "d1"): 3, ("1", "d2"): 0, ("1", "d3"): 2, ("2", "d4"): 1, ("2", "d5"): 2}
    store = Store.open(db, create=False)
    with store.write() as s, s.begin():
        c = store.collection_row(s)
        topics, docs = store.topic_ids(s, c.id), store.doc_ids(s, c.id)
        for (t, d), g in gold.items():
            s.add(GoldRow(collection_id=c.id, topic_id=topics[t], document_id=docs[d], grade=g))
    store.close()
    code, out, err = run_cli(["agree", "--db", db, "--format", "json", "--replicates", "0"])
    assert code == 0, err
    d = json.loads(out)
    assert d["gold"] == "gold" and "gold table" in err
    alice = next(p for p in d["graded"]["gold"] if p["a"] == "alice")
    ref = cohen_kappa_score([2, 0, 3, 1, 2], list(gold.values()), labels=[0, 1, 2, 3])
    assert alice["stats"]["cohen_kappa"]["value"] == pytest.approx(ref)


def test_agree_header_names_the_interval_kind(tmp_path: Path) -> None:
    """Tester: the text header said "95% intervals" whatever --interval chose."""
    files = _files(tmp_path)
    code, out, err = run_cli(["agree", *files, "--scale", "trec-dl", "--interval", "t"])
    assert code == 0, err
    assert "95% intervals (analytic: t(n - 1))" in out
    code, out, err = run_cli(["agree", *files, "--scale", "trec-dl"])
    assert "95% intervals (analytic: normal)" in out
