"""The HTML agreement report as a lead sees it, in headless Chromium at 1280 x 800.

Two real cases from ../shared/corpora:

* the tutorial's: Cranfield on the binary scale, two assessors over the depth-10 pool of
  the six real Lucene runs (5,097 pairs), each grading from cranqrel and flipping 10% of
  the labels (seeded), the runs given for the effect on conclusions. Before the summary
  this page was 18,302 px long, every section came twice (graded and binary, the same
  numbers), and overlap and effect came last.
* TREC DL 2023 (LLMJudge): the NIST grades and seven LLM judges on 4,423 pairs, graded
  0-3, so both levels (graded and binarised) are shown.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from browser import SCREEN, browser, keep
from helpers import SHARED, run_cli

CRAN = SHARED / "corpora" / "cranfield"
DL = SHARED / "corpora" / "llmjudge-dl23"
# files with off-scale labels (see test_agreement_real.py) are left out
DL_JUDGES = ("NISTRetrieval-instruct0", "NISTRetrieval-instruct1", "NISTRetrieval-reason0",
             "NISTRetrieval-reason2", "Olz-exp", "Olz-gpt4o", "Olz-halfbin")
MAX_HEIGHT = 4000   # px: the binary report, summary and every detail (was 18,302)

# What the tests read off the page, measured by the browser's layout.
PAGE = """(() => {
  const ids = [...document.querySelectorAll('[id]')].map(e => e.id);
  const box = id => { const e = document.getElementById(id);
                      if (!e) return null;
                      const r = e.getBoundingClientRect();
                      return {top: r.top + scrollY, bottom: r.bottom + scrollY,
                              left: r.left, right: r.right, w: r.width, h: r.height}; };
  const matrices = [...document.querySelectorAll('#kappa-matrix svg.matrix')].map(svg => ({
    id: svg.id,
    legend: !!svg.querySelector('.legend linearGradient'),
    legendBox: (() => { const r = svg.querySelector('.legend').getBoundingClientRect();
                        return [r.width, r.height]; })(),
    diag: svg.querySelectorAll('rect.diag').length,
    diagOnDiagonal: [...svg.querySelectorAll('rect.diag')].every(
      r => r.getAttribute('x') - r.getAttribute('y') ===
           svg.querySelector('rect.diag').getAttribute('x') -
           svg.querySelector('rect.diag').getAttribute('y')),
    cells: svg.querySelectorAll('rect.cell').length}));
  const links = [...document.querySelectorAll('#summary a')].map(a => a.getAttribute('href'));
  return {height: document.body.scrollHeight, width: document.body.scrollWidth, ids,
          summary: box('summary'), matrices, links,
          figs: ['kappa-graded', 'kappa-binary'].map(box),
          headings: [...document.querySelectorAll('h2')].map(h => h.textContent),
          summaryText: document.getElementById('summary')?.innerText ?? ''};
})()"""


def _cranfield_assessors(tmp: Path) -> list[str]:
    from relkit.metrics.data import Run

    rel = {}
    for line in (CRAN / "cranqrel").read_text().splitlines():
        p = line.split()
        if len(p) >= 3:
            rel[(p[0], p[1])] = int(int(p[2]) > 0)
    items = set(rel)
    for path in sorted((CRAN / "runs").glob("*/*.txt")):
        f = Run.read(path).frame
        for q, g in f.groupby("query_id"):
            items.update((str(q), str(d)) for d in
                         g.sort_values("score", ascending=False)["doc_id"].head(10))
    rng = random.Random(7)
    out = []
    for name in ("ann", "bob"):
        lines = []
        for q, d in sorted(items):
            g = rel.get((q, d), 0)
            lines.append(f"{q} 0 {d} {1 - g if rng.random() < 0.1 else g}\n")
        (tmp / f"{name}.qrels").write_text("".join(lines))
        out.append(str(tmp / f"{name}.qrels"))
    return out


@pytest.fixture(scope="module")
def binary_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CRAN.is_dir():
        pytest.skip(f"shared Cranfield corpus not found at {CRAN}")
    tmp = tmp_path_factory.mktemp("agree-binary")
    args = ["agree", *_cranfield_assessors(tmp), "--scale", "binary", "--measure", "AP",
            "--replicates", "100", "--format", "html", "-o", str(tmp / "agreement.html")]
    for run in sorted((CRAN / "runs").glob("*/*.txt")):
        args += ["--runs", str(run)]
    code, _, err = run_cli(args)
    assert code == 0, err
    return tmp / "agreement.html"


@pytest.fixture(scope="module")
def graded_report(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not DL.is_dir():
        pytest.skip(f"shared DL 2023 corpus not found at {DL}")
    tmp = tmp_path_factory.mktemp("agree-graded")
    nist = tmp / "NIST.qrels"
    nist.write_text((DL / "llmjudge_test_qrel_idx.txt").read_text())
    judges = [str(DL / "llm-judgments" / f"{j}.txt") for j in DL_JUDGES]
    code, _, err = run_cli(["agree", str(nist), *judges, "--scale", "trec-dl",
                            "--replicates", "100", "--format", "html",
                            "-o", str(tmp / "agreement.html")])
    assert code == 0, err
    return tmp / "agreement.html"


def _look(path: Path, name: str) -> dict:
    with browser() as chromium:
        chromium.open(path)
        page = chromium.evaluate(PAGE)
        first, whole = path.with_name(f"{name}.png"), path.with_name(f"{name}-full.png")
        chromium.screenshot(first, full=False)
        chromium.screenshot(whole)
        errors = chromium.errors()
    assert errors == []
    for shot in (first, whole):
        assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        keep(shot)
    return page


def _check_common(page: dict, assessors: int) -> None:
    # ids are anchors: unique, and every link of the summary lands on one
    assert len(page["ids"]) == len(set(page["ids"])), page["ids"]
    assert page["links"] and all(h.startswith("#") and h[1:] in page["ids"]
                                 for h in page["links"]), page["links"]
    # the summary comes first and fits the first screen, nothing wider than it
    assert page["summary"]["top"] < 120 and page["summary"]["bottom"] <= SCREEN[1]
    assert page["width"] <= SCREEN[0]
    for words in ("percent agreement", "kappa", "Overlap of relevant sets",
                  "Effect on conclusions", "Who disagrees with whom"):
        assert words in page["summaryText"], words
    # the kappa matrix: a colour legend, the diagonal marked on each assessor, no number
    assert page["matrices"]
    for m in page["matrices"]:
        assert m["legend"] and m["legendBox"][0] > 200, m
        assert m["diag"] == assessors and m["diagOnDiagonal"], m
        assert m["cells"] == assessors * (assessors - 1), m


@pytest.mark.slow
def test_binary_report_leads_with_one_screen_and_shows_each_section_once(
        binary_report: Path) -> None:
    page = _look(binary_report, "agreement-binary")
    _check_common(page, 2)
    assert page["height"] < MAX_HEIGHT, page["height"]
    # one level on a two-grade scale: nothing graded, no heading twice
    assert not [i for i in page["ids"] if "graded" in i]
    assert not [h for h in page["headings"] if "graded" in h]
    assert len(page["headings"]) == len(set(page["headings"])), page["headings"]
    assert [m["id"] for m in page["matrices"]] == ["kappa-binary-svg"]
    # the summary's numbers are the analysis's (kappa of the one pair, the overlap)
    assert "ann vs bob: kappa 0.6" in page["summaryText"]
    assert "of 15 system pairs" in page["summaryText"]


@pytest.mark.slow
def test_graded_report_summary_fits_one_screen_with_both_levels(graded_report: Path) -> None:
    page = _look(graded_report, "agreement-graded")
    _check_common(page, 1 + len(DL_JUDGES))
    assert [m["id"] for m in page["matrices"]] == ["kappa-graded-svg", "kappa-binary-svg"]
    # the matrices of the two levels sit side by side at 1280 px
    graded, binary = page["figs"]
    assert graded["top"] == binary["top"] and graded["right"] <= binary["left"]
    assert "Not computed: give the runs (--runs)" in page["summaryText"]
