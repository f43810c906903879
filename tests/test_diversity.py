"""Diversity measures on subtopic qrels against pyndeval (ndeval 4.5), bit for bit.

pyndeval ranks a run by score, then docno *ascending*; relkit ranks every run one way,
trec_eval's (score, then docno descending: ndeval ``-traditional``). The oracle below is
therefore given the run in relkit's order (scores replaced by minus the position), and
one test shows the two tie orders differ. pyndeval gives NaN for nNRBP on a topic with
no relevant document (0/0); relkit gives 0 (docs/measures.md).
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from helpers import examples, run_cli
from relkit.metrics.core.errors import MeasureError
from relkit.metrics.diversity.evaluator import DiversityEvaluator
from relkit.metrics.diversity.subtopics import SubtopicQrels
from relkit.metrics.errors import FormatError
from relkit.metrics.measures.diversity import REGISTRY, parse_diversity

pyndeval = pytest.importorskip("pyndeval")

CRANFIELD = Path(__file__).resolve().parents[1] / ".." / "shared" / "corpora" / "cranfield"

# ndeval's spelling -> ir_measures' (relkit's) spelling
NDEVAL = {"ERR-IA": "ERR_IA", "nERR-IA": "nERR_IA", "alpha-DCG": "alpha_DCG",
          "alpha-nDCG": "alpha_nDCG", "NRBP": "NRBP", "nNRBP": "nNRBP", "MAP-IA": "AP_IA",
          "P-IA": "P_IA", "strec": "StRecall"}
CUTS = (1, 2, 5, 10, 20)
ORACLE_MEASURES = [f"{m}@{k}" for m in NDEVAL if m not in ("NRBP", "nNRBP", "MAP-IA")
                   for k in CUTS] + ["NRBP", "nNRBP", "MAP-IA"]


def relkit_name(ndeval_name: str, alpha: float, beta: float) -> str:
    head, at, k = ndeval_name.partition("@")
    fam = NDEVAL[head]
    params = []
    if "alpha" in REGISTRY[fam].params and alpha != 0.5:
        params.append(f"alpha={alpha}")
    if "beta" in REGISTRY[fam].params and beta != 0.5:
        params.append(f"beta={beta}")
    return fam + (f"({','.join(params)})" if params else "") + at + k


def trec_order(run: pd.DataFrame) -> list[tuple[str, str, float]]:
    """The run as pyndeval's input, in trec_eval's order (score desc, docno desc)."""
    out = []
    for qid, group in run.groupby("query_id", sort=True):
        rows = sorted(zip(group["doc_id"], group["score"], strict=True),
                      key=lambda r: r[0].encode(), reverse=True)
        rows.sort(key=lambda r: -r[1])        # stable: equal scores keep docno descending
        out.extend((str(qid), d, float(-i)) for i, (d, _) in enumerate(rows))
    return out


def check_against_pyndeval(records: list[tuple[str, str, str, int]], run: pd.DataFrame,
                           alpha: float = 0.5, beta: float = 0.5) -> int:
    """Every measure on every topic equal to pyndeval's; returns the topics compared."""
    ref = pyndeval.ndeval(records, trec_order(run), ORACLE_MEASURES, alpha=alpha, beta=beta)
    # ndeval's ERR-IA, P-IA, strec and MAP-IA take no alpha in ir_measures: compare them
    # at the default only
    names = [m for m in ORACLE_MEASURES if alpha == 0.5 or m.split("@")[0] in
             ("alpha-DCG", "alpha-nDCG", "NRBP", "nNRBP")]
    ev = DiversityEvaluator(SubtopicQrels.from_records(records),
                            [relkit_name(m, alpha, beta) for m in names])
    if not ref:
        return 0
    res = ev.compute(run)
    assert sorted(res.topics) == sorted(ref)
    for name, values in zip(names, res.values, strict=True):
        for qid, mine in zip(res.topics, values.tolist(), strict=True):
            theirs = ref[qid][name]
            if math.isnan(theirs):    # nNRBP with no relevant document: 0/0 in ndeval
                assert name == "nNRBP"
                theirs = 0.0
            assert mine == theirs, (qid, name, mine, theirs)
    return len(res.topics)


