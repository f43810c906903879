"""docs/ecosystem.md runs as written: every ```python block, in order, in one namespace,
as doctests (the outputs shown are checked), in a fresh directory."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

from helpers import ROOT

PAGE = ROOT / "docs" / "ecosystem.md"
BLOCK = re.compile(r"^```python\n(.*?)^```$", re.DOTALL | re.MULTILINE)


def test_the_page_is_linked_from_the_readme() -> None:
    assert "docs/ecosystem.md" in (ROOT / "README.md").read_text()


@pytest.mark.slow   # imports ranx (numba) and ir_datasets
def test_every_python_block_runs_and_prints_what_the_page_shows(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    blocks = BLOCK.findall(PAGE.read_text())
    assert len(blocks) >= 10
    parser = doctest.DocTestParser()
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE)
    namespace: dict[str, object] = {}
    for i, block in enumerate(blocks, start=1):
        test = parser.get_doctest(block, namespace, f"ecosystem.md block {i}", str(PAGE), 0)
        assert test.examples, f"block {i} has no >>> example"
        result = runner.run(test, clear_globs=False)
        assert result.failed == 0, f"block {i} of docs/ecosystem.md failed; see stdout"
        namespace.update(test.globs)      # DocTest copies its globals: carry them on
