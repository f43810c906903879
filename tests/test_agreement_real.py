"""Agreement on real multi-assessor data in ../shared/corpora (skipped when absent).

- TREC DL 2023 / LLMJudge: NIST grades and 33 automatic judges on the same 4,423 pairs.
  Three LLM labels are off the 0-3 scale (RMITIR-llama70B: two 5s; h2oloo-zeroshot2: one
  10): relkit refuses them naming file and line; the statistics drop those three labels.
- TREC 2010 RF crowd: 766 workers, NIST gold on 3,277 pairs. Label -2 ("broken link") is not a
  relevance grade and gold -1/-2 mean "no gold": those are dropped. 1,489 (worker, pair)
  combinations were judged twice (284 of them differently); we keep the last in file order
  (``repeats="last"``), the worker's final word.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from helpers import SHARED
from relkit.corpora.types import TREC_DL, RelevanceScale
from relkit.judging.agreement import multi, pairwise
from relkit.judging.agreement.analysis import Options, analyse
from relkit.judging.agreement.frame import AgreementError, Ratings, read_files

DL = SHARED / "corpora" / "llmjudge-dl23"
CROWD = SHARED / "corpora" / "trec-rf10-crowd" / "trec-rf10-data.txt"
needs_dl = pytest.mark.skipif(not DL.is_dir(), reason=f"{DL} not found")
needs_crowd = pytest.mark.skipif(not CROWD.is_file(), reason=f"{CROWD} not found")


def _dl_frame() -> pd.DataFrame:
    parts = []
    for f in [DL / "llmjudge_test_qrel_idx.txt", *sorted((DL / "llm-judgments").glob("*.txt"))]:
        d = pd.read_csv(f, sep=" ", header=None, names=["topic", "it", "doc", "grade"], dtype=str)
        d["assessor"] = "NIST" if f.name.startswith("llmjudge") else f.stem
        parts.append(d)
    frame = pd.concat(parts, ignore_index=True)
    frame["grade"] = frame["grade"].astype(int)
    return frame


@needs_dl
def test_dl23_off_scale_grade_is_refused_with_file_and_line() -> None:
    r = read_files([DL / "llm-judgments" / "RMITIR-llama70B.txt"])
    with pytest.raises(AgreementError, match=r"RMITIR-llama70B\.txt:2449: grade 5 is not on"):
        Ratings.from_frame(r, TREC_DL)


@pytest.mark.slow
@needs_dl
def test_dl23_each_judge_against_nist() -> None:
    from sklearn.metrics import cohen_kappa_score

    frame = _dl_frame()
    frame = frame[frame["grade"].isin(TREC_DL.values)]
    r = Ratings.from_frame(frame, TREC_DL)
    assert len(r) == 4423 and len(r.assessors) == 34
    a = analyse(r, gold="NIST", opts=Options(replicates=100))
    kappas = {p.a: p.stats["cohen_kappa"].value for p in a.graded.gold}
    assert len(kappas) == 33
    # the corpus README: unweighted 4-class kappa from 0.06 (TREMA-nuggets) to 0.29
    assert min(kappas, key=kappas.get) == "TREMA-nuggets"  # type: ignore[arg-type]
    assert 0.05 < min(kappas.values()) < 0.07 and 0.28 < max(kappas.values()) < 0.30
    # cross-check one with scikit-learn on the same aligned pairs
    g, u = r.index("NIST"), r.index("willia-umbrela1")
    ok = (r.codes[:, g] >= 0) & (r.codes[:, u] >= 0)
    ref = cohen_kappa_score(r.codes[ok, u], r.codes[ok, g], labels=[0, 1, 2, 3])
    assert kappas["willia-umbrela1"] == pytest.approx(ref, abs=1e-12)
    # binarised at the scale's threshold (2): every judge still in [-1, 1], intervals hold it
    for p in a.binary.gold:
        s = p.stats["cohen_kappa"]
        assert s.status == "ok" and s.analytic is not None
        assert s.analytic.low <= s.value <= s.analytic.high


@needs_dl
def test_dl23_alpha_across_all_judges_matches_krippendorff() -> None:
    import krippendorff

    frame = _dl_frame()
    frame = frame[frame["grade"].isin(TREC_DL.values)]
    r = Ratings.from_frame(frame, TREC_DL)
    pat = multi.patterns(r.codes, 4)
    data = np.where(r.codes < 0, np.nan, r.codes.astype(float)).T
    for metric in ("nominal", "ordinal", "interval"):
        s = multi.measure(multi.REGISTRY[f"krippendorff_alpha_{metric}"], pat, r.values,
                          replicates=0)
        ref = krippendorff.alpha(reliability_data=data, level_of_measurement=metric,
                                 value_domain=[0, 1, 2, 3])
        assert s.value == pytest.approx(ref, abs=1e-9)
        assert 0.0 < s.value < 0.8


@pytest.mark.slow
@needs_crowd
def test_crowd_workers_against_nist_gold() -> None:
    from sklearn.metrics import cohen_kappa_score

    raw = pd.read_csv(CROWD, sep="\t", dtype=str)
    raw.columns = [c.strip() for c in raw.columns]
    work = pd.DataFrame({"assessor": raw["workerID"], "topic": raw["topicID"],
                         "doc": raw["docID"], "grade": raw["label"].astype(int)})
    assert work["assessor"].nunique() == 766
    gold = raw[raw["gold"].astype(int) >= 0].drop_duplicates(["topicID", "docID"])
    assert len(gold) == 3277
    gold_frame = pd.DataFrame({"assessor": "NIST", "topic": gold["topicID"],
                               "doc": gold["docID"], "grade": gold["gold"].astype(int)})
    frame = pd.concat([work[work["grade"] >= 0], gold_frame], ignore_index=True)
    scale = RelevanceScale.from_values("rf10", [0, 1, 2], threshold=1)
    with pytest.raises(AgreementError, match="already at"):
        Ratings.from_frame(frame, scale)                       # repeats are not silent
    r = Ratings.from_frame(frame, scale, repeats="last")
    a = analyse(r, gold="NIST", opts=Options(replicates=0))
    fleiss = a.graded.overall["fleiss_kappa"]
    assert fleiss.status == "ok" and 0.0 < fleiss.value < 0.6   # noisy crowd
    judged = {p.a: p for p in a.graded.gold if p.table.sum() > 0}
    assert 300 < len(judged) < 766
    busiest = max(judged.values(), key=lambda p: p.table.sum())
    w, g = r.index(busiest.a), r.index("NIST")
    ok = (r.codes[:, w] >= 0) & (r.codes[:, g] >= 0)
    ref = cohen_kappa_score(r.codes[ok, w], r.codes[ok, g], labels=[0, 1, 2])
    assert busiest.stats["cohen_kappa"].value == pytest.approx(ref, abs=1e-12)
    # majority of the other workers agrees with a worker more often than chance
    assert a.graded.majority and all(-1 <= (p.stats["percent_agreement"].value or 0) <= 1
                                     for p in a.graded.majority)


def test_repeats_policies() -> None:
    f = pd.DataFrame({"assessor": ["a"] * 4 + ["b"], "topic": ["1"] * 5,
                      "doc": ["x", "x", "x", "y", "x"], "grade": [2, 0, 0, 1, 2]})
    sc = RelevanceScale.from_values("s", range(3))
    from relkit.judging.agreement.frame import validate

    assert validate(f, sc, "first").query("assessor == 'a' and doc == 'x'")["grade"].item() == 2
    assert validate(f, sc, "last").query("assessor == 'a' and doc == 'x'")["grade"].item() == 0
    assert validate(f, sc, "majority").query(
        "assessor == 'a' and doc == 'x'")["grade"].item() == 0
    with pytest.raises(AgreementError, match="row 1: 'a' judged topic '1' document 'x' already"):
        validate(f, sc)


def test_ids_are_never_coerced(tmp_path: Path) -> None:
    f = pd.DataFrame({"assessor": ["a", "b"], "topic": [1, 1], "doc": ["x", "x"],
                      "grade": [0, 1]})
    with pytest.raises(AgreementError, match="string topic"):
        Ratings.from_frame(f, RelevanceScale.from_values("s", [0, 1]))


def test_binarised_uses_threshold() -> None:
    f = pd.DataFrame({"assessor": ["a", "b", "a", "b"], "topic": ["1"] * 4,
                      "doc": ["x", "x", "y", "y"], "grade": [1, 2, 3, 0]})
    r = Ratings.from_frame(f, TREC_DL)
    b2, b1 = r.binarised(), r.binarised(1)
    assert b2.codes.tolist() == [[0, 1], [1, 0]] and b1.codes.tolist() == [[1, 1], [1, 0]]
    t = pairwise.confusion(b1.codes[:, 0], b1.codes[:, 1], 2)
    assert t.tolist() == [[0, 0], [1, 1]]


@pytest.mark.slow
@needs_crowd
def test_crowd_file_directly_through_the_cli() -> None:
    """``relkit agree trec-rf10-data.txt --repeats last``: gold column, -2 and -1 dropped."""
    import json

    from sklearn.metrics import cohen_kappa_score

    from helpers import run_cli

    code, out, err = run_cli(["agree", str(CROWD), "--repeats", "last", "--format", "json",
                              "--replicates", "0"])
    assert code == 0, err
    # counts from the corpus README: 6,670 worker labels -2; 3,277 gold pairs, 1,183 gold -2
    assert "6,670 with -2" in err and "3,277 pairs" in err and "1,183 with gold -2" in err
    d = json.loads(out)
    assert d["gold"] == "gold" and d["graded"]["grades"] == [0, 1, 2]
    raw = pd.read_csv(CROWD, sep="\t", dtype=str)
    raw = raw[raw["label"].astype(int) >= 0].drop_duplicates(
        ["workerID", "topicID", "docID"], keep="last")
    g = raw[raw["gold"].astype(int) >= 0]
    busiest = g["workerID"].value_counts().index[0]
    mine = g[g["workerID"] == busiest]
    ref = cohen_kappa_score(mine["label"].astype(int), mine["gold"].astype(int),
                            labels=[0, 1, 2])
    pair = next(p for p in d["graded"]["gold"] if p["a"] == busiest)
    assert pair["n"] == len(mine)
    assert pair["stats"]["cohen_kappa"]["value"] == pytest.approx(ref, abs=1e-12)
    assert len(d["graded"]["per_topic"]) == 100
