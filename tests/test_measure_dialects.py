"""Measure names in every dialect: relkit/ir_measures, trec_eval requests and output
names, ranx; ranx names whose numbers differ are refused with the reason; unknown names
suggest close ones. (That the mapped names give the dialect's own numbers is checked
against ir_measures and ranx in test_ecosystem_oracles.py.)"""

from __future__ import annotations

import ir_measures
import pytest

from relkit.metrics.errors import MeasureError
from relkit.metrics.evaluator import Evaluator, resolve
from relkit.metrics.measures.base import REGISTRY
from relkit.metrics.names import RANX, RANX_DIFFERENT, expand, parse_measure


def _one(name: str) -> str:
    (m,) = parse_measure(name)
    return str(m)


@pytest.mark.parametrize("family", [f.name for f in REGISTRY.values()])
def test_every_trec_eval_output_name_parses_back_to_its_measure(family: str) -> None:
    for m in expand(family, None):
        assert parse_measure(m.output) == [m], m.output
        assert parse_measure(str(m)) == [m], str(m)


@pytest.mark.parametrize(("theirs", "ours"), [
    # trec_eval requests and output names
    ("ndcg_cut.10", "nDCG@10"), ("ndcg_cut_10", "nDCG@10"), ("P_5", "P@5"),
    ("map_cut_100", "AP@100"), ("recall_1000", "R@1000"), ("success_1", "Success@1"),
    ("iprec_at_recall_0.10", "iP@0.1"), ("P(rel=2)_5", "P(rel=2)@5"),
    ("ndcg_cut_exp_10", "nDCG-exp@10"), ("Rprec_mult_0.20", "Rprec_mult.0.2"),
    # ir_measures' spellings (str of its objects)
    ("nDCG@10", "nDCG@10"), ("P(rel=2)@5", "P(rel=2)@5"), ("AP@100", "AP@100"),
    ("Bpref", "bpref"), ("SetP", "set_P"), ("SetR", "set_recall"), ("SetF", "set_F"),
    ("SetAP", "set_map"), ("IPrec@0.1", "iP@0.1"), ("NumRet(rel=1)", "NumRelRet(rel=1)"),
    ("Rprec", "R-prec"), ("Judged@10", "Judged@10"), ("infAP", "infAP"),
    ("ERR@10", "ERR@10"), ("INST(T=3.0,max_rel=3)", "INST(T=3.0,max_rel=3)"),
    ("RBP(p=0.9,rel=1)", "RBP(p=0.9,rel=1)"),
    ("BPM(T=2.0,max_rel=2)@1000", "BPM(T=2.0,max_rel=2)@1000"),
    ("NERR8(max_rel=3)@10", "NERR8(max_rel=3)@10"), ("SDCG(max_rel=3)@10", "SDCG(max_rel=3)@10"),
    ("Compat(p=0.9,normalize=False)", "Compat(normalize=False,p=0.9)"),
    # C/W/L and Compat in trec_eval's syntax, and their output names
    ("inst.T=3", "INST(T=3.0)"), ("inst_T=3.0", "INST(T=3.0)"), ("bpm.K=1000", "BPM@1000"),
    ("err_cut_10", "ERR@10"), ("rbp_cwl.p=0.9(rel=2)", "RBP(p=0.9,rel=2)"),
    # ranx's names
    ("ndcg@10", "nDCG@10"), ("precision@10", "P@10"), ("recall@100", "R@100"),
    ("map@100", "AP@100"), ("map", "AP"), ("mrr", "RR"), ("hit_rate@10", "Success@10"),
    ("r-precision", "R-prec"), ("precision", "set_P"), ("f1", "set_F"),
    ("dcg@10", "DCG@10"), ("dcg_burges@10", "DCG-exp@10"), ("ndcg_burges@10", "nDCG-exp@10"),
    ("precision@10-l2", "P(rel=2)@10"), ("map-l2", "AP(rel=2)"), ("mrr-l3", "RR(rel=3)"),
])
def test_each_dialect_names_the_same_measure(theirs: str, ours: str) -> None:
    assert _one(theirs) == ours


def test_every_ranx_name_is_mapped_or_explained() -> None:
    # ranx's own list of metrics (ranx.metrics.metric_switch)
    for name in ["hits", "hit_rate", "precision", "recall", "f1", "r-precision", "mrr", "map",
                 "dcg", "dcg_burges", "ndcg", "ndcg_burges", "bpref", "rbp"]:
        k = f"{name}@10"
        known = name in RANX or k.replace("10", "{}") in RANX or name in REGISTRY
        assert known or name in RANX_DIFFERENT, name


@pytest.mark.parametrize(("name", "reason"), [
    ("hits@10", "counts the relevant documents in the top k"),
    ("mrr@10", "RR cut at rank k"), ("f1@10", "F1 of the top k"),
    ("rbp.95", "maps\\s+grades into \\[0, 1\\]"), ("hit_rate", "give a cutoff"),
    ("ndcg@10-l2", "drops the grades"), ("RR@10", "RR cut at rank k"),
    ("nDCG(dcg='exp-log2')@10", "rounds each topic to 5 decimals"),
    ("nDCG(judged_only=True)@10", "judged_only=True"),
])
def test_a_ranx_name_with_other_numbers_is_refused_with_the_reason(name: str, reason: str) -> None:
    with pytest.raises(MeasureError, match=reason):
        parse_measure(name)


def test_trec_eval_meaning_wins_where_ranx_reuses_a_word() -> None:
    # trec_eval's `recall` is recall at 5..1000; ranx's bare `recall` (the whole run) is
    # trec_eval's set_recall. trec_eval names are what CLI users type.
    assert [str(m) for m in parse_measure("recall")][:2] == ["R@5", "R@10"]


@pytest.mark.parametrize(("typo", "near"), [
    ("ndgc@10", "ndcg"), ("ndgc_cut_10", "ndcg_cut"), ("precison@10", "precision"),
    ("NDGC@10", "ndcg"), ("mapp", "map"),
])
def test_an_unknown_name_suggests_a_close_one(typo: str, near: str) -> None:
    with pytest.raises(MeasureError, match=f"did you mean '{near}"):
        parse_measure(typo)


def test_ir_measures_measure_objects_with_named_parameters_are_taken() -> None:
    objs = [ir_measures.ERR @ 10, ir_measures.INST(T=3.0, max_rel=3),
            ir_measures.NERR8(max_rel=3) @ 10, ir_measures.Compat(p=0.9),
            ir_measures.RBP(rel=2, p=0.9), ir_measures.BPM(T=2.0, max_rel=3) @ 100]
    assert [str(m) for m in resolve(objs)] == [
        "ERR@10", "INST(T=3.0,max_rel=3)", "RBP(p=0.9,rel=2)", "BPM(T=2.0,max_rel=3)@100",
        "NERR8(max_rel=3)@10", "Compat(p=0.9)"]


def test_ir_measures_objects_are_taken_as_their_names() -> None:
    objs = [ir_measures.nDCG @ 10, ir_measures.P(rel=2) @ 5, ir_measures.AP @ 100,
            ir_measures.RR, ir_measures.NumRet(rel=1)]
    assert [str(m) for m in resolve(objs)] == [str(m) for m in resolve(
        ["nDCG@10", "P(rel=2)@5", "AP@100", "RR", "NumRelRet(rel=1)"])]
    assert [str(m) for m in Evaluator({"q": {"d": 1}}, ir_measures.RR).measures] == ["RR"]