@st.composite
def cases(draw: st.DrawFn) -> tuple[list[tuple[str, str, str, int]], pd.DataFrame]:
    n_topics = draw(st.integers(1, 4))
    docs = [f"d{i}" for i in range(draw(st.integers(1, 12)))]
    records, rows = [], []
    for t in range(n_topics):
        qid = f"q{t}"
        for d in draw(st.lists(st.sampled_from(docs), unique=True, max_size=len(docs))):
            for s in draw(st.lists(st.sampled_from(["a", "b", "c", "d"]), unique=True,
                                   min_size=1, max_size=3)):
                records.append((qid, s, d, draw(st.sampled_from([-1, 0, 0, 1, 1, 2]))))
        ranked = draw(st.lists(st.sampled_from(docs + ["x1", "x2"]), unique=True))
        # few score values: many ties
        rows += [(qid, d, float(draw(st.integers(0, 3)))) for d in ranked]
    rows.append(("not-judged", "d0", 1.0))      # a run topic without qrels: ignored
    if not records:
        records.append(("q0", "a", "d0", 0))
    return records, pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])


@settings(max_examples=examples(300), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.sampled_from([(0.5, 0.5), (0.3, 0.8), (1.0, 0.5), (0.0, 0.9)]))
def test_generated_cases_match_pyndeval(case: tuple[list[tuple[str, str, str, int]],
                                                    pd.DataFrame],
                                        params: tuple[float, float]) -> None:
    records, run = case
    check_against_pyndeval(records, run, *params)


def test_cranfield_with_derived_subtopics_matches_pyndeval() -> None:
    """A realistic size: Cranfield's 225 topics and its six real Lucene runs, with
    subtopics derived by a fixed rule (docs/measures.md): a judged document belongs to
    subtopic ``c<grade>`` (Cleverdon's grade, relevant unless -1) and, with grade <= 3,
    to ``m<docno mod 3>`` as well, so documents share subtopics."""
    records = []
    for line in (CRANFIELD / "cranqrel").read_text().split("\n"):
        fields = line.split()
        if not fields:
            continue
        qid, doc, grade = fields[0], fields[1], int(fields[2])
        records.append((qid, f"c{grade}", doc, 0 if grade < 0 else 1))
        if 0 < grade <= 3:
            records.append((qid, f"m{int(doc) % 3}", doc, 1))
    compared = 0
    for path in sorted((CRANFIELD / "runs").glob("*/*.txt")):
        from relkit.metrics.data import Run

        run = Run.read(path).frame[["query_id", "doc_id", "score"]]
        compared += check_against_pyndeval(records, run)
        compared += check_against_pyndeval(records, run, 0.3, 0.8)
    assert compared == 6 * 2 * 225


def test_worked_example_by_hand() -> None:
    """Subtopics s1, s2, s3; a = {s1, s2}, b = {s1}, c = {s3}, d judged for nothing.
    Run b, a, d, c; alpha = beta = 0.5. Gains: b 1; a 0.5 (s1 seen) + 1 = 1.5; d 0; c 1.
    Greedy ideal: a (2), then c (1; b would give 0.5), then b (0.5), then d (0)."""
    qrels = "1 s1 a 1\n1 s2 a 1\n1 s1 b 1\n1 s3 c 1\n1 s1 d 0\n"
    run = "1 Q0 b 1 4 r\n1 Q0 a 2 3 r\n1 Q0 d 3 2 r\n1 Q0 c 4 1 r\n"
    names = ["alpha_nDCG@4", "ERR_IA@4", "NRBP", "P_IA@2", "StRecall@2", "StRecall@4",
             "AP_IA"]
    got = DiversityEvaluator(qrels, names).aggregate(run)
    dcg = 1 + 1.5 / math.log2(3) + 0 + 1 / math.log2(5)
    ideal = 2 + 1 / math.log2(3) + 0.5 / 2
    err = (1 + 1.5 / 2 + 0 + 1 / 4) / (3 * (1 + 0.5 / 2 + 0.25 / 3 + 0.125 / 4))
    nrbp = (1 + 0.5 * 1.5 + 0 + 0.125 * 1) * (1 - 0.5 * 0.5) / 3
    p_ia = 3 / (2 * 3)                       # pairs b-s1, a-s1, a-s2 over k |S|
    ap_ia = (1.0 + 0.5 + 0.25) / 3           # s1: b@1, a@2 (R=2); s2: a@2; s3: c@4
    expected = [dcg / ideal, err, nrbp, p_ia, 2 / 3, 1.0, ap_ia]
    assert got == pytest.approx(expected, rel=1e-12)
    ideal_run = "1 Q0 a 1 4 r\n1 Q0 c 2 3 r\n1 Q0 b 3 2 r\n1 Q0 d 4 1 r\n"
    assert DiversityEvaluator(qrels, ["alpha_nDCG@4"]).aggregate(ideal_run) == [1.0]
    records = [tuple(line.split()[:3]) + (int(line.split()[3]),)
               for line in qrels.splitlines()]
    check_against_pyndeval(records, pd.DataFrame(  # type: ignore[arg-type]
        [("1", d, s) for d, s in (("b", 4.0), ("a", 3.0), ("d", 2.0), ("c", 1.0))],
        columns=["query_id", "doc_id", "score"]))


