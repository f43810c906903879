"""The significance marks and what they mean are written once, in compare/cells.py.

The notebook's table (compare/view.py, a comparison's ``_repr_html_``) kept its own copy
of the report tables' marks, labels and legend sentence, since importing the report's
cells from there closed an import cycle (core -> view -> cells -> core, for types). The
cells now take the comparison by a protocol; these tests keep a second copy from coming
back and the notebook's table saying what the report's says.
"""

from __future__ import annotations

import ast
import html
from pathlib import Path

import numpy as np
import pytest

from relkit.metrics.compare import Scores, cells
from relkit.metrics.compare.core import Comparison, compare_scores

COMPARE = Path(cells.__file__).parent
# The words of the marks' meaning: a rendering that writes them has its own copy.
PHRASE = "significantly better"


def _strings_in_code(path: Path) -> list[tuple[int, str]]:
    """String constants of a module, docstrings left out (they may explain the marks)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    docs = {id(node.body[0].value) for node in ast.walk(tree)
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef)
            and node.body and isinstance(node.body[0], ast.Expr)
            and isinstance(node.body[0].value, ast.Constant)}
    return [(n.lineno, n.value) for n in ast.walk(tree)
            if isinstance(n, ast.Constant) and isinstance(n.value, str) and id(n) not in docs]


def test_the_marks_meaning_is_written_once() -> None:
    writers = sorted(f"{p.name}:{line}" for p in COMPARE.glob("*.py")
                     for line, text in _strings_in_code(p) if PHRASE in text)
    assert writers and all(w.startswith("cells.py:") for w in writers), writers


def _comparison(**kw: object) -> Comparison:
    rng = np.random.default_rng(7)
    scores = Scores(("<b>bm25</b>", "lm", "qlm"), ("AP", "P@10"),
                    tuple(f"q{i}" for i in range(10)), rng.random((2, 3, 10)))
    return compare_scores(scores, **kw)  # type: ignore[arg-type]


@pytest.mark.parametrize("kw", [{}, {"baseline": "lm"}, {"baseline": "qlm", "ci": 0.95}])
def test_the_notebook_table_has_the_reports_cells(kw: dict[str, object]) -> None:
    cmp = _comparison(**kw)
    shown = cmp._repr_html_()
    assert shown.endswith(f"{html.escape(cells.marks_sentence(cmp))}</p>")
    assert cells.legend(cmp).endswith(cells.marks_sentence(cmp))
    for s, system in enumerate(cmp.systems):
        assert f"<td>{html.escape(cells.label(cmp, system))}</td>" in shown
        for m, measure in enumerate(cmp.measures):
            value = html.escape(cells.value(cmp, m, s))
            if system in cmp.shown_best(measure):
                value = f"<b>{value}</b>"
            assert (f'<td style="text-align:right">{value} '
                    f"{html.escape(cells.mark(cmp, measure, system))}</td>") in shown
