"""The compare report read in headless Chromium at 1280 px: numbers that line up.

On the six real Cranfield runs (225 topics), with a baseline (up/down marks) and
without (letters). Before: a mark after a number pushed it out of line with the
unmarked numbers above and below it; ``significant`` read True/False; p-values came
as 0.0059, 5.056e-08 or 0.0001835 in one column; and the one precision histogram,
without a baseline, was of the two best systems, which do not differ significantly.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from browser import browser, keep
from helpers import SHARED, run_cli

CRAN = SHARED / "corpora" / "cranfield"
RUNS = sorted((CRAN / "runs").glob("*/*.txt"))
BASELINE = CRAN / "runs" / "cosmopolitan033" / "query_results_classic.txt"
MEASURES = ("AP", "R-prec", "P@10")

# Right edge of each number (its first text node, so a mark after it does not count),
# per column of the systems table; the text of every cell of the pairs table.
PAGE = """(() => {
  const rightOfNumber = td => {
    const walk = document.createTreeWalker(td, NodeFilter.SHOW_TEXT);
    let node = walk.nextNode();
    while (node && !node.textContent.trim()) node = walk.nextNode();
    const range = document.createRange();
    range.selectNodeContents(node);
    return range.getBoundingClientRect().right;
  };
  const rows = [...document.querySelectorAll('table.systems tbody tr')];
  const columns = [];
  for (let c = 1; c < rows[0].cells.length; c++)
    columns.push(rows.map(r => rightOfNumber(r.cells[c])));
  const cells = sel => [...document.querySelectorAll(sel + ' tr')].map(
    r => [...r.cells].map(c => c.textContent.trim()));
  const pairs = cells('table.pairs'), topics = cells('table.topics');
  return {columns, pairs, topics, text: document.body.innerText,
          caption: document.querySelector('#chart-histogram figcaption').textContent,
          width: document.documentElement.scrollWidth};
})()"""
DECIMALS = re.compile(r"^(-?\d+\.\d{4}|<0\.0001)$")


@pytest.fixture(scope="module", params=["baseline", "all-pairs"])
def report(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
           ) -> tuple[Path, str]:
    if not CRAN.is_dir():
        pytest.skip(f"shared Cranfield corpus not found at {CRAN}")
    out = tmp_path_factory.mktemp("compare") / f"compare-{request.param}.html"
    args = ["compare", *(a for m in MEASURES for a in ("-m", m)), "--html", str(out),
            str(CRAN / "cranqrel"), *map(str, RUNS)]
    if request.param == "baseline":
        args += ["--baseline", str(BASELINE)]
    code, _, err = run_cli(args)
    assert code == 0, err
    return out, request.param


@pytest.mark.slow
def test_compare_report_numbers_line_up_and_read_plainly(report: tuple[Path, str]) -> None:
    path, kind = report
    with browser() as chromium:
        chromium.open(path)
        page = chromium.evaluate(PAGE)
        shot = path.with_suffix(".png")
        chromium.screenshot(shot)
        assert chromium.errors() == []
    keep(shot)
    # every number of a measure column ends at the same x, marked or not
    assert len(page["columns"]) == len(MEASURES)
    for col in page["columns"]:
        assert max(col) - min(col) < 0.5, col
    # yes / no, never True / False; one precision per numeric column of the pairs table
    assert not re.search(r"\b(True|False)\b", page["text"])
    head, *rows = page["pairs"]
    assert {r[head.index("significant")] for r in rows} <= {"yes", "no"}
    for c, name in enumerate(head):
        if name not in ("measure", "a", "b", "significant"):
            assert all(DECIMALS.match(r[c]) for r in rows), (name, [r[c] for r in rows])
    # the measure's values per topic: trec_eval's 4 decimals too
    head, *rows = page["topics"]
    for c, name in enumerate(head):
        if name not in ("query_id", "best", "worst"):
            assert all(DECIMALS.match(r[c]) for r in rows), (name, [r[c] for r in rows])
    assert page["width"] <= 1280       # the pairs table fits the page, nothing scrolls


@pytest.mark.slow
def test_precision_histograms_are_of_the_significant_pairs(report: tuple[Path, str]) -> None:
    from relkit.metrics.compare import compare
    from relkit.metrics.data import Qrels, Run

    path, kind = report
    with browser() as chromium:
        chromium.open(path)
        caption = chromium.evaluate(PAGE)["caption"]
    shown = [tuple(p.split(" − ")) for p in
             caption.split("Shown: ", 1)[1].removesuffix(".").split("; ")]
    runs = {p.stem: Run.read(p) for p in RUNS}
    cmp = compare(Qrels.read(CRAN / "cranqrel"), runs, ["AP"],
                  baseline="query_results_classic" if kind == "baseline" else None)
    sig = {frozenset((p.a, p.b)): p for p in cmp.pairs if p.significant}
    assert sig, "Cranfield's runs have significant pairs on AP"
    assert shown and all(frozenset(pair) in sig for pair in shown), (shown, caption)
    # the largest effects first, each pair oriented better system first
    effects = [abs(sig[frozenset(pair)].effect) for pair in shown]
    assert effects == sorted(effects, reverse=True)
    assert len(shown) == min(6, len(sig))
    assert all(sig[frozenset(pair)].diff * (1 if sig[frozenset(pair)].a == pair[0] else -1)
               > 0 for pair in shown)
    assert f"the {len(sig)} pair" in caption and "differ" in caption