def test_ties_follow_trec_eval_not_pyndeval() -> None:
    """Equal scores: relkit (and ndeval -traditional, and trec_eval) put the greater
    docno first; pyndeval puts the smaller one first."""
    records = [("1", "s1", "a", 1), ("1", "s1", "b", 0)]
    run = pd.DataFrame([("1", "a", 1.0), ("1", "b", 1.0)],
                       columns=["query_id", "doc_id", "score"])
    mine = DiversityEvaluator(records, ["alpha_nDCG@1"]).aggregate(run)
    theirs = pyndeval.ndeval(records, [("1", "a", 1.0), ("1", "b", 1.0)], ["alpha-nDCG@1"])
    assert mine == [0.0]                       # b (greater docno) first: not relevant
    assert theirs["1"]["alpha-nDCG@1"] == 1.0  # pyndeval: a first


def test_topic_without_relevant_document_scores_zero_and_counts() -> None:
    qrels = "1 s1 a 1\n2 s1 b 0\n"
    run = "1 Q0 a 1 1 r\n2 Q0 b 1 1 r\n3 Q0 z 1 1 r\n"
    res = DiversityEvaluator(qrels, ["alpha_nDCG@5", "nNRBP"]).compute(run)
    assert res.topics == ["1", "2"]            # 3 is not in the qrels: ignored
    assert res.values[0].tolist() == [1.0, 0.0] and res.summary == [0.5, 0.5]


def test_complete_and_depth() -> None:
    qrels = "1 s1 a 1\n2 s1 b 1\n"
    run = "1 Q0 x 1 2 r\n1 Q0 a 2 1 r\n"
    assert DiversityEvaluator(qrels, ["StRecall@5"]).aggregate(run) == [1.0]
    assert DiversityEvaluator(qrels, ["StRecall@5"], complete=True).aggregate(run) == [0.5]
    assert DiversityEvaluator(qrels, ["StRecall@5"], max_docs=1).aggregate(run) == [0.0]


def test_level_and_rel_parameter() -> None:
    qrels = "1 s1 a 1\n1 s2 b 2\n"
    run = "1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n"
    assert DiversityEvaluator(qrels, ["StRecall@1"]).aggregate(run) == [0.5]
    assert DiversityEvaluator(qrels, ["StRecall(rel=2)@1"]).aggregate(run) == [0.0]
    assert DiversityEvaluator(qrels, ["StRecall@2"], level=2).aggregate(run) == [1.0]


@pytest.mark.parametrize("name", ["alpha_nDCG@20", "alpha_nDCG(alpha=0.3)@20", "ERR_IA@5",
                                  "nERR_IA@10", "alpha_DCG@1", "NRBP", "NRBP(beta=0.8)",
                                  "nNRBP(alpha=0.2,beta=0.9)", "AP_IA", "P_IA(rel=2)@10",
                                  "StRecall@20"])
def test_names_round_trip(name: str) -> None:
    m = parse_diversity(name)
    assert str(m) == name and parse_diversity(str(m)) == m


