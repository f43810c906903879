"""Topic, Document and RelevanceScale: validation and the known scales."""

from __future__ import annotations

import pytest

from relkit.corpora.types import (
    BINARY,
    TREC_DL,
    Document,
    Grade,
    RelevanceScale,
    ScaleError,
    Topic,
    get_scale,
)


def test_ids_stay_strings_and_must_be_non_empty() -> None:
    assert Topic("007").id == "007"
    with pytest.raises(ValueError, match="non-empty string"):
        Topic("")
    with pytest.raises(ValueError, match="non-empty string"):
        Document(7)  # type: ignore[arg-type]


def test_topic_query_falls_back_to_description() -> None:
    assert Topic("1", title="cats").query == "cats"
    assert Topic("1", description="about cats").query == "about cats"
    assert Topic("1").query == ""


def test_trec_dl_scale() -> None:
    assert TREC_DL.values == (0, 1, 2, 3)
    assert TREC_DL.grade(3).label == "Perfectly relevant"
    assert TREC_DL.threshold == 2 and TREC_DL.is_relevant(2) and not TREC_DL.is_relevant(1)
    assert 4 not in TREC_DL and 0 in TREC_DL
    with pytest.raises(ScaleError, match="grade 4 is not on the 'trec-dl' scale"):
        TREC_DL.grade(4)


def test_scale_validation_and_sorting() -> None:
    s = RelevanceScale("x", (Grade(2, "b"), Grade(0, "a")), threshold=2)
    assert s.values == (0, 2) and s.min == 0 and s.max == 2
    with pytest.raises(ScaleError, match="repeats"):
        RelevanceScale("x", (Grade(1, "a"), Grade(1, "b")))
    with pytest.raises(ScaleError, match="threshold 5"):
        RelevanceScale("x", (Grade(0, "a"), Grade(1, "b")), threshold=5)
    with pytest.raises(ScaleError, match="no grades"):
        RelevanceScale("x", ())


def test_from_values_keeps_unused_grades_and_picks_first_positive_threshold() -> None:
    s = RelevanceScale.from_values("g", [3, 0, 1, 3])
    assert s.values == (0, 1, 3) and s.threshold == 1
    assert RelevanceScale.from_values("neg", [-1, 0]).threshold == 0


def test_get_scale() -> None:
    assert get_scale("binary") is BINARY
    with pytest.raises(ScaleError, match=r"unknown relevance scale 'nope' \(known: .*binary"):
        get_scale("nope")
