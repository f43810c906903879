"""Crowd aggregation: the label table, the methods' rules, the CLI (export qrels, agree --workers).

The numbers of the EM methods are checked against crowd-kit in test_crowd_oracle.py;
these are the rules by hand and the commands end to end.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.judging.crowd.methods import METHODS, aggregate
from relkit.judging.crowd.table import CrowdError, LabelTable
from store_helpers import make_project


def table(rows: list[tuple[str, str, int]]) -> LabelTable:
    """(doc, worker, label) rows, all on topic 1."""
    d, w, g = zip(*rows, strict=True)
    return LabelTable.from_columns(["1"] * len(rows), list(d), list(w), list(g))


def test_majority_tie_goes_to_the_lowest_label() -> None:
    # a: 0 and 2 once each -> tie -> 0.  b: 1, 1, 2 -> 1.  c: -2, 2 -> tie -> -2.
    t = table([("a", "x", 2), ("a", "y", 0), ("b", "x", 1), ("b", "y", 1), ("b", "z", 2),
               ("c", "x", -2), ("c", "z", 2)])
    agg = aggregate(t, "majority")
    assert agg.rows() == [("1", "a", 0), ("1", "b", 1), ("1", "c", -2)]
    assert list(t.classes) == [-2, 0, 1, 2]
    np.testing.assert_allclose(agg.probas[1], [0, 0, 2 / 3, 1 / 3])


def test_wawa_weights_by_agreement_with_the_majority() -> None:
    # Majority: a 1,1,0 -> 1; b 0,1,0 -> 0; c 1,0 -> tie -> 0; d 0,1,0 -> 0; e 1,0 -> tie -> 0.
    # Agreement: x a b d of a b c d = 3/4; y a of a b d e = 1/4; z b c d e of 5 = 4/5.
    # Wawa: a: 1 has 3/4 + 1/4 = 1, 0 has 4/5 -> 1.  c: x (1) 3/4 vs z (0) 4/5 -> 0.
    t = table([("a", "x", 1), ("a", "y", 1), ("a", "z", 0), ("b", "x", 0), ("b", "y", 1),
               ("b", "z", 0), ("c", "x", 1), ("c", "z", 0), ("d", "x", 0), ("d", "y", 1),
               ("d", "z", 0), ("e", "y", 1), ("e", "z", 0)])
    agg = aggregate(t, "wawa")
    assert agg.skills is not None
    np.testing.assert_allclose(agg.skills, [3 / 4, 1 / 4, 4 / 5])
    assert [g for _, _, g in agg.rows()] == [1, 0, 0, 0, 0]
    np.testing.assert_allclose(agg.probas[0], [0.8 / 1.8, 1 / 1.8])
    np.testing.assert_allclose(agg.probas[2], [0.8 / 1.55, 0.75 / 1.55])


def test_a_repeated_label_is_two_votes() -> None:
    # x labels a twice 2, y once 0: two votes to one (crowd-kit counts rows the same way)
    t = table([("a", "x", 2), ("a", "x", 2), ("a", "y", 0)])
    assert len(t) == 3 and t.n_workers == 2
    assert aggregate(t, "majority").rows() == [("1", "a", 2)]


def test_unanimous_workers_every_method_returns_their_label() -> None:
    rows = [(f"d{i}", w, i % 3) for i in range(12) for w in ("x", "y", "z")]
    t = table(rows)
    for m in METHODS:
        agg = aggregate(t, m)
        assert [g for _, _, g in agg.rows()] == [int(d[1:]) % 3 for _, d, _ in agg.rows()], m
        assert np.allclose(agg.probas.sum(axis=1), 1.0)


def test_bad_options_and_names_are_refused() -> None:
    t = table([("a", "x", 1), ("a", "y", 0)])
    with pytest.raises(CrowdError, match="unknown aggregation method 'dawid'; did you mean"):
        aggregate(t, "dawid")
    with pytest.raises(CrowdError, match="max_iter must be >= 1"):
        aggregate(t, "dawid-skene", max_iter=0)
    with pytest.raises(CrowdError, match="no labels"):
        LabelTable.from_columns([], [], [], [])


@settings(max_examples=examples(30), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 6), st.integers(0, 3), st.integers(0, 2)),
                min_size=2, max_size=40), st.randoms(use_true_random=False))
def test_row_order_does_not_change_the_result(rows: list[tuple[int, int, int]],
                                              rnd: object) -> None:
    base = [(f"d{d}", f"w{w}", g) for d, w, g in rows]
    shuffled = list(base)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a, b = table(base), table(shuffled)
    for m in ("majority", "wawa", "dawid-skene", "mace"):
        x, y = aggregate(a, m), aggregate(b, m)
        np.testing.assert_allclose(x.probas, y.probas, rtol=0, atol=1e-9, err_msg=m)


# -- the commands -----------------------------------------------------------------------

CROWD_TSV = """topicID\tworkerID\tdocID\tgold\tlabel
20002\tw1\tdA\t1\t1
20002\tw2\tdA\t1\t1
20002\tw3\tdA\t1\t0
20002\tw1\tdB\t-1\t0
20002\tw2\tdB\t-1\t2
20002\tw3\tdB\t-1\t0
20010\tw1\tdA\t0\t-2
20010\tw2\tdA\t0\t0
20010\tw3\tdA\t0\t0
"""


@pytest.fixture
def crowd_file(tmp_path: Path) -> Path:
    p = tmp_path / "crowd.tsv"
    p.write_text(CROWD_TSV)
    return p


def test_export_qrels_from_a_label_file(crowd_file: Path) -> None:
    code, out, err = run_cli(["export", "qrels", "--method", "majority", "--labels",
                              str(crowd_file)])
    assert code == 0
    # the gold column is not a worker: dA 1,1,0 -> 1; dB 0,2,0 -> 0; 20010 dA -2,0,0 -> 0
    assert out == "20002 0 dA 1\n20002 0 dB 0\n20010 0 dA 0\n"
    assert "gold column kept apart (not a worker's label): 2 pairs" in err
    for m in ("wawa", "dawid-skene", "glad", "mace"):
        code, out2, _ = run_cli(["export", "qrels", "--method", m, "--labels", str(crowd_file),
                                 "--threshold", "1"])
        assert code == 0 and len(out2.splitlines()) == 3, m


def test_export_qrels_refuses_store_only_methods_with_labels(crowd_file: Path) -> None:
    code, out, err = run_cli(["export", "qrels", "--method", "mean", "--labels",
                              str(crowd_file)])
    assert code != 0 and out == ""
    assert "--method" in err and "dawid-skene" in err and len(err.strip().splitlines()) == 1


def test_a_malformed_label_file_is_one_line_naming_file_and_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.tsv"
    p.write_text("worker\ttopic\tdoc\tlabel\nw1\t1\td1\t1\nw2\t1\td1\trelevant\n")
    code, out, err = run_cli(["export", "qrels", "--method", "dawid-skene", "--labels", str(p)])
    assert code == 1 and out == ""
    assert err == f"relkit: error: {p}:3: expected an integer grade; found 'relevant'\n"
    p.write_text("worker\ttopic\tdoc\tlabel\nw1\t1\td1\n")
    code, _, err = run_cli(["agree", "--workers", str(p)])
    assert code == 1 and err == f"relkit: error: {p}:2: expected 4 fields; found 3\n"


def test_agree_workers_against_gold_and_the_model(crowd_file: Path, tmp_path: Path) -> None:
    code, out, err = run_cli(["agree", "--workers", "--method", "majority", "--format", "json",
                              str(crowd_file)])
    assert code == 0, err
    rep = json.loads(out)
    assert rep["method"] == "majority" and rep["classes"] == [-2, 0, 1, 2]
    assert rep["gold_items"] == 2
    w1, w2, w3 = rep["workers"]
    # gold: 20002 dA = 1, 20010 dA = 0.  w1 says 1 and -2 -> 1/2; w2 1, 0 -> 1; w3 0, 0 -> 1/2
    assert [w["accuracy_gold"] for w in (w1, w2, w3)] == [0.5, 1.0, 0.5]
    # majority: 1, 0, 0.  w1 1, 0, -2 -> 2/3; w2 1, 2, 0 -> 2/3; w3 0, 0, 0 -> 2/3
    assert [w["accuracy_aggregate"] for w in (w1, w2, w3)] == pytest.approx([2 / 3] * 3)
    assert len(w1["ds_confusion"]) == 4 and len(w1["ds_diagonal"]) == 4
    assert w1["gold_confusion"] == {"1": {"1": 1}, "0": {"-2": 1}}
    q = tmp_path / "gold.qrels"
    q.write_text("20002 0 dA 0\n20002 0 dB 0\n")
    code, out, err = run_cli(["agree", "--workers", "--gold", str(q), "--format", "tsv",
                              str(crowd_file)])
    assert code == 0 and out.splitlines()[0].startswith("worker\tlabels\tgold_labels\tacc_gold")
    # gold from the qrels: dA 0, dB 0.  w1: 1, 0 -> 0.5
    assert out.splitlines()[1].split("\t")[:4] == ["w1", "3", "2", "0.500"]
    code, _, err = run_cli(["agree", "--workers", "--format", "html", str(crowd_file)])
    assert code == 1 and "--workers writes text, tsv, json, markdown" in err


def test_export_and_agree_workers_on_the_store(tmp_path: Path) -> None:
    from relkit.judging.judgment_files import JudgmentLine
    from relkit.judging.store.imports import import_judgments

    db = str(tmp_path / "p.db")
    store = make_project(db)
    grades = {"ann": (3, 2, 0), "bob": (1, 2, 0), "cy": (3, 0, 0)}
    lines = [JudgmentLine(who, "1", doc, g, f"{who}.qrels", i) for who, gs in grades.items()
             for i, (doc, g) in enumerate(zip(("d00", "d01", "d02"), gs, strict=True))]
    import_judgments(store, lines, add_missing=True)
    store.close()
    code, majority, _ = run_cli(["export", "qrels", "--db", db, "--method", "majority"])
    assert code == 0
    code, ds, err = run_cli(["export", "qrels", "--db", db, "--method", "dawid-skene"])
    assert code == 0, err
    # pooled but unjudged pairs stay -1, as in every export
    assert [x for x in ds.splitlines() if x.endswith(" -1")] == \
        [x for x in majority.splitlines() if x.endswith(" -1")]
    # d00: 3, 1, 3 -> 3; d01: 2, 2, 0 -> 2; d02: 0, 0, 0 -> 0
    assert "1 0 d00 3\n1 0 d01 2\n1 0 d02 0\n" in ds
    code, out, err = run_cli(["agree", "--workers", "--db", db, "--format", "json"])
    assert code == 0, err
    assert [w["worker"] for w in json.loads(out)["workers"]] == ["ann", "bob", "cy"]


def test_export_qrels_refuses_a_threshold_beyond_the_labels(crowd_file: Path,
                                                            tmp_path: Path) -> None:
    """Tester: ``--threshold 5`` past every label wrote all zeros without a word."""
    code, out, err = run_cli(["export", "qrels", "--method", "majority", "--labels",
                              str(crowd_file), "--threshold", "5"])
    assert code == 2 and out == ""
    assert "--threshold" in err and "5" in err and len(err.strip().splitlines()) == 1
    db = str(tmp_path / "p.db")
    make_project(db).close()
    code, out, err = run_cli(["export", "qrels", "--db", db, "--threshold", "9"])
    assert code == 2 and out == ""
    assert "--threshold" in err and "scale" in err and len(err.strip().splitlines()) == 1


def test_agree_workers_markdown_escapes_the_bar_in_column_names(crowd_file: Path) -> None:
    """Tester: the ``ds_p-2|-2`` header broke the Markdown table."""
    code, out, err = run_cli(["agree", "--workers", "--format", "markdown", str(crowd_file)])
    assert code == 0, err
    head, rule, *body = out.splitlines()
    assert "ds_p-2\\|-2" in head

    def cells(line: str) -> int:  # unescaped bars delimit the cells
        return line.replace("\\|", "").count("|") - 1

    assert cells(head) == rule.count("|") - 1 == cells(body[0])


def test_export_qrels_labels_a_directory_says_so(tmp_path: Path) -> None:
    code, out, err = run_cli(["export", "qrels", "--method", "wawa", "--labels", str(tmp_path)])
    assert code == 1 and out == "" and f"{tmp_path}: a directory" in err


def test_the_no_gold_note_does_not_read_as_pairs_dropped(crowd_file: Path) -> None:
    """Tester: "pairs without a gold label skipped" read as if the qrels lost them."""
    code, out, err = run_cli(["export", "qrels", "--method", "majority", "--labels",
                              str(crowd_file)])
    assert code == 0 and len(out.splitlines()) == 3
    assert "skipped" not in err
    assert "no gold label for 1 pairs (1 with gold -1): their labels are kept" in err


def test_agree_workers_on_the_store_counts_automatic_assessors_only_when_asked(
        tmp_path: Path) -> None:
    """An automatic assessor (``--kind automatic``) is not a crowd worker unless
    ``--include-automatic``, as in ``export qrels`` and ``status``."""
    from relkit.judging.judgment_files import JudgmentLine
    from relkit.judging.store.imports import import_judgments

    db = str(tmp_path / "p.db")
    store = make_project(db)
    grades = {"ann": (3, 2, 0), "bob": (1, 2, 0)}
    lines = [JudgmentLine(who, "1", doc, g, f"{who}.qrels", i) for who, gs in grades.items()
             for i, (doc, g) in enumerate(zip(("d00", "d01", "d02"), gs, strict=True))]
    import_judgments(store, lines, add_missing=True)
    bot = [JudgmentLine("bot", "1", doc, 3, "bot.qrels", i)
           for i, doc in enumerate(("d00", "d01", "d02"))]
    import_judgments(store, bot, kind="automatic")
    store.close()
    code, out, err = run_cli(["agree", "--workers", "--db", db, "--format", "json"])
    assert code == 0, err
    assert [w["worker"] for w in json.loads(out)["workers"]] == ["ann", "bob"]
    assert "6 labels by 2 workers" in err
    code, out, err = run_cli(["agree", "--workers", "--db", db, "--format", "json",
                              "--include-automatic"])
    assert code == 0, err
    assert [w["worker"] for w in json.loads(out)["workers"]] == ["ann", "bob", "bot"]
    assert "9 labels by 3 workers" in err


def test_include_automatic_on_label_files_is_refused(tmp_path: Path) -> None:
    """--include-automatic chooses whom the store's workers include; on label files (or
    without --workers) it would silently do nothing: one line naming it, exit 2."""
    labels = tmp_path / "okw.txt"
    labels.write_text("1 w1 d1 1\n1 w2 d1 0\n")
    for args in (["agree", "--workers", "--include-automatic", str(labels)],
                 ["agree", "--include-automatic", str(labels), str(labels)]):
        code, out, err = run_cli(args)
        assert code == 2 and out == "", (args, err)
        assert "--include-automatic" in err and err.count("\n") == 1, err


def test_agree_workers_unknown_method_is_a_usage_error(tmp_path: Path) -> None:
    """A bad --method value is an option error (exit 2, the option named), as everywhere."""
    labels = tmp_path / "okw.txt"
    labels.write_text("1 w1 d1 1\n1 w2 d1 0\n")
    code, out, err = run_cli(["agree", "--workers", "--method", "bogus", str(labels)])
    assert code == 2 and out == "" and err.count("\n") == 1, err
    assert "--method" in err and "'bogus'" in err