def test_ndeval_and_ir_measures_spellings() -> None:
    assert parse_diversity("alpha-nDCG@20") == parse_diversity("alpha_nDCG@20")
    assert parse_diversity("strec@10") == parse_diversity("StRecall@10")
    assert parse_diversity("MAP-IA") == parse_diversity("AP_IA")
    ir_measures = pytest.importorskip("ir_measures")
    for m in (ir_measures.alpha_nDCG @ 20, ir_measures.NRBP(beta=0.8),
              ir_measures.StRecall @ 5, ir_measures.ERR_IA @ 20):
        assert str(parse_diversity(str(m))) == str(m)


@pytest.mark.parametrize(("name", "message"), [
    ("alpha_nDCG", "alpha_nDCG needs a cutoff"),
    ("alpha_nDCG@0", "The 'cutoff' parameter of alpha_nDCG must be an int >= 1; got '0'"),
    ("NRBP@5", "The 'cutoff' parameter of NRBP must be absent"),
    ("alpha_nDCG(alpha=1.5)@5", "The 'alpha' parameter of alpha_nDCG must be a number in"),
    ("ERR_IA(alpha=0.3)@5", "ERR_IA takes the parameters rel=; got 'alpha=0.3'"),
    ("alpha_nDGC@5", "did you mean 'alpha_nDCG'?"),
])
def test_bad_names(name: str, message: str) -> None:
    with pytest.raises(MeasureError, match=message.replace("(", r"\(").replace(")", r"\)")
                       .replace("?", r"\?")):
        parse_diversity(name)


def test_plain_eval_points_diversity_names_to_subtopics() -> None:
    from relkit.metrics.names import parse_measure

    with pytest.raises(MeasureError, match="diversity measure: it needs subtopic qrels"):
        parse_measure("alpha_nDCG@20")


def test_reader_errors_name_file_and_line(tmp_path: Path) -> None:
    bad = tmp_path / "sub.txt"
    bad.write_text("1 s1 a 1\n1 s1 b\n")
    with pytest.raises(FormatError, match=r"sub.txt:2: expected 4 fields like the first "
                                          r"line of the file; found 3 field\(s\)"):
        SubtopicQrels.read(bad)
    bad.write_text("1 a 1\n")
    with pytest.raises(FormatError, match=r"sub.txt:1: expected 4 fields 'topic subtopic "
                                          r"docno grade'; found 3 field\(s\)"):
        SubtopicQrels.read(bad)
    bad.write_text("# comment\n1 s1 a x\n")
    with pytest.raises(FormatError, match="sub.txt:2: expected an integer grade"):
        SubtopicQrels.read(bad)
    bad.write_text("1 s1 a 1\n\n1 s1 a 0\n")
    with pytest.raises(FormatError, match=r"sub.txt:3: expected each \(topic, subtopic, "
                                          "document\\) at most once"):
        SubtopicQrels.read(bad)


def test_cli_subtopics(tmp_path: Path) -> None:
    q = tmp_path / "sub.txt"
    q.write_text("1 s1 a 1\n1 s2 a 1\n1 s1 b 1\n1 s3 c 1\n1 s1 d 0\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 b 1 4 r\n1 Q0 a 2 3 r\n1 Q0 d 3 2 r\n1 Q0 c 4 1 r\n")
    code, out, err = run_cli(["eval", "-R", "subtopics", "-q", "-m", "StRecall@2",
                              "-m", "P_IA@2", str(q), str(r)])
    assert (code, err) == (0, "")
    assert out == ("StRecall@2            \t1\t0.6667\nP_IA@2                \t1\t0.5000\n"
                   "StRecall@2            \tall\t0.6667\nP_IA@2                \tall\t0.5000\n")
    code, out, err = run_cli(["eval", "-R", "subtopics", str(q), str(r)])
    assert code == 0 and len(out.splitlines()) == 21     # ndeval's 21 columns
    code, out, err = run_cli(["eval", "-R", "subtopics", "-m", "nDCG@10", str(q), str(r)])
    assert code == 2 and len(err.splitlines()) == 1 and "unknown diversity measure" in err


