"""``relkit compare`` and its HTML report on the six real Cranfield runs (225 topics).

The report is opened in headless Chromium (Debian's package; .ci/run installs it):
no console error, every chart present, decoded and visible.
"""

from __future__ import annotations

import base64
import os
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from browser import browser
from helpers import SHARED, run_cli

CRAN = SHARED / "corpora" / "cranfield"
RUNS = sorted((CRAN / "runs").glob("*/*.txt"))
needs_cranfield = pytest.mark.skipif(not CRAN.is_dir(),
                                     reason=f"shared Cranfield corpus not found at {CRAN}")
CHARTS = ("pr", "histogram", "vs-mean", "heatmap")


@pytest.fixture(scope="module")
def report(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    if not CRAN.is_dir():
        pytest.skip(f"shared Cranfield corpus not found at {CRAN}")
    out = tmp_path_factory.mktemp("report") / "report.html"
    code, stdout, stderr = run_cli(["compare", "-m", "AP", "-m", "R-prec", "-m", "P@10",
                                    "--format", "markdown", "--html", str(out),
                                    str(CRAN / "cranqrel"), *map(str, RUNS)])
    assert code == 0, stderr
    return out, stdout


@pytest.mark.slow
@needs_cranfield
def test_means_and_t_tests_match_evaluator_and_scipy(report: tuple[Path, str]) -> None:
    from relkit.metrics.compare import compare
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.evaluator import Evaluator

    qrels = Qrels.read(CRAN / "cranqrel")
    runs = {p.stem: Run.read(p) for p in RUNS}
    assert len(runs) == 6
    cmp = compare(qrels, runs, ["AP"], baseline="query_results_classic")
    assert len(cmp.scores.topics) == 225
    ev = Evaluator(qrels, ["AP"])
    per_topic = {}
    for name, run in runs.items():
        frame = ev.evaluate(run)
        per_topic[name] = frame.set_index("query_id")["value"].reindex(
            list(cmp.scores.topics)).to_numpy(float)
        assert cmp.means[0, cmp.scores.system_index(name)] == pytest.approx(
            float(ev.aggregate(run)["AP"]), abs=1e-12)
    base = per_topic["query_results_classic"]
    raw = {p.a: p.p for p in cmp.pairs}
    for name, values in per_topic.items():
        if name != "query_results_classic":
            assert raw[name] == pytest.approx(stats.ttest_rel(values, base).pvalue, rel=1e-9)
    # the Markdown table printed by the CLI carries the same means
    _, stdout = report
    for name in runs:
        mean = cmp.means[0, cmp.scores.system_index(name)]
        assert re.search(rf"\| \(.\) {re.escape(name)} \| (\*\*)?{mean:.4f}", stdout), name


@pytest.mark.slow
@needs_cranfield
def test_report_is_self_contained_with_every_chart_as_svg(report: tuple[Path, str]) -> None:
    path, _ = report
    text = path.read_text()
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:|//)""", text)   # no network
    assert "<script" not in text
    for key in CHARTS:
        m = re.search(rf'id="chart-{key}"><img alt="[^"]+" src="data:image/svg\+xml;base64,'
                      r'([A-Za-z0-9+/=]+)"', text)
        assert m, key
        svg = ET.fromstring(base64.b64decode(m.group(1)))
        assert svg.tag.endswith("svg")
        assert len(list(svg.iter())) > 50, key                      # something drawn
    assert "Topics where the systems differ most (AP)" in text
    assert text.count("<tr>") > 6 * 3


CHART_STATE = """(async () => {
  const out = [];
  for (const fig of document.querySelectorAll('figure.chart')) {
    const img = fig.querySelector('img');
    if (img) { try { await img.decode(); } catch (e) {} }
    fig.scrollIntoView({block: 'center'});
    const el = img || fig, r = el.getBoundingClientRect(), st = getComputedStyle(el);
    const top = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
    out.push({id: fig.id, img: !!img, complete: img ? img.complete : false,
              natural: img ? img.naturalWidth : 0, w: r.width, h: r.height,
              display: st.display, visibility: st.visibility, opacity: st.opacity,
              onTop: top === el});
  }
  return out;
})()"""


def _visible_charts(state: list[dict[str, object]]) -> set[str]:
    return {str(c["id"]) for c in state
            if c["img"] and c["complete"] and float(c["natural"]) > 0  # type: ignore[arg-type]
            and float(c["w"]) > 100 and float(c["h"]) > 100  # type: ignore[arg-type]
            and c["display"] != "none" and c["visibility"] == "visible"
            and float(c["opacity"]) > 0 and c["onTop"]}  # type: ignore[arg-type]


@pytest.mark.slow
@needs_cranfield
def test_report_in_headless_chromium(report: tuple[Path, str]) -> None:
    path, _ = report
    with browser() as chromium:
        chromium.open(path)
        state = chromium.evaluate(CHART_STATE)
        shot = path.with_suffix(".png")
        chromium.screenshot(shot)
        errors = chromium.errors()
    assert errors == []
    assert [c["id"] for c in state] == [f"chart-{k}" for k in CHARTS]
    assert _visible_charts(state) == {f"chart-{k}" for k in CHARTS}, state
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if os.environ.get("RELKIT_KEEP_SCREENSHOT"):       # to look at it: a path to copy to
        Path(os.environ["RELKIT_KEEP_SCREENSHOT"]).write_bytes(shot.read_bytes())


def test_browser_check_catches_errors_and_broken_charts(tmp_path: Path) -> None:
    # the same checks on a page that is broken in each way they look for
    bad = tmp_path / "bad.html"
    svg = base64.b64encode(b"<svg xmlns='http://www.w3.org/2000/svg' width='300' "
                           b"height='200'><rect width='300' height='200'/></svg>").decode()
    bad.write_text(
        "<!DOCTYPE html><html><body>"
        f'<figure class="chart" id="chart-ok"><img src="data:image/svg+xml;base64,{svg}">'
        "</figure>"
        '<figure class="chart" id="chart-broken"><img src="data:image/svg+xml;base64,AAAA">'
        "</figure>"
        f'<figure class="chart" id="chart-hidden"><img style="visibility:hidden" '
        f'src="data:image/svg+xml;base64,{svg}"></figure>'
        "<script>console.error('boom'); undefined_function();</script></body></html>")
    with browser() as chromium:
        chromium.open(bad)
        state = chromium.evaluate(CHART_STATE)
        errors = chromium.errors()
    assert any("boom" in e for e in errors) and any("undefined_function" in e for e in errors)
    assert _visible_charts(state) == {"chart-ok"}
    assert np.array([c["id"] for c in state]).size == 3
