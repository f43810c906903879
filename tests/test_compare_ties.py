"""Ties in compare's tables: every system a reader cannot tell from the best is bold.

Tester: two runs whose P@10 is 53/60 on 60 topics, the per-topic values in another
order, have means 0.8833333333333333 and 0.8833333333333334; the tables bolded one.
The rule (metrics/compare/ties.py): bold every mean that prints as the best's (4
decimals) or equals it up to floating-point noise. Every format, the HTML report's
per-topic best/worst and the precision histograms' win counts follow it.
"""

from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest

from helpers import run_cli
from relkit.metrics.compare import Scores
from relkit.metrics.compare.core import compare_scores

# P@10 x 10 per topic: 60 topics summing to 530 (53/60 = 0.8833...); the second run has
# the same values one topic later, so numpy sums them in another order.
HITS = [10] * 28 + [9] * 15 + [8] * 6 + [7] * 5 + [6] * 2 + [5] * 4
TOPICS = [f"q{i:02d}" for i in range(60)]


def _write(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 r{k} 1\n" for t in TOPICS for k in range(10)))

    def run(name: str, hits: list[int], shift: float = 0.0) -> Path:
        lines = []
        for t, h in zip(TOPICS, hits, strict=True):
            docs = [f"r{k}" for k in range(h)] + [f"n{k}" for k in range(10 - h)]
            lines += [f"{t} Q0 {d} {i + 1} {100 - i - shift} {name}\n"
                      for i, d in enumerate(docs)]
        path = tmp_path / f"{name}.txt"
        path.write_text("".join(lines))
        return path

    a = run("first", HITS)
    b = run("second", HITS[-1:] + HITS[:-1])
    worse = run("third", [max(h - 1, 0) if i == 0 else h for i, h in enumerate(HITS)])
    return qrels, a, b, worse


def test_the_real_case_really_differs_in_the_last_bit(tmp_path: Path) -> None:
    """The premise: relkit's own means of the two runs are different floats."""
    from relkit.metrics.compare import compare
    from relkit.metrics.data import Qrels, Run

    qrels, a, b, _ = _write(tmp_path)
    cmp = compare(Qrels.read(qrels), {"a": Run.read(a), "b": Run.read(b)}, ["P@10"])
    ma, mb = cmp.means[0]
    assert ma != mb and abs(ma - 53 / 60) < 1e-15 and abs(mb - 53 / 60) < 1e-15
    assert cmp.best("P@10") == {"a", "b"}


@pytest.mark.parametrize("fmt, bold", [
    ("markdown", r"\*\*0\.8833\*\*"), ("latex", r"\\textbf\{0\.8833\}"),
])
def test_text_formats_bold_both(tmp_path: Path, fmt: str, bold: str) -> None:
    qrels, a, b, worse = _write(tmp_path)
    code, out, err = run_cli(["compare", "-m", "P@10", "--format", fmt, str(qrels), str(a),
                              str(b), str(worse)])
    assert code == 0, err
    rows = {name: line for line in out.splitlines()
            for name in ("first", "second", "third") if name in line and "0.8" in line}
    assert re.search(bold, rows["first"]) and re.search(bold, rows["second"]), out
    assert not re.search(bold, rows["third"])        # 0.8817: not the best
    assert "every mean printed the same" in out


def test_terminal_table_bolds_both(tmp_path: Path) -> None:
    from relkit.metrics.compare import compare
    from relkit.metrics.compare.terminal import rich_table
    from relkit.metrics.data import Qrels, Run

    qrels, a, b, worse = _write(tmp_path)
    cmp = compare(Qrels.read(qrels), {n: Run.read(p) for n, p in
                                      (("first", a), ("second", b), ("third", worse))},
                  ["P@10"])
    cells = [list(c.cells) for c in rich_table(cmp).columns][-1]   # the P@10 column
    assert [c.startswith("[bold]") for c in cells] == [True, True, False], cells


def test_html_report_bolds_both_and_names_both_best(tmp_path: Path) -> None:
    qrels, a, b, worse = _write(tmp_path)
    out = tmp_path / "r.html"
    code, _, err = run_cli(["compare", "-m", "P@10", "--per-topic", "P@10", "--format",
                            "csv", "--html", str(out), str(qrels), str(a), str(b),
                            str(worse)])
    assert code == 0, err
    page = out.read_text()
    systems = page[page.index('<table class="systems">'):]
    systems = systems[:systems.index("</table>")]
    assert systems.count("<strong>0.8833</strong>") == 2, systems
    assert "<strong>0.8817</strong>" not in systems


def test_printed_precision_decides() -> None:
    """0.88336 and 0.88344 both print 0.8834 (bold); 0.88334 prints 0.8833 (not)."""
    spread = np.array([[-0.1, 0.1], [-0.2, 0.2], [-0.05, 0.05]])
    values = (np.array([0.88334, 0.88336, 0.88344])[:, None] + spread)[None]
    scores = Scores(("a", "b", "c"), ("AP",), ("q1", "q2"), values)
    cmp = compare_scores(scores)
    assert cmp.shown_best("AP") == {"b", "c"}
    assert cmp.shown_best("AP", digits=5) == {"c"}           # 0.88336 against 0.88344


def test_best_for_library_callers_is_the_max_up_to_noise() -> None:
    """best() kept its meaning: 0.88336 is lower than 0.88344, however both print
    (before the fix best() said {"b", "c"}); one value summed two ways is still a tie."""
    means = np.array([0.88334, 0.88336, 0.88344, 0.88344 + 4e-16])   # d: c, a few ulps up
    spread = np.array([-0.1, 0.1])            # two topics whose mean is the value itself
    scores = Scores(("a", "b", "c", "d"), ("AP",), ("q1", "q2"),
                    (means[:, None] + spread)[None])
    cmp = compare_scores(scores, test="sign")   # t: scipy warns of c and d's near-tie
    assert cmp.means[0, 2] != cmp.means[0, 3]
    assert cmp.best("AP") == {"c", "d"}
    assert cmp.shown_best("AP") == {"b", "c", "d"}


def test_histogram_ties_are_the_tables_relative_noise() -> None:
    """A count measure near 1000: 1000 against 1000 + 1e-7 is noise to the tables'
    rule (relative 1e-9) and so a tie in the histogram too (before: an absolute 1e-9,
    a loss)."""
    from relkit.metrics.compare import analysis, plots

    values = np.array([[[1000.0, 5.0]], [[1000.0 + 1e-7, 4.0]]]).transpose(1, 0, 2)
    scores = Scores(("a", "b"), ("num_rel",), ("q1", "q2"), values)
    assert analysis.most_different(scores, "num_rel").set_index("query_id").loc[
        "q1", "best"] == "a, b"
    hist = analysis.precision_histogram(scores, "num_rel", "a", "b").set_index("query_id")
    assert hist.loc["q1", "difference"] == 0.0
    up, down = plots._sides(hist["difference"].to_numpy(float))
    assert (int(up.sum()), int(down.sum())) == (1, 0)


def test_per_topic_best_worst_and_histogram_use_the_rule() -> None:
    from relkit.metrics.compare import analysis, plots

    # topic q1: a and b equal up to noise (0.1 + 0.2 against 0.3); c lowest
    values = np.array([[[0.1 + 0.2, 0.9], [0.3, 0.1], [0.0, 0.5]]])
    scores = Scores(("a", "b", "c"), ("AP",), ("q1", "q2"), values)
    frame = analysis.most_different(scores, "AP").set_index("query_id")
    assert frame.loc["q1", "best"] == "a, b" and frame.loc["q1", "worst"] == "c"
    hist = analysis.precision_histogram(scores, "AP", "a", "b")
    up, down = plots._sides(hist["difference"].to_numpy(float))
    assert (int(up.sum()), int(down.sum())) == (1, 0)    # q1 is a tie, not a win for a
