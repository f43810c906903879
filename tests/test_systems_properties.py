"""Property tests over the systems registry, and its parameter checks."""

from __future__ import annotations

import string

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from helpers import examples
from relkit.corpora.systems import REGISTRY, get, load_all, names
from relkit.corpora.systems.analyzer import Analyzer
from relkit.corpora.systems.errors import SystemsError
from relkit.corpora.systems.index import Index
from relkit.corpora.systems.retrieve import retrieve
from relkit.corpora.types import Document, Topic

PLAIN = Analyzer(stemmer="none", stopwords=False)
WORDS = ["wing", "flow", "heat", "plate", "shock", "mach"]

doc_ids = st.text(string.ascii_lowercase + string.digits, min_size=1, max_size=3)
texts = st.lists(st.sampled_from(WORDS), min_size=0, max_size=6).map(" ".join)


@st.composite
def collections(draw: st.DrawFn) -> tuple[list[Document], list[Topic], str, dict, int]:
    ids = draw(st.lists(doc_ids, min_size=1, max_size=12, unique=True))
    docs = [Document(i, text=draw(texts)) for i in ids]
    if not any(d.text for d in docs):
        docs[0] = Document(docs[0].id, text=WORDS[0])
    topics = [Topic(str(n), draw(st.lists(st.sampled_from(WORDS + ["kiwi"]), min_size=1,
                                          max_size=3).map(" ".join)))
              for n in range(draw(st.integers(1, 4)))]
    system = draw(st.sampled_from(names()))
    params = {}
    for p in get(system).params:
        if p.choices:
            params[p.name] = draw(st.sampled_from(p.choices))
        elif p.kind is bool:
            params[p.name] = draw(st.booleans())
        elif p.kind is float:
            hi = p.high if p.high is not None else 5.0
            params[p.name] = draw(st.floats(0.05 if p.open_low or p.low else 0.0, hi))
    return docs, topics, system, params, draw(st.integers(1, 8))


@pytest.mark.slow
@settings(max_examples=examples(150), deadline=None)
@given(collections())
def test_runs_are_well_formed_and_ranked_by_the_metrics_rule(case: tuple) -> None:  # type: ignore[type-arg]
    docs, topics, system, params, depth = case
    index = Index.build(docs, PLAIN)
    a = retrieve(index, system, topics, params=params, depth=depth)
    b = retrieve(index, system, topics, params=params, depth=depth)
    rows = a.run.table.to_pylist()
    assert rows == b.run.table.to_pylist()                       # deterministic
    text = {d.id: set(d.text.split()) for d in docs}
    for t in topics:
        mine = [r for r in rows if r["query_id"] == t.id]
        q = set((t.title or "").split())
        matching = [d for d, words in text.items() if words & q]
        # Exactly the documents holding a query term, cut at the depth.
        assert len(mine) == min(depth, len(matching))
        assert (t.id in a.empty) == (not matching)
        assert [r["rank"] for r in mine] == [str(i) for i in range(1, len(mine) + 1)]
        assert len({r["doc_id"] for r in mine}) == len(mine)
        assert all(r["doc_id"] in text and text[r["doc_id"]] & q for r in mine)
        # trec_eval's order: score descending, then docno descending (bytes).
        keys = [(-r["score"], [-c for c in r["doc_id"].encode()] + [1]) for r in mine]
        assert keys == sorted(keys)
        # The cut keeps the best: nothing left out scores above the last kept document.
        if mine and len(matching) > depth:
            full = retrieve(index, system, [t], params=params, depth=len(docs)).run
            assert [r["doc_id"] for r in full.table.to_pylist()][:depth] == [
                r["doc_id"] for r in mine]


BAD: dict[type, list[object]] = {float: ["x", float("nan"), -1.0, True], int: ["1.5", -5],
                                  bool: ["maybe", 2], str: ["nope", 3]}


@pytest.mark.parametrize("system", sorted(load_all()))
def test_every_parameter_rejects_bad_values_with_one_message(system: str) -> None:
    s = REGISTRY[system]
    assert s.summary and s.reference
    for p in s.params:
        assert s.validate({})[p.name] == p.default
        for bad in BAD[p.kind]:
            if p.kind is float and bad == -1.0 and p.low is None:
                continue
            with pytest.raises(SystemsError, match=rf"^The '{p.name}' parameter of {system} "
                                                   rf"must be "):
                s.validate({p.name: bad})
    with pytest.raises(SystemsError, match="has no parameter 'nope'"):
        s.validate({"nope": 1})


def test_unknown_names_suggest_close_ones() -> None:
    with pytest.raises(SystemsError, match=r"unknown retrieval system 'bm52'; did you mean "
                                           r"'bm25'\? \(known: bm25, tfidf, ql\)"):
        get("bm52")
    with pytest.raises(SystemsError, match=r"no parameter 'k'; did you mean 'k1'"):
        get("bm25").validate({"k": 1})
    with pytest.raises(SystemsError, match=r"did you mean 'lucene'"):
        get("bm25").validate({"method": "lucine"})
    with pytest.raises(SystemsError, match=r"unknown stemmer 'portr'; did you mean 'porter'"):
        Analyzer("portr")  # type: ignore[arg-type]
    index = Index.build([Document("1", text="wing")], PLAIN)
    with pytest.raises(SystemsError, match=r"unknown query field 'titel'; did you mean 'title'"):
        retrieve(index, "bm25", [Topic("1", "wing")], field="titel")


def test_text_parameters_parse_as_on_the_command_line() -> None:
    assert get("tfidf").validate({"sublinear_tf": "true", "smooth_idf": "0"}) == {
        "sublinear_tf": True, "smooth_idf": False}
    assert get("bm25").validate({"k1": "0.9", "b": "1"})["b"] == 1.0
    assert get("ql").validate({"mu": "1000"})["mu"] == 1000.0
    with pytest.raises(SystemsError, match=r"'mu' parameter of ql must be a number > 0; got 0"):
        get("ql").validate({"mu": 0})


def test_bad_collections_are_clear_errors() -> None:
    with pytest.raises(SystemsError, match="document 'a' appears twice"):
        Index.build([Document("a", text="x"), Document("a", text="y")], PLAIN)
    with pytest.raises(SystemsError, match="no documents"):
        Index.build([], PLAIN)
    with pytest.raises(SystemsError, match="no document has an indexable term"):
        Index.build([Document("a", text="the of")], Analyzer())
    index = Index.build([Document("a", text="wing")], PLAIN)
    with pytest.raises(SystemsError, match="one word without spaces"):
        retrieve(index, "bm25", [Topic("1", "wing")], tag="my run")
    with pytest.raises(SystemsError, match="depth must be an int >= 1"):
        retrieve(index, "bm25", [Topic("1", "wing")], depth=0)
