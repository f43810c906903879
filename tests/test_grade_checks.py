"""Qrels that would silently mislead are said aloud: inverted grades, grades off a scale.

Tester: Cranfield's raw ``cranqrel`` (1 = complete answer, metrics/commands/grade_checks.py)
gave nDCG@10 with no word that its grades run the other way. The warning must fire on
it and on nothing relkit ships or tests against: the sample, trec_eval's conformance
qrels, TREC DL 2023 (the human qrels and the 36 LLM judges' of the LLMJudge challenge),
Vaswani/NPL, and Cranfield read through its collection (grades turned round).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from helpers import CONFORMANCE, ROOT, SHARED, run_cli
from relkit.metrics.commands.grade_checks import inverted_grades
from relkit.metrics.data import Qrels

CRAN = SHARED / "corpora" / "cranfield"
RUN = CRAN / "runs" / "taylorj8" / "results.txt"
DL23 = SHARED / "corpora" / "llmjudge-dl23"
NORMAL = [ROOT / "corpora" / "sample" / "qrels.txt",
          *sorted(CONFORMANCE.glob("qrels*")),
          DL23 / "llm4eval_dev_qrel_2024.txt",
          *sorted((DL23 / "llm-judgments").glob("*.txt")),
          SHARED / "corpora" / "vaswani" / "qrels"]
needs_cran = pytest.mark.skipif(not CRAN.is_dir(), reason="no shared Cranfield corpus")


@needs_cran
def test_raw_cranqrel_is_pointed_out_once_and_the_numbers_stay() -> None:
    code, out, err = run_cli(["eval", "-m", "nDCG@10", str(CRAN / "cranqrel"), str(RUN)])
    assert code == 0 and err.count("\n") == 1, err
    assert err.startswith(f"relkit eval: warning: {CRAN / 'cranqrel'}: grade 1 is the rarest "
                          "relevant grade (1: 128, 2: 387, 3: 734, 4: 363)")
    code, quiet_out, quiet_err = run_cli(["eval", "--quiet", "-m", "nDCG@10",
                                          str(CRAN / "cranqrel"), str(RUN)])
    assert (code, quiet_err, quiet_out) == (0, "", out)
    other = RUN.parent / "BM25Similarity_results.txt"
    code, _, err = run_cli(["compare", "-m", "nDCG@10", "--format", "csv",
                            str(CRAN / "cranqrel"), str(RUN), str(other)])
    assert code == 0 and err.count("relkit compare: warning: ") == 1, err


@needs_cran
def test_the_grades_turned_round_are_not_pointed_out_and_score_higher(tmp_path: Path) -> None:
    from relkit.corpora.collection import open_collection
    from relkit.metrics.data import Run
    from relkit.metrics.evaluator import Evaluator

    col = open_collection(CRAN, "cranfield")
    mapped = col.read_qrels()
    assert inverted_grades(mapped) is None and col.qrels_warnings(mapped) == []
    path = tmp_path / "cranqrel.turned"
    mapped.write(path)
    code, out, err = run_cli(["eval", "-m", "nDCG@10", str(path), str(RUN)])
    assert code == 0 and err == ""
    # what the warning is about: the raw grades give a lower nDCG@10 (0.3407, not 0.3760)
    run = Run.read(RUN)
    raw = Evaluator(Qrels.read(CRAN / "cranqrel"), ["nDCG@10"]).aggregate(run)["nDCG@10"]
    turned = Evaluator(mapped, ["nDCG@10"]).aggregate(run)["nDCG@10"]
    assert round(raw, 4) == 0.3407 and round(turned, 4) == 0.3760
    assert out.split()[-1] == "0.3760"


@pytest.mark.parametrize("path", NORMAL, ids=lambda p: p.name)
def test_never_on_the_qrels_relkit_ships_and_tests_against(path: Path) -> None:
    if not path.is_file():
        pytest.skip(f"{path} not here")
    assert inverted_grades(Qrels.read(path)) is None


def test_too_few_levels_or_judgments_or_a_zero_say_nothing() -> None:
    def qrels(grades: list[int]) -> Qrels:
        return Qrels.read("".join(f"q 0 d{i} {g}\n" for i, g in enumerate(grades)))

    inverted = [1] * 20 + [2] * 40 + [3] * 30
    assert inverted_grades(qrels(inverted)) is not None
    # 0 = not relevant, as TREC writes it: a judged pool has many a topic
    assert inverted_grades(qrels(inverted + [0, 0])) is None
    # ...but Cranfield's one -1 line a topic turned into 0 is no judged pool
    assert inverted_grades(qrels(inverted + [0])) is not None
    assert inverted_grades(qrels([1] * 20 + [2] * 40)) is None     # two levels (TREC-COVID)
    assert inverted_grades(qrels([1] * 2 + [2] * 4 + [3] * 3)) is None   # a handful
    assert inverted_grades(qrels([1] * 20 + [2] * 20 + [3] * 30)) is None  # not strictly rarest


@needs_cran
def test_a_collection_declaring_a_scale_its_grades_are_not_on(tmp_path: Path) -> None:
    (tmp_path / "cranqrel").write_bytes((CRAN / "cranqrel").read_bytes())
    (tmp_path / "collection.toml").write_text(
        'name = "rawcran"\nscale = "trec-dl"\n[qrels]\npath = "cranqrel"\n'
        'format = "trec-qrels"\n')
    code, out, err = run_cli(["corpora", "info", str(tmp_path)])
    lines = err.splitlines()
    assert code == 0 and len(lines) == 2, err
    assert "grade 4 (363 judgments) not on the 'trec-dl' scale collection 'rawcran' declares " \
           "(0, 1, 2, 3)" in lines[0]
    assert "grade 1 is the rarest relevant grade" in lines[1]
    assert "judgments\t1,837" in out
    code, _, err = run_cli(["corpora", "info", str(tmp_path), "--quiet"])
    assert code == 0 and err == ""


def test_the_shipped_collections_say_nothing() -> None:
    code, _, err = run_cli(["corpora", "info", "sample"])
    assert code == 0 and "warning" not in err, err
    if CRAN.is_dir():
        code, _, err = run_cli(["corpora", "info", str(CRAN), "--layout", "cranfield"])
        assert code == 0 and "warning" not in err, err


@needs_cran
def test_cranqrel_converted_the_usual_way_is_pointed_out_too(tmp_path: Path) -> None:
    # The usual TREC conversion turns Cranfield's -1 (one line a topic) into 0: still
    # 1 = most relevant, and once missed (the reviewer's case, issue 32).
    lines = []
    for line in (CRAN / "cranqrel").read_text().splitlines():
        topic, doc, grade = line.split()
        lines.append(f"{topic} 0 {doc} {0 if grade == '-1' else grade}\n")
    converted = tmp_path / "cranqrel.trec"
    converted.write_text("".join(lines))
    code, _, err = run_cli(["eval", "-m", "nDCG@10", str(converted), str(RUN)])
    assert code == 0 and err.count("\n") == 1, err
    assert "grade 1 is the rarest relevant grade (1: 128, 2: 387, 3: 734, 4: 363)" in err
