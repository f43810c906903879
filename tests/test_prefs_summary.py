"""Majority per pair, agreement and intransitive triples (relkit.metrics.prefs.summary)."""

from __future__ import annotations

from relkit.metrics.prefs.answers import Answer
from relkit.metrics.prefs.summary import agreement, intransitive_triples, majority


def _a(left: str, right: str, answer: str, who: str) -> Answer:
    return Answer(topic_id="1", left=left, right=right, answer=answer, assessor=who)


def test_majority_orients_mirrored_answers_and_marks_a_split() -> None:
    got = majority([_a("a", "b", "left", "x"), _a("b", "a", "right", "y"),
                    _a("b", "a", "left", "z"), _a("c", "d", "equal", "x"),
                    _a("d", "c", "neither", "y")])
    assert got[("1", "a", "b")][0] == "left"          # two of three say a is better
    assert got[("1", "c", "d")][0] is None            # one equal, one neither: split


def test_agreement_counts_shared_pairs_alike_with_the_last_answer() -> None:
    got = agreement([_a("a", "b", "left", "x"), _a("a", "b", "right", "x"),  # x changed
                     _a("b", "a", "left", "y"), _a("a", "c", "equal", "x"),
                     _a("c", "a", "equal", "y"), _a("c", "d", "left", "z")])
    assert got.pairs[("x", "y")] == (2, 2)
    assert got.share("x", "z") is None and got.share("z") is None
    assert got.share("x") == 1.0


def test_intransitive_triples_find_cycles_and_tie_contradictions() -> None:
    got = intransitive_triples([
        _a("a", "b", "left", "x"), _a("b", "c", "left", "x"), _a("c", "a", "left", "x"),
        _a("a", "b", "left", "y"), _a("b", "c", "equal", "y"), _a("a", "c", "equal", "y"),
        _a("a", "b", "left", "z"), _a("b", "c", "left", "z"), _a("a", "c", "left", "z"),
        _a("a", "b", "equal", "w"), _a("b", "c", "neither", "w"), _a("c", "a", "equal", "w"),
    ])
    assert got == {"x": [("1", "a", "b", "c")], "y": [("1", "a", "b", "c")], "z": [],
                   "w": []}
