"""The worked examples of the textbook material, as unit tests.

Each fixture is inline TREC text; the hand computation is in the comment.
"""

from __future__ import annotations

import math

import pytest

from relkit.metrics.compare.curves import interpolated_pr, pr_curve
from relkit.metrics.data import Qrels, Run
from relkit.metrics.evaluator import Evaluator


def make(relevant_ranks: dict[str, list[int]], depth: dict[str, int],
         num_rel: dict[str, int]) -> tuple[Qrels, Run]:
    """A run whose documents at ``relevant_ranks`` are relevant, and qrels with
    ``num_rel`` relevant documents per topic (the rest unretrieved)."""
    run_lines, qrels_lines = [], []
    for q, ranks in relevant_ranks.items():
        for r in range(1, depth[q] + 1):
            run_lines.append(f"{q} Q0 {q}-d{r:03d} {r} {1000 - r} sys")
        for r in ranks:
            qrels_lines.append(f"{q} 0 {q}-d{r:03d} 1")
        for i in range(num_rel[q] - len(ranks)):
            qrels_lines.append(f"{q} 0 {q}-unretrieved{i} 1")
    return Qrels.read("\n".join(qrels_lines) + "\n"), Run.read("\n".join(run_lines) + "\n")


def values(qrels: Qrels, run: Run, measures: list[str], **kw: object) -> dict[str, float]:
    return dict(Evaluator(qrels, measures, **kw).aggregate(run))  # type: ignore[arg-type]


def test_ap_ranks_1_3_6_of_5() -> None:
    # AP = (1/1 + 2/3 + 3/6) / 5 = 2.1667 / 5 = 0.4333
    q, r = make({"q": [1, 3, 6]}, {"q": 10}, {"q": 5})
    v = values(q, r, ["AP", "P@3", "P@6", "R-prec", "P@5"])
    assert v["AP"] == pytest.approx((1 + 2 / 3 + 3 / 6) / 5)
    assert round(v["AP"], 4) == 0.4333
    assert round(v["P@3"], 3) == 0.667
    assert v["P@6"] == 0.5
    assert v["R-prec"] == v["P@5"] == 0.4


def test_map_of_two_queries() -> None:
    # a: R=5, relevant at 1,2,5,8: (1 + 1 + 3/5 + 4/8)/5 = 0.62
    # b: R=5, relevant at 1,4,6,20: (1 + 2/4 + 3/6 + 4/20)/5 = 0.44;  MAP = 0.53
    q, r = make({"a": [1, 2, 5, 8], "b": [1, 4, 6, 20]}, {"a": 20, "b": 20},
                {"a": 5, "b": 5})
    per = Evaluator(q, ["AP"]).evaluate(r).set_index("query_id")["value"]
    assert per["a"] == pytest.approx(0.62) and per["b"] == pytest.approx(0.44)
    assert values(q, r, ["AP"])["AP"] == pytest.approx(0.53)


def test_macro_versus_micro() -> None:
    # q1: R=10, 3 retrieved, 2 relevant; q2: R=3, 3 retrieved, 2 relevant
    q, r = make({"q1": [1, 2], "q2": [1, 3]}, {"q1": 3, "q2": 3}, {"q1": 10, "q2": 3})
    ev = Evaluator(q, ["set_recall", "set_P", "F"])
    macro, micro = ev.aggregate(r, "mean"), ev.aggregate(r, "micro")
    assert round(macro["set_recall"], 4) == 0.4333          # (0.2 + 0.6667) / 2
    assert round(macro["set_P"], 4) == 0.6667
    assert micro["set_recall"] == pytest.approx(4 / 13)
    assert micro["set_P"] == pytest.approx(4 / 6)
    p, rc = 4 / 6, 4 / 13
    assert micro["F1"] == pytest.approx(2 * p * rc / (p + rc))


def test_fourteen_document_ranking_recall_precision_table() -> None:
    # relevant at 1, 2, 4, 6, 13; R = 5
    q, r = make({"q": [1, 2, 4, 6, 13]}, {"q": 14}, {"q": 5})
    curve = pr_curve(q, r).set_index("rank")
    assert curve.loc[6, "recall"] == pytest.approx(0.8)
    assert round(curve.loc[6, "precision"], 2) == 0.67
    assert curve.loc[13, "recall"] == 1.0
    assert round(curve.loc[13, "precision"], 2) == 0.38
    # interpolated: max precision at recall >= r
    interp = interpolated_pr(q, r).query("query_id == 'q'").set_index("recall")["precision"]
    expected = [1, 1, 1, 1, 1, 0.75, 0.75, 4 / 6, 4 / 6, 5 / 13, 5 / 13]
    assert interp.tolist() == pytest.approx(expected)
    eleven = values(q, r, ["11pt_avg"])["11pt_avg"]
    assert eleven == pytest.approx(sum(expected) / 11)


