"""EBU and EBU@k (expected browsing utility, Yilmaz et al. CIKM 2010).

No public implementation to run as an oracle: a hand-worked case from the definition,
the definition again as a plain per-rank loop over trec_eval's ranking (hypothesis
collections with ties, negative and unjudged grades), and a property of the user model:
moving a higher grade above an adjacent lower one never lowers EBU.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from measure_oracles import collections
from relkit.metrics.data import Run
from relkit.metrics.errors import MeasureError
from relkit.metrics.evaluator import Evaluator
from relkit.metrics.names import parse_measure
from relkit.metrics.ranking import ranked_docnos

# Hofmann, Whiteson & de Rijke (TOIS 2013), Table 1: click and stop per grade 0..4
USERS = {
    "perfect": ([0.0, 0.2, 0.4, 0.8, 1.0], [0.0, 0.0, 0.0, 0.0, 0.0]),
    "navigational": ([0.05, 0.3, 0.5, 0.7, 0.95], [0.2, 0.3, 0.5, 0.7, 0.9]),
    "informational": ([0.4, 0.6, 0.7, 0.8, 0.9], [0.1, 0.2, 0.3, 0.4, 0.5]),
}
CLICK, STOP = USERS["navigational"]


def _loop(grades: list[int], k: int | None = None, user: str = "navigational") -> float:
    """The definition, rank by rank."""
    click, stop = USERS[user]
    total, exam = 0.0, 1.0
    for g in grades[:k]:
        g = max(g, 0)
        total += exam * click[g] * (2.0 ** g - 1) / 16
        exam *= 1 - click[g] * stop[g]
    return total


def _ours(qrels, run, name: str) -> dict[str, float]:
    frame = Evaluator(qrels, [name]).evaluate(run)
    return dict(zip(frame.query_id, frame.value, strict=True))


def test_hand_worked() -> None:
    # grades 4, 0, 2 down the ranking:
    #   rank 1: 1 * .95 * 15/16 = .890625;     P(E_2) = 1 - .95 * .9 = .145
    #   rank 2: .145 * .05 * 0 = 0;             P(E_3) = .145 * (1 - .05 * .2) = .14355
    #   rank 3: .14355 * .5 * 3/16 = .0134578125
    qrels = {"1": {"a": 4, "b": 0, "c": 2}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    assert _ours(qrels, run, "EBU")["1"] == pytest.approx(0.9040828125, abs=1e-15)
    assert _ours(qrels, run, "EBU@2")["1"] == pytest.approx(0.890625, abs=1e-15)
    assert _ours(qrels, run, "EBU@1")["1"] == pytest.approx(0.890625, abs=1e-15)


def test_users_are_the_presets_and_navigational_is_the_default() -> None:
    # the registry first: importing a measure module directly would register its
    # families ahead of trec_eval's (the print order, docs/measures.md)
    parse_measure("EBU")
    from relkit.metrics.measures import ebu as ebu_mod
    from relkit.metrics.online.clickmodels.simulate import PRESETS

    assert sorted(ebu_mod.USERS) == sorted(PRESETS) == sorted(USERS)
    for user, (click, stop) in PRESETS.items():
        assert list(ebu_mod.USERS[user][0]) == list(click) == USERS[user][0]
        assert list(ebu_mod.USERS[user][1]) == list(stop) == USERS[user][1]
    assert parse_measure("EBU") == parse_measure("EBU(user=navigational)")
    assert parse_measure("EBU@10") == parse_measure("EBU(user=navigational)@10")


def test_names_round_trip() -> None:
    assert [str(m) for m in parse_measure("ebu_cut.k=5")] == ["EBU@5"]
    assert [str(m) for m in parse_measure("EBU")] == ["EBU"]
    for name, trec, output in (
            ("EBU(user=informational)", "ebu.user=informational", "ebu_user=informational"),
            ("EBU(user=perfect)@5", "ebu_cut.k=5,user=perfect", "ebu_cut_k=5,user=perfect"),
            ("EBU@10", "ebu_cut.k=10", "ebu_cut_k=10")):
        (m,) = parse_measure(name)
        assert (str(m), m.trec_name, m.output) == (name, trec, output)
        assert parse_measure(trec) == [m]


def test_unknown_user_is_an_error_naming_the_choices() -> None:
    with pytest.raises(MeasureError, match="'informational'"):
        parse_measure("EBU(user=informal)")
    with pytest.raises(MeasureError, match="unknown parameter 'p' of EBU"):
        parse_measure("EBU(p=0.5)@10")


def test_grade_above_four_is_an_error_naming_topic_and_document() -> None:
    with pytest.raises(MeasureError, match="grades up to 4"):
        Evaluator({"1": {"a": 5}}, ["EBU"]).evaluate({"1": {"a": 1.0}})
    # the first offending ranked document, as the qrels spell it (ids are strings)
    qrels = {"07": {"x": 2, "y": 9}, "8": {"z": 6}}
    with pytest.raises(MeasureError, match=r"^topic '07', document 'y': grade 9 in the "
                                           r"qrels; EBU's user model has grades up to 4"):
        Evaluator(qrels, ["EBU@5"]).evaluate({"07": {"x": 3.0, "y": 2.0}, "8": {"z": 1.0}})
    with pytest.raises(MeasureError, match=r"^topic '8', document 'z': grade 6"):
        Evaluator(qrels, ["EBU@1"]).evaluate({"07": {"x": 3.0, "y": 2.0}, "8": {"z": 1.0}})


@settings(max_examples=examples(60), deadline=None)
@given(collections(), st.integers(1, 6))
def test_definition_as_a_loop(coll, k: int) -> None:
    qrels, run = coll
    for name, cut in (("EBU", None), (f"EBU@{k}", k)):
        ours = _ours(qrels, run, name)
        for q, docs in ranked_docnos(Run.from_dict(run)).items():
            grades = [qrels.get(q, {}).get(d, 0) for d in docs]
            assert ours[q] == pytest.approx(_loop(grades, cut), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("user", sorted(USERS))
@settings(max_examples=examples(40), deadline=None)
@given(coll=collections(), k=st.integers(1, 6))
def test_each_user_as_a_loop(user: str, coll, k: int) -> None:
    qrels, run = coll
    for name, cut in ((f"EBU(user={user})", None), (f"EBU(user={user})@{k}", k)):
        ours = _ours(qrels, run, name)
        for q, docs in ranked_docnos(Run.from_dict(run)).items():
            grades = [qrels.get(q, {}).get(d, 0) for d in docs]
            assert ours[q] == pytest.approx(_loop(grades, cut, user), rel=1e-12, abs=1e-15)


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.integers(0, 4), min_size=2, max_size=8), st.data())
def test_higher_grade_first_never_lowers_ebu(grades: list[int], data) -> None:
    # EBU(A above B) - EBU(B above A) = c_A c_B (R_A s_B - R_B s_A) >= 0 when g_A > g_B,
    # since R(g) / s(g) increases with g for the navigational user.
    i = data.draw(st.integers(0, len(grades) - 2))
    lo, hi = sorted(grades[i : i + 2])
    up = [*grades[:i], hi, lo, *grades[i + 2 :]]
    down = [*grades[:i], lo, hi, *grades[i + 2 :]]
    assert _loop(up) >= _loop(down) - 1e-15
    docs = {f"d{j}": float(len(up) - j) for j in range(len(up))}
    for order in (up, down):
        qrels = {"1": {f"d{j}": g for j, g in enumerate(order)}}
        assert _ours(qrels, {"1": docs}, "EBU")["1"] == pytest.approx(_loop(order), rel=1e-12)


def test_cli(tmp_path) -> None:
    run, qrels = tmp_path / "r.run", tmp_path / "q.qrels"
    run.write_text("1 Q0 a 1 3 x\n1 Q0 b 2 2 x\n1 Q0 c 3 1 x\n")
    qrels.write_text("1 0 a 4\n1 0 b 0\n1 0 c 2\n")
    code, out, err = run_cli(["eval", "-m", "EBU", "-m", "EBU@2", str(qrels), str(run)])
    assert code == 0, err
    vals = {ln.split()[0]: float(ln.split()[2]) for ln in out.splitlines() if ln.strip()}
    assert vals["ebu"] == pytest.approx(0.9041, abs=5e-5)
    assert vals["ebu_cut_k=2"] == pytest.approx(0.8906, abs=5e-5)
    code, out, err = run_cli(["eval", "-m", "EBU(user=perfect)", str(qrels), str(run)])
    assert code == 0, err
    # perfect: c = (0, .2, .4, .8, 1), s = 0; grades 4, 0, 2: 1 * 15/16 + 0 + .4 * 3/16
    (line,) = [ln for ln in out.splitlines() if ln.strip()]
    assert line.split()[0] == "ebu_user=perfect"
    assert float(line.split()[2]) == pytest.approx(1.0125, abs=5e-5)
