"""``relkit eval -R prels`` and :func:`xinf_ap` give NIST ``sample_eval.pl``'s numbers by default.

The oracle is NIST's script itself (not redistributed here): the version with NIST's
change log of 10 Oct 2011, distributed with the TREC Clinical Decision Support track
(``trec.nist.gov/data/clinical/sample_eval.pl``; 18,293 bytes). Its outputs below were
recorded by running it with ``perl`` on the files these tests write, once with its own
``%6.4f`` (the ``all`` lines) and once from a copy printing ``%.15f`` (per-topic values);
:func:`test_live_sample_eval` runs it again when ``RELKIT_SAMPLE_EVAL`` names it.

Before the fix the default was trec_eval's smoothing (2 eps): every Cranfield ``all``
line below differed at the fourth decimal, and topic 3 of the deep case by 0.117.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from helpers import SHARED, run_cli
from relkit.metrics.data import Qrels, Run
from relkit.metrics.inferred import measures as inferred
from relkit.metrics.inferred.prels import Prels
from relkit.pooling.depth import depth_pool
from relkit.pooling.sample import parse_strata, sample_prels, stratified_sample

CRAN = SHARED / "corpora" / "cranfield"

# sample_eval.pl prels run (no -q): its "infAP all" and "infNDCG all" lines, per run, on
# the prels of _cran_prels (depth-50 pool of the six runs, strata 10:1,25:0.5,50:0.2,
# seed 0). trec_eval's smoothing gives 0.3791, 0.3639, 0.2922, 0.2836, 0.3918, 0.3901.
NIST_ALL = {
    "query_results_bm25_3.3_0.8": ("0.3785", "0.5318"),
    "query_results_classic": ("0.3627", "0.5164"),
    "query_results_lmdirichlet_1500.0": ("0.2911", "0.4397"),
    "query_results_lmdirichlet_2000.0": ("0.2826", "0.4312"),
    "BM25Similarity_results": ("0.3909", "0.5449"),
    "results": ("0.3893", "0.5431"),
}

# sample_eval.pl -q deep.prels deep.run at 15 decimals: (infAP, infNDCG) per topic.
NIST_DEEP = {
    "1": (0.042195895618136, 0.364706243428824),
    "2": (0.042195895618136, 0.376947179316424),
    "3": (0.348803488521954, 0.402525733461049),
}
NIST_DEEP_ALL = ("0.1444", "0.3814")


def _cran_prels(path: Path) -> list[Path]:
    """Write the Cranfield prels (pool-sample's code, seed 0); return the run files."""
    paths = sorted(CRAN.glob("runs/*/*.txt"))
    pool = depth_pool({p.stem: Run.read(p) for p in paths}, 50)
    judged = Qrels.read(CRAN / "cranqrel").to_dict()
    grades = {t: {e.doc: max(judged.get(t, {}).get(e.doc, 0), 0) for e in pool.for_topic(t)}
              for t in pool.topics()}
    strata = parse_strata("10:1,25:0.5,50:0.2")
    sample_prels(pool, strata, stratified_sample(pool, strata, 0), grades).write(path)
    return paths


def _deep_case(d: Path) -> tuple[Path, Path]:
    """Three topics, a run 1,200 deep (score ties, broken by docno); relevant documents
    below rank 1,000 (not read); topic 3 has a stratum of 30 pooled, none sampled, above
    its sampled one (where 3 eps and 2 eps part most: eps/3eps = 1/3, eps/2eps = 1/2)."""
    run, prels = [], []
    for t in ("1", "2", "3"):
        for i in range(1200):
            run.append(f"{t} Q0 d{i} {i + 1} {2000 - i // 2} r\n")   # pairs tie
    for i in range(0, 1200, 3):
        if i < 300:
            s, g = "1", (1 if i % 7 == 0 else 0)
        elif i < 900:
            s, g = "2", (-1 if i % 2 else (2 if i % 11 == 0 else 0))
        else:
            s, g = "3", (1 if i % 4 == 0 else 0) if i % 5 == 0 else -1
        for t in ("1", "2"):
            prels.append(f"{t} 0 d{i} {s} {g if t == '1' or g < 1 else g + 1}\n")
    for i in range(60):
        s, g = ("top", -1) if i < 30 else ("low", 1 if i % 3 == 0 else 0)
        prels.append(f"3 0 d{i} {s} {g}\n")
    (d / "deep.run").write_text("".join(run))
    (d / "deep.prels").write_text("".join(prels))
    return d / "deep.prels", d / "deep.run"


def test_cli_all_lines_are_sample_evals(tmp_path: Path) -> None:
    runs = _cran_prels(tmp_path / "prels")
    for path in runs:
        code, out, err = run_cli(["eval", "-R", "prels", "-m", "xinfAP", "-m", "infNDCG",
                                  str(tmp_path / "prels"), str(path)])
        assert code == 0, err
        got = tuple(line.split()[2] for line in out.splitlines())
        assert got == NIST_ALL[path.stem], path.stem


def test_api_default_is_sample_evals_per_topic(tmp_path: Path) -> None:
    prels_path, run_path = _deep_case(tmp_path)
    run, prels = Run.read(run_path), Prels.read(prels_path)
    x, nd = inferred.xinf_ap(run, prels), inferred.inf_ndcg(run, prels)
    for t, (ap, ndcg) in NIST_DEEP.items():
        assert x[t] == pytest.approx(ap, abs=1e-14), t
        assert nd[t] == pytest.approx(ndcg, abs=1e-14), t
    # the other smoothing is still there, and is not a rounding away on topic 3
    trec = inferred.xinf_ap(run, prels, smoothing="trec_eval")
    assert trec["3"] - x["3"] > 0.1
    # reading past rank 1,000 (sample_eval.pl never does) changes topics 1 and 2
    assert inferred.xinf_ap(run, prels, depth=None)["1"] > x["1"] + 0.01
    code, out, err = run_cli(["eval", "-R", "prels", "-m", "xinfAP", "-m", "infNDCG",
                              str(prels_path), str(run_path)])
    assert code == 0, err
    assert tuple(line.split()[2] for line in out.splitlines()) == NIST_DEEP_ALL


def test_cli_smoothing_option(tmp_path: Path) -> None:
    prels_path, run_path = _deep_case(tmp_path)
    run, prels = Run.read(run_path), Prels.read(prels_path)
    code, out, err = run_cli(["eval", "-R", "prels", "-q", "-m", "xinfAP", "--smoothing",
                              "trec_eval", str(prels_path), str(run_path)])
    assert code == 0, err
    trec = inferred.xinf_ap(run, prels, smoothing="trec_eval")
    got = {t: float(v) for _, t, v in (line.split() for line in out.splitlines())}
    assert got.pop("all") == pytest.approx(sum(trec.values()) / 3, abs=5e-5)
    assert got == pytest.approx(trec, abs=5e-5)
    # -M: the ranks read (sample_eval.pl's 1,000 by default)
    code, out, err = run_cli(["eval", "-R", "prels", "-q", "-m", "xinfAP", "-M", "1200",
                              str(prels_path), str(run_path)])
    deep = inferred.xinf_ap(run, prels, depth=None)
    assert float(out.split()[2]) == pytest.approx(deep["1"], abs=5e-5)
    for bad, where in ((["--smoothing", "2eps"], "'--smoothing'"),
                       (["--smoothing", "trec_eval", "-R", "qrels"], "'--smoothing'")):
        code, out, err = run_cli(["eval", *bad, str(prels_path), str(run_path)])
        assert code == 2 and out == "" and where in err and len(err.splitlines()) == 1
    with pytest.raises(ValueError, match="smoothing must be one of sample_eval, trec_eval"):
        inferred.xinf_ap(run, prels, smoothing="2eps")   # type: ignore[arg-type]


@pytest.mark.skipif(not os.environ.get("RELKIT_SAMPLE_EVAL") or not shutil.which("perl"),
                    reason="set RELKIT_SAMPLE_EVAL to NIST's sample_eval.pl (and have perl)")
def test_live_sample_eval(tmp_path: Path) -> None:
    """The script itself, when at hand: ``relkit eval -R prels -q`` prints its infAP and
    infNDCG lines digit for digit, per topic and ``all`` (topics in the same order)."""
    cases = [(tmp_path / "prels", p) for p in _cran_prels(tmp_path / "prels")]
    cases.append(_deep_case(tmp_path))
    for prels_path, run_path in cases:
        nist = subprocess.run(["perl", os.environ["RELKIT_SAMPLE_EVAL"], "-q",
                               str(prels_path), str(run_path)],
                              capture_output=True, text=True, check=True).stdout
        want = {(m, t): v for m, t, v in (line.split()[:3] for line in nist.splitlines())
                if m in ("infAP", "infNDCG")}
        code, out, err = run_cli(["eval", "-R", "prels", "-q", "-m", "xinfAP", "-m",
                                  "infNDCG", str(prels_path), str(run_path)])
        assert code == 0, err
        got = {("infAP" if m == "xinfAP" else m, t): v
               for m, t, v in (line.split() for line in out.splitlines())}
        assert got == want, run_path