def test_mrr_and_hits() -> None:
    # first relevant at ranks 3, 2, 1: MRR = (1/3 + 1/2 + 1) / 3 = 0.6111
    q, r = make({"u1": [3], "u2": [2], "u3": [1]}, {"u1": 5, "u2": 5, "u3": 5},
                {"u1": 1, "u2": 1, "u3": 1})
    v = values(q, r, ["MRR", "Hits@1", "Hits@3", "MR"])
    assert round(v["RR"], 4) == 0.6111
    assert v["Success@1"] == pytest.approx(1 / 3)
    assert v["Success@3"] == 1.0
    assert v["MR"] == 2.0                                    # (3 + 2 + 1) / 3


def test_f_is_harmonic_mean_and_the_retrieve_everything_case() -> None:
    # F(beta=1) = 2PR/(P+R): retrieving all 10,000 documents with 1 relevant:
    # P = 1/10000, R = 1, F = 2 * 0.0001 / 1.0001 = 0.00019998
    q, r = make({"q": [1]}, {"q": 10_000}, {"q": 1})
    v = values(q, r, ["F", "set_P", "set_recall", "E"])
    p, rc = v["set_P"], v["set_recall"]
    assert v["F1"] == pytest.approx(2 * p * rc / (p + rc))
    assert v["F1"] == pytest.approx(0.0002, abs=1e-6)
    assert v["E"] == pytest.approx(1 - v["F1"])
    assert v["F1"] == pytest.approx(values(q, r, ["set_F"])["set_F"])


def test_f_beta_and_alpha_forms_agree() -> None:
    # beta = 2 <=> alpha = 1 / (1 + 4) = 0.2; F2 = 5PR / (4P + R)
    q, r = make({"q": [1, 2, 7]}, {"q": 10}, {"q": 6})
    v = values(q, r, ["F.beta=2", "F.alpha=0.2", "set_F.4"])
    p, rc = 3 / 10, 3 / 6
    assert v["F.beta=2"] == pytest.approx(5 * p * rc / (4 * p + rc))
    assert v["F.alpha=0.2"] == pytest.approx(v["F.beta=2"])
    assert v["set_F.4"] == pytest.approx(v["F.beta=2"])     # trec_eval's set_F takes beta^2


def test_collection_size_measures() -> None:
    # N = 100 documents, R = 4, retrieved 10 with 2 relevant:
    # fallout = 8/96, correct rejection = (100-10-4+2)/96, generality = 4/100,
    # accuracy = (2 + 88) / 100, noise = 8/10, miss = 2/4
    q, r = make({"q": [1, 5]}, {"q": 10}, {"q": 4})
    v = values(q, r, ["fallout", "correct_rejection", "generality", "accuracy", "noise",
                      "miss"], num_docs=100)
    assert v["Fallout"] == pytest.approx(8 / 96)
    assert v["correct_rejection"] == pytest.approx(88 / 96)
    assert v["generality"] == pytest.approx(0.04)
    assert v["accuracy"] == pytest.approx(0.90)
    assert v["noise"] == pytest.approx(0.8)
    assert v["miss"] == pytest.approx(0.5)


def test_gain_measures_linear_and_exponential() -> None:
    # grades by rank: 3, 0, 2 ; judged also: one unretrieved grade-1 document
    qrels = Qrels.read("q 0 a 3\nq 0 b 0\nq 0 c 2\nq 0 d 1\n")
    run = Run.read("q Q0 a 1 3 s\nq Q0 b 2 2 s\nq Q0 c 3 1 s\n")
    v = values(qrels, run, ["CG@3", "DCG@3", "IDCG@3", "nDCG@3", "DCG-exp@3", "nDCG-exp@3"])
    dcg = 3 + 0 + 2 / math.log2(4)
    idcg = 3 + 2 / math.log2(3) + 1 / math.log2(4)
    assert v["CG@3"] == 5
    assert v["DCG@3"] == pytest.approx(dcg)
    assert v["IDCG@3"] == pytest.approx(idcg)
    assert v["nDCG@3"] == pytest.approx(dcg / idcg)
    dcg_exp = 7 + 3 / math.log2(4)
    idcg_exp = 7 + 3 / math.log2(3) + 1 / math.log2(4)
    assert v["DCG-exp@3"] == pytest.approx(dcg_exp)
    assert v["nDCG-exp@3"] == pytest.approx(dcg_exp / idcg_exp)


def test_fallout_without_collection_size_is_an_error() -> None:
    from relkit.metrics.core.errors import MeasureError

    q, r = make({"q": [1]}, {"q": 3}, {"q": 1})
    with pytest.raises(MeasureError, match="collection size"):
        values(q, r, ["fallout"])