def test_cli_refuses_subtopic_qrels_as_plain_qrels(tmp_path: Path) -> None:
    q = tmp_path / "sub.txt"
    q.write_text("1 s1 a 1\n1 s2 a 1\n")
    r = tmp_path / "run.txt"
    r.write_text("1 Q0 a 1 4 r\n")
    code, out, err = run_cli(["eval", str(q), str(r)])
    assert code == 1 and out == ""
    assert err == (f"relkit: error: {q}:2: expected plain qrels (each document once per "
                   "topic); found document 'a' judged again for topic '1' under another "
                   "subtopic: these are subtopic qrels ('topic subtopic docno grade'); "
                   "evaluate them with -R subtopics\n")
    code, out, err = run_cli(["eval", "-m", "alpha_nDCG@20", str(q), str(r)])
    assert code == 2 and "-R subtopics" in err and len(err.splitlines()) == 1


@pytest.mark.parametrize("name", ["relkit.metrics.diversity.subtopics",
                                  "relkit.metrics.diversity.evaluator",
                                  "relkit.metrics.measures.diversity"])
def test_examples_run(name: str) -> None:
    import doctest
    import importlib

    result = doctest.testmod(importlib.import_module(name),
                             optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0 and result.attempted > 0


@pytest.mark.parametrize("complete", [False, True])
def test_large_runs_ranked_in_chunks_give_the_same_values(
        monkeypatch: pytest.MonkeyPatch, complete: bool) -> None:
    """A run above CHUNK_ROWS is ranked a group of topics at a time (as Evaluator does);
    the values are those of one piece, topics interleaved in the file or not."""
    import relkit.metrics.diversity.evaluator as div

    rng = np.random.default_rng(3)
    records = [(f"t{t}", f"s{s}", f"d{d}", int(rng.integers(0, 2)))
               for t in range(7) for d in range(9) for s in range(3) if rng.random() < 0.5]
    rows = [(f"t{t}", f"d{d}", float(rng.integers(0, 4))) for d in range(12) for t in range(8)]
    run = pd.DataFrame(rows, columns=["query_id", "doc_id", "score"])
    names = ["alpha_nDCG@5", "ERR_IA@10", "NRBP", "nNRBP", "AP_IA", "P_IA@3", "StRecall@4"]
    whole = DiversityEvaluator(records, names, complete=complete).compute(run)
    monkeypatch.setattr(div, "CHUNK_ROWS", 10)
    pieces = DiversityEvaluator(records, names, complete=complete).compute(run)
    assert pieces.topics == whole.topics
    assert all((a == b).all() for a, b in zip(pieces.values, whole.values, strict=True))


def test_hash_collisions_and_long_ids_take_the_exact_path(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """(topic, doc) pairs are coded by a hash, checked row by row: a collision falls back
    to sorting the docnos, and so do ids too long for fixed-width bytes; same values."""
    import relkit.metrics.pairs as pairs
    from relkit.metrics.readers import io as _io

    records = [("1", "s1", "a", 1), ("1", "s2", "a", 1), ("1", "s1", "b", 1),
               ("1", "s3", "c", 1), ("2", "s1", "a", 1), ("2", "s2", "z", 0)]
    run = pd.DataFrame([("1", "b", 3.0), ("1", "a", 2.0), ("1", "c", 2.0), ("2", "a", 1.0)],
                       columns=["query_id", "doc_id", "score"])
    names = ["alpha_nDCG@3", "NRBP", "AP_IA", "StRecall@2"]
    expected = DiversityEvaluator(records, names).compute(run).values
    monkeypatch.setattr(pairs, "pair_hash", lambda values, q: np.zeros(len(q), np.uint64))
    collided = DiversityEvaluator(records, names).compute(run).values
    assert all((a == b).all() for a, b in zip(collided, expected, strict=True))
    monkeypatch.undo()
    long = "x" * (_io.MAX_ID_BYTES + 1)
    renamed = [(t, s, d + long, g) for t, s, d, g in records]
    run_long = run.assign(doc_id=run["doc_id"] + long)
    got = DiversityEvaluator(renamed, names).compute(run_long).values
    assert all((a == b).all() for a, b in zip(got, expected, strict=True))


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=12).filter(lambda b: b"\x00" not in b),
                min_size=1, max_size=30), st.integers(1, 3))
