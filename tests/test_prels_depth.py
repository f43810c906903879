"""The ranks ``eval -R prels`` reads: each estimator as its reference does.

``sample_eval.pl`` reads the first 1,000 ranks (xinfAP, infNDCG); trec_eval reads every
rank, so infAP and xinfAP with ``--smoothing trec_eval`` (on one stratum: trec_eval's
infAP) must print what ``relkit eval -m infAP`` prints on the same judgments as qrels,
whose infAP is checked against trec_eval by the conformance suite. Before the fix every
estimator was cut at 1,000: 0.2169 against 0.2689 on the run below.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from helpers import run_cli
from relkit.metrics.data import Run
from relkit.metrics.inferred import measures as inferred
from relkit.metrics.inferred.prels import Prels

DEEP = 1500


def _case(d: Path) -> tuple[Path, Path, Path]:
    """One-stratum prels, the same judgments as qrels (unsampled at -1), a run 1,500
    deep whose relevant documents lie on both sides of rank 1,000."""
    rng = random.Random(7)
    prels, qrels, run = [], [], []
    for t in ("1", "2", "3"):
        docs = [f"d{t}-{i}" for i in range(DEEP)]
        for rank, doc in enumerate(docs, 1):
            run.append(f"{t} Q0 {doc} {rank} {DEEP - rank} deep")
        for doc in rng.sample(docs, 400):
            grade = -1 if rng.random() < 0.5 else int(rng.random() < 0.3)
            prels.append(f"{t} 0 {doc} 1 {grade}")
            qrels.append(f"{t} 0 {doc} {grade}")
    paths = d / "u.prels", d / "u.qrels", d / "deep.run"
    for path, lines in zip(paths, (prels, qrels, run), strict=True):
        path.write_text("\n".join(lines) + "\n")
    return paths


def _all(args: list[str]) -> str:
    code, out, err = run_cli(["eval", *args])
    assert code == 0, err
    (value,) = [line.split()[2] for line in out.splitlines() if line.split()[1] == "all"]
    return value


def test_inf_ap_reads_every_rank_as_trec_eval(tmp_path: Path) -> None:
    prels, qrels, run = _case(tmp_path)
    plain = _all(["-m", "infAP", str(qrels), str(run)])
    assert _all(["-R", "prels", "-m", "infAP", str(prels), str(run)]) == plain
    assert _all(["-R", "prels", "-m", "xinfAP", "--smoothing", "trec_eval",
                 str(prels), str(run)]) == plain
    # sample_eval.pl's xinfAP still stops at rank 1,000: a different number here
    cut = _all(["-R", "prels", "-m", "xinfAP", str(prels), str(run)])
    assert cut == _all(["-R", "prels", "-m", "xinfAP", "-M", "1000", str(prels), str(run)])
    assert cut != plain
    # -M cuts every estimator, as it cuts plain eval
    assert (_all(["-R", "prels", "-m", "infAP", "-M", "700", str(prels), str(run)])
            == _all(["-m", "infAP", "-M", "700", str(qrels), str(run)]))


def test_library_defaults_follow_the_reference(tmp_path: Path) -> None:
    prels_path, _, run_path = _case(tmp_path)
    run, prels = Run.read(run_path), Prels.read(prels_path)
    trec = inferred.xinf_ap(run, prels, smoothing="trec_eval")
    assert trec == inferred.xinf_ap(run, prels, smoothing="trec_eval", depth=None)
    assert trec == pytest.approx(inferred.inf_ap(run, prels), abs=1e-14)
    nist = inferred.xinf_ap(run, prels)
    assert nist == inferred.xinf_ap(run, prels, depth=1000) != trec


def test_max_docs_zero_reads_no_rank_like_plain_eval(tmp_path: Path) -> None:
    prels, qrels, run = _case(tmp_path)
    plain = _all(["-m", "infAP", "-M", "0", str(qrels), str(run)])
    assert _all(["-R", "prels", "-m", "infAP", "-M", "0", str(prels), str(run)]) == plain
