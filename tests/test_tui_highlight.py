"""Query terms are highlighted by the baseline systems' analyzer (issue 33).

An assessor's day on Cranfield: "heated" did not mark "heat", "models" did not mark
"model" (the highlight matched the query word as a prefix). The document's words are
now marked when their Porter stem, as `relkit systems run` analyses text
(relkit.corpora.systems.analyzer), is a query term's stem.
"""

from __future__ import annotations

import re

import pytest

from helpers import SHARED
from relkit.corpora.loaders import smart_docs, smart_topics
from relkit.corpora.systems.analyzer import Analyzer
from relkit.judging.tui.safe import query_terms, safe

CRANFIELD = SHARED / "corpora" / "cranfield"


def marked(text: str, terms: list[str]) -> list[str]:
    """The words ``safe`` highlights in ``text``, in order."""
    t = safe(text, terms)
    return [t.plain[s.start:s.end] for s in t.spans]


@pytest.fixture(scope="module")
def cranfield() -> tuple[dict[str, str], dict[str, str]]:
    if not CRANFIELD.is_dir():
        pytest.skip(f"{CRANFIELD} is not here (see /work/shared/corpora/cranfield/README.md)")
    topics = {t.id: t.title or "" for t in smart_topics(CRANFIELD / "cran.qry")}
    docs = {d.id: f"{d.title or ''}\n{d.text}" for d in smart_docs(CRANFIELD / "cran.all.1400")}
    return topics, docs


def test_cranfield_topic_1_marks_every_word_form(
        cranfield: tuple[dict[str, str], dict[str, str]]) -> None:
    topics, docs = cranfield
    q = topics["1"]
    assert "heated" in q and "models" in q
    terms = query_terms(q)
    found = 0
    analyzer = Analyzer(stopwords=False)
    for doc_id, text in docs.items():
        forms = set(re.findall(r"\b(heat|heating|model|modelling)\b", text.lower()))
        if not forms:
            continue
        got = {w.lower() for w in marked(text, terms)}
        assert forms <= got, (doc_id, forms, got)
        found += 1
        # Every mark is a word whose stem is a query term's stem (nothing else is marked).
        assert {analyzer(w)[0] for w in got} <= set(terms), (doc_id, got)
    assert found > 50  # "heat", "model" ... in many documents: all of them marked


def test_the_stop_words_and_short_words_of_a_query_are_not_marked() -> None:
    terms = query_terms("what similarity laws must be obeyed when constructing models")
    assert "what" not in terms and "be" not in terms and "must" not in terms
    # Cranfield's topic 3: the systems drop "have", "been", "so"; so does the highlight.
    assert query_terms("what problems of heat conduction in composite slabs have been "
                       "solved so far .") == Analyzer()(
        "problems heat conduction composite slabs solved far")
    assert marked("The law of similarity: a model obeys it", terms) == [
        "law", "similarity", "model", "obeys"]


def test_a_term_is_a_whole_word_not_a_prefix() -> None:
    # The old prefix match marked "panelling" for "panel" but not "panel" for "panels",
    # and "heat" inside "heathen"; a stem matches words, not prefixes.
    terms = query_terms("solar panels heat")
    assert marked("A panel, two panels; heated heathen", terms) == [
        "panel", "panels", "heated"]


def test_the_stop_list_is_the_systems_own() -> None:
    """The judging screen drops the query words the baseline systems drop: the list kept
    in relkit.corpora.systems.stopwords is scikit-learn's (which the analyzer names)."""
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS

    from relkit.corpora.systems.stopwords import ENGLISH

    assert frozenset(ENGLISH_STOP_WORDS) == ENGLISH