def test_id_coding_is_numpys_unique(values: list[bytes], repeat: int) -> None:
    """The subtopic qrels' id coding (numeric sort of the bytes, runs collapsed) gives
    numpy's unique: strcmp order, first rows, inverse."""
    from relkit.metrics.diversity.subtopics import _unique

    ids = np.array([v for v in values for _ in range(repeat)])
    got = _unique(ids)
    want = np.unique(ids, return_index=True, return_inverse=True)
    assert all((a == b).all() for a, b in zip(got, want, strict=True))


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(cases(), st.randoms(use_true_random=False))
def test_lines_in_any_order_match_pyndeval(case: tuple[list[tuple[str, str, str, int]],
                                                       pd.DataFrame], rnd: Any) -> None:
    """A file whose topics' lines are interleaved takes the flat-sort paths of the id
    coding (no per-topic blocks): the same numbers as pyndeval on the same lines."""
    records, run = case
    shuffled = list(records)
    rnd.shuffle(shuffled)
    check_against_pyndeval(shuffled, run)


@pytest.mark.parametrize("subtopics", [3, 300])
@pytest.mark.parametrize("grouped", [True, False])
def test_a_repeated_judgment_is_found_whatever_the_order_and_subtopic_count(
        subtopics: int, grouped: bool) -> None:
    """The repeat check rides on the pair sort when there are at most 256 subtopics, and
    is a sort of its own otherwise; topics grouped or not. The line named is the repeat."""
    rows = [(f"t{t}", f"s{s}", f"d{d}", 1) for t in range(3) for d in range(4)
            for s in range(subtopics) if (t + d + s) % 3]
    if not grouped:
        rows = rows[1::2] + rows[::2]
    SubtopicQrels.from_records(rows)           # no repeat: accepted
    again = [*rows[:5], rows[2], *rows[5:]]
    with pytest.raises(FormatError, match=rf"<records>:6: .*document '{rows[2][2]}' again "
                                          rf"for topic '{rows[2][0]}', subtopic "
                                          rf"'{rows[2][1]}'"):
        SubtopicQrels.from_records(again)


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.tuples(st.integers(0, 5), st.binary(min_size=0, max_size=20)
                          .filter(lambda b: b"\x00" not in b)), min_size=1, max_size=60))
def test_docnos_sorted_descending_per_topic_as_by_lexsort(rows: list[tuple[int, bytes]]
                                                          ) -> None:
    """The per-topic grid sort of the ideal's document numbering gives lexsort's order
    (an empty docno, whose word is the grid's padding, takes lexsort itself)."""
    from relkit.metrics.diversity.prep import _by_topic_docno_descending
    from relkit.metrics.ranking import byte_words

    rows.sort(key=lambda r: r[0])
    topic = np.array([t for t, _ in rows], np.int64)
    docs = np.array([d for _, d in rows])
    if docs.dtype.itemsize == 0:
        docs = docs.astype("S1")
    words = ~byte_words(docs)
    want = np.lexsort([*(words[:, j] for j in reversed(range(words.shape[1]))), topic])
    got = _by_topic_docno_descending(np.arange(len(rows)), topic, docs)
    assert got.tolist() == want.tolist()


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.binary(min_size=1, max_size=2).filter(lambda b: b"\x00" not in b),
                min_size=1, max_size=30), st.integers(1, 3), st.integers(0, 6))
def test_short_and_padded_ids_code_as_numpys_unique(values: list[bytes], repeat: int,
                                                    pad: int) -> None:
    """Subtopic-like ids (1-2 bytes: counted, not sorted), and any ids in an array wider
    than the longest (trimmed first): numpy's unique of the ids as given."""
    from relkit.metrics.diversity.subtopics import _ids, _unique

    ids = np.array([v for v in values for _ in range(repeat)])
    wide = ids.astype(f"S{ids.dtype.itemsize + pad}")
    want = np.unique(ids, return_index=True, return_inverse=True)
    for given_ids in (ids, wide):
        got = _unique(_ids(given_ids))
        assert all((a == b).all() for a, b in zip(got, want, strict=True))
