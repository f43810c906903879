"""``relkit pool-simulate --plot`` on Cranfield's six real runs: lines told apart.

Depth, MTF and Hedge find nearly the same documents (941, 953 and 957 after 50
judgments per topic), so their curves lie on top of each other. Before, they differed
only in colour (depth hidden under MTF) and were named in a legend inside the plot.
"""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from browser import browser, keep
from helpers import SHARED, run_cli

CRAN = SHARED / "corpora" / "cranfield"
RUNS = sorted((CRAN / "runs").glob("*/*.txt"))
STRATEGIES = ("depth", "mtf", "hedge")
needs_cranfield = pytest.mark.skipif(not CRAN.is_dir(), reason=f"{CRAN} not found")


@pytest.fixture(scope="module")
def simulation() -> object:
    from relkit.metrics.data import Qrels, Run
    from relkit.pooling.simulate import Plan, simulate

    runs = {p.stem: Run.read(p) for p in RUNS}
    return simulate(Qrels.read(CRAN / "cranqrel"), runs,
                    [Plan(s, s, {}) for s in STRATEGIES], [25, 50])


def test_spread_keeps_labels_apart_and_inside() -> None:
    from relkit.pooling.simulate_plot import LABEL_GAP, spread

    ys = [0.98, 0.97, 0.99, 0.2]
    out = spread(ys)
    ranked = sorted(out)
    assert all(b - a >= LABEL_GAP - 1e-12 for a, b in itertools.pairwise(ranked))
    assert max(out) <= 1.0 and min(out) >= 0.0
    assert out[3] == 0.2                                 # a label with room stays put
    assert sorted(range(4), key=lambda i: out[i]) == sorted(range(4), key=lambda i: ys[i])


@pytest.mark.slow
@needs_cranfield
def test_each_strategy_has_its_own_dashes_marker_and_end_label(simulation: object) -> None:
    from relkit.pooling.simulate_plot import LABEL_GAP, figure

    fig = figure(simulation.curves, [25, 50], "cranqrel")   # type: ignore[attr-defined]
    main = fig.axes[0]
    lines = [ln for ln in main.get_lines() if ln.get_label() in STRATEGIES]
    assert [ln.get_label() for ln in lines] == list(STRATEGIES)
    assert len({ln.get_linestyle() for ln in lines}) == len(STRATEGIES)
    assert len({ln.get_marker() for ln in lines}) == len(STRATEGIES)
    assert len({ln.get_color() for ln in lines}) == len(STRATEGIES)
    # direct labels in the right margin (outside the axes), apart from each other,
    # each naming its strategy and its final count
    found = {s: simulation.curves[s][-1] for s in STRATEGIES}   # type: ignore[attr-defined]
    notes = [t for t in main.texts if hasattr(t, "xyann")]
    assert sorted(t.get_text() for t in notes) == sorted(f"{s} ({found[s]:,})"
                                                         for s in STRATEGIES)
    xs, ys = zip(*(t.xyann for t in notes), strict=True)
    assert min(xs) > 1.0
    ranked = sorted(ys)
    assert all(b - a >= LABEL_GAP - 1e-9 for a, b in itertools.pairwise(ranked))
    assert main.get_legend() is None
    # the lower panel: each strategy minus the first, where the differences show
    diff = fig.axes[1]
    assert [list(ln.get_ydata())[-1] for ln in diff.get_lines()[:3]] == [
        found[s] - found["depth"] for s in STRATEGIES]


def test_many_lines_ending_together_get_a_legend_outside_the_plot() -> None:
    # ten strategies that all find every relevant document by the end (an exhausted
    # pool, as on Cranfield at 100): labels at the ends would pile up
    from relkit.pooling.simulate_plot import figure

    curves = {f"s{i}": [min(n * (i + 3), 60) for n in range(41)] for i in range(10)}
    main = figure(curves).axes[0]
    assert not [t for t in main.texts if hasattr(t, "xyann")]
    legend = main.get_legend()
    assert [t.get_text() for t in legend.get_texts()] == [f"s{i} (60)" for i in range(10)]
    x0 = legend.get_bbox_to_anchor().transformed(main.transAxes.inverted()).x0
    assert x0 > 1.0                                     # outside, right of the plot
    lines = main.get_lines()
    assert len({ln.get_marker() for ln in lines}) == 10
    assert len({(ln.get_linestyle(), ln.get_marker(), ln.get_color())
                for ln in lines}) == 10


@pytest.mark.slow
@needs_cranfield
def test_plot_opens_in_chromium(tmp_path: Path) -> None:
    svg, png = tmp_path / "pool-simulate.svg", tmp_path / "pool-simulate.png"
    for out in (svg, png):
        code, _, err = run_cli(["pool-simulate", str(CRAN / "cranqrel"), *map(str, RUNS),
                                *(a for s in STRATEGIES for a in ("-s", s)),
                                "--budget", "25,50", "--plot", str(out)])
        assert code == 0, err
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    page = tmp_path / "plot.html"
    page.write_text(f"<!DOCTYPE html><html><body style='margin:0'><img id=svg src='{svg.name}'>"
                    f"<img id=png src='{png.name}'></body></html>")
    with browser() as chromium:
        chromium.open(page)
        sizes = chromium.evaluate(
            "Promise.all([...document.images].map(i => i.decode().then("
            "() => [i.id, i.naturalWidth, i.getBoundingClientRect().width])))")
        shot = tmp_path / "pool-simulate-chromium.png"
        chromium.screenshot(shot)
        assert chromium.errors() == []
    keep(shot)
    for name, natural, shown in sizes:
        assert 600 <= natural <= 1280 and shown == natural, (name, natural, shown)
