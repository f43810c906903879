"""Pair strategies (relkit.pooling.pairs): the registry, each strategy's pairs and counts
with a perfect assessor, and the simulated assessor."""

from __future__ import annotations

import itertools

import pytest

from relkit.metrics.prefs.answers import Answer
from relkit.pooling.errors import PoolingError
from relkit.pooling.pairs import get, names
from relkit.pooling.pairs.simulate import recovered, run_topic, true_answer

DOCS = [f"d{i}" for i in range(8)]
TRUTH = dict(zip(DOCS, [3, 0, 2, 0, 1, 3, 0, 2], strict=True))


def _judge_all(strategy: str, grades: dict[str, float] | None = None,
               **params: object) -> tuple[list[Answer], list[str]]:
    chooser = get(strategy).make(params)
    answers: list[Answer] = []
    while (pair := chooser.next_pair(DOCS, answers, grades)) is not None:
        assert pair[0] != pair[1] and set(pair) <= set(DOCS)
        assert len(answers) < 100, "the strategy does not stop"
        answers.append(Answer(topic_id="1", left=pair[0], right=pair[1],
                              answer=true_answer(*pair, TRUTH), assessor="a"))
    return answers, chooser.ranking(DOCS, answers, grades)


def test_the_registry_lists_the_three_and_suggests_a_close_name() -> None:
    assert names() == ["adaptive", "all-pairs", "top-k"]
    with pytest.raises(PoolingError, match="did you mean 'top-k'"):
        get("topk")


def test_all_pairs_asks_each_pair_once_and_recovers_the_order() -> None:
    answers, ranking = _judge_all("all-pairs")
    assert len(answers) == 8 * 7 // 2
    assert {frozenset((a.left, a.right)) for a in answers} == {
        frozenset(p) for p in itertools.combinations(DOCS, 2)}
    assert recovered(ranking, TRUTH, DOCS, 8)
    # seeded: the same seed, the same order; another seed, another one
    first = get("all-pairs").make(seed=1).next_pair(DOCS, [])
    assert first == get("all-pairs").make(seed=1).next_pair(DOCS, [])
    assert [get("all-pairs").make(seed=s).next_pair(DOCS, []) for s in range(5)] != [first] * 5


def test_top_k_filters_by_grade_then_orders_the_top_within_its_bound() -> None:
    grades = {d: float(g) for d, g in TRUTH.items()}
    answers, ranking = _judge_all("top-k", grades, k=3)
    passing = [d for d in DOCS if TRUTH[d] >= 1]               # 5 documents
    assert all(a.left in passing and a.right in passing for a in answers)
    assert len(answers) <= (5 - 1) + (5 - 2) + (5 - 3)
    assert [TRUTH[d] for d in ranking[:3]] == [3, 3, 2]


def test_top_k_reuses_earlier_answers_and_resumes_from_them() -> None:
    chooser = get("top-k").make({"k": 2})
    first = chooser.next_pair(DOCS, [])
    assert first is not None
    given = [Answer(topic_id="1", left=first[1], right=first[0], answer="left",
                    assessor="b")]
    assert chooser.next_pair(DOCS, given) != first and \
        chooser.next_pair(DOCS, given) != (first[1], first[0])


def test_adaptive_asks_fewer_than_all_pairs_and_gets_the_top() -> None:
    answers, ranking = _judge_all("adaptive", k=3)
    assert len(answers) < 8 * 7 // 2
    assert len({frozenset((a.left, a.right)) for a in answers}) == len(answers)
    assert recovered(ranking, TRUTH, DOCS, 3)


def test_a_document_listed_twice_is_refused_in_one_line() -> None:
    with pytest.raises(PoolingError, match="'d1' is listed twice"):
        get("all-pairs").make().next_pair(["d1", "d2", "d1"], [])


def test_the_simulated_assessor_recovers_without_noise() -> None:
    for name in names():
        run = run_topic(name, "1", DOCS, TRUTH, noise=0.0, k=5)
        assert run.needed is not None and run.needed <= run.answers + run.graded
