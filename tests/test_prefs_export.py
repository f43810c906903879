"""Exports of an answers file (relkit.metrics.prefs.export): evaluated with relkit eval -R
prefs / -R qrels_prefs, they give the numbers trec_eval's own preference test data gives
for the judgments the answers reproduce (../shared/conformance/trec_eval)."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from helpers import CONFORMANCE, needs_shared, run_cli
from relkit.metrics.prefs.answers import Answer, read_answers, write_answers
from relkit.metrics.prefs.export import graded, nonrelevant, to_prefs, to_qrels_prefs

RNONREL = ("prefs_avgjg_Rnonrel", "prefs_avgjg_Rnonrel_ret")


def _answers_from_prefs(path: Path) -> tuple[list[Answer], dict[str, set[str]]]:
    """Each JSG's pairs as answers (assessor = JG): the higher level wins, equal levels
    above 0 are ``equal``, two 0s are ``neither``. Also each topic's original class of
    nonrelevant (level 0) documents per JG, to know where the Rnonrel measures can agree."""
    groups: dict[tuple[str, str, str], list[tuple[str, float]]] = {}
    for line in path.read_text().splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        q, jg, jsg, doc, level = line.split()
        groups.setdefault((q, jg, jsg), []).append((doc, float(level)))
    out: list[Answer] = []
    seen: set[tuple[str, str, str, str]] = set()
    for (q, jg, _), members in groups.items():
        for (a, la), (b, lb) in itertools.combinations(members, 2):
            if (q, jg, a, b) in seen or (q, jg, b, a) in seen:
                continue                # a pair in two sub-groups of one JG: once
            seen.add((q, jg, a, b))
            ans = "left" if la > lb else "right" if lb > la else "equal" if la > 0 \
                else "neither"
            out.append(Answer(topic_id=q, left=a, right=b, answer=ans, assessor=jg,
                              line=len(out) + 2))
    return out, {}


def _per_topic(text: str) -> dict[tuple[str, str], str]:
    rows = {}
    for line in text.splitlines():
        measure, topic, value = line.split()
        if topic != "all":
            rows[(measure, topic)] = value
    return rows


@needs_shared
def test_exported_prefs_evaluate_to_trec_evals_numbers(tmp_path: Path) -> None:
    answers, _ = _answers_from_prefs(CONFORMANCE / "prefs.test")
    file = tmp_path / "answers.tsv"
    file.write_text(write_answers(answers))
    exported = tmp_path / "prefs.txt"
    code, _, err = run_cli(["prefs", "convert", str(file), "--to", "prefs", "-o",
                            str(exported)])
    assert code == 0, err
    code, out, err = run_cli(["eval", "-m", "all_prefs", "-q", "-R", "prefs", str(exported),
                              str(CONFORMANCE / "prefs.results.test")])
    assert code == 0, err
    ours = _per_topic(out)
    theirs = _per_topic((CONFORMANCE / "out.test.prefs").read_text())
    topics = {t for _, t in ours}
    # Not expressible as pairs: topics with one document (7.EC.no, 17.PA=7).
    assert {t for _, t in theirs} - topics == {"7.EC.no", "17.PA=7"}
    differ = {(m, t) for (m, t), v in ours.items() if theirs[(m, t)] != v}
    # Every measure but the two R-nonrel ones agrees on every topic. Those two count
    # relevant and nonrelevant documents, and a pair of answers says which is better,
    # not whether the worse one is relevant: only a `neither` answer makes a document
    # level 0 (docs/preferences.md).
    # 297 of the 308 per-topic values agree; these 11 are the R-nonrel ones on 6 topics.
    assert len(ours) == 308 and {m for m, _ in differ} == set(RNONREL)
    assert len(differ) == 11
    assert {t for _, t in differ} == {"2.EC.A", "3.EC.B", "12.PA=2", "13.PA=3", "24.EC.mg",
                                      "40.PA.tran"}


@needs_shared
def test_exported_qrels_prefs_evaluate_to_trec_evals_numbers(tmp_path: Path) -> None:
    # qrels.test as answers: the relevant documents of a topic in a chain of `equal`
    # answers, the nonrelevant ones paired by `neither`, one relevant over one nonrelevant.
    rel: dict[str, list[str]] = {}
    non: dict[str, list[str]] = {}
    for line in (CONFORMANCE / "qrels.test").read_text().splitlines():
        q, _, doc, level = line.split()
        (rel if int(level) > 0 else non).setdefault(q, []).append(doc)
    answers: list[Answer] = []

    def add(q: str, a: str, b: str, ans: str) -> None:
        answers.append(Answer(topic_id=q, left=a, right=b, answer=ans, assessor="0",
                              line=len(answers) + 2))

    for q in sorted(rel):
        r, n = rel[q], non[q]
        for a, b in itertools.pairwise(r):
            add(q, a, b, "equal")
        for k in range(0, len(n) - 1, 2):
            add(q, n[k], n[k + 1], "neither")
        if len(n) % 2:
            add(q, n[-2], n[-1], "neither")
        add(q, r[0], n[0], "left")
    file = tmp_path / "answers.tsv"
    file.write_text(write_answers(answers))
    exported = tmp_path / "qrels_prefs.txt"
    code, _, err = run_cli(["prefs", "convert", str(file), "--to", "qrels_prefs", "-o",
                            str(exported)])
    assert code == 0, err
    code, out, err = run_cli(["eval", "-m", "all_prefs", "-q", "-R", "qrels_prefs",
                              str(exported), str(CONFORMANCE / "results.test")])
    assert code == 0, err
    assert out == (CONFORMANCE / "out.test.qrels_prefs").read_text()


def _a(left: str, right: str, answer: str, who: str = "x", topic: str = "1") -> Answer:
    return Answer(topic_id=topic, left=left, right=right, answer=answer, assessor=who)


def test_prefs_levels_follow_the_stated_rule() -> None:
    answers = [_a("a", "b", "left"), _a("c", "b", "neither"), _a("a", "d", "equal")]
    # b lost once and was called not relevant: level 0 (never preferred, never equal)
    assert nonrelevant(answers) == {"b", "c"}
    assert to_prefs(answers).splitlines() == [
        "1 x a1 a 2", "1 x a1 b 0", "1 x a2 c 0", "1 x a2 b 0",
        "1 x a3 a 1", "1 x a3 d 1"]


def test_qrels_prefs_levels_are_longest_chains_and_refuse_a_cycle() -> None:
    answers = [_a("a", "b", "left"), _a("b", "c", "left"), _a("d", "c", "equal"),
               _a("c", "e", "neither")]
    # e: not relevant (0); c = d (1: above nothing relevant); b above c (2); a above b (3)
    assert sorted(to_qrels_prefs(answers).splitlines()) == sorted(
        ["1 x a 3", "1 x b 2", "1 x c 1", "1 x d 1", "1 x e 0"])
    from relkit.metrics.core.errors import RelkitError

    with pytest.raises(RelkitError, match="cycle"):
        to_qrels_prefs([_a("a", "b", "left"), _a("b", "c", "left"), _a("c", "a", "left")])


def test_graded_qrels_bin_the_bradley_terry_scores() -> None:
    answers = [_a("a", "b", "left")] * 6 + [_a("b", "a", "left")] + \
        [_a("b", "c", "left")] * 6 + [_a("c", "b", "left")] + [_a("c", "z", "neither")] + \
        [_a("a", "c", "left")] * 6 + [_a("c", "a", "left")]
    grades = graded(answers, levels=3)["1"]
    assert grades == {"a": 3, "b": 2, "c": 1, "z": 0}


def test_read_answers_round_trips(tmp_path: Path) -> None:
    answers = [_a("a", "b", "left"), _a("007", "b", "neither", topic="01")]
    path = tmp_path / "a.tsv"
    path.write_text(write_answers(answers))
    back = read_answers(path)
    assert [(x.topic_id, x.left, x.right, x.answer) for x in back] == [
        ("1", "a", "b", "left"), ("01", "007", "b", "neither")]
