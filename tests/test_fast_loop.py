"""What keeps `make check` (the fast loop) fast without dropping a test: each property
runs a share of its examples there (RELKIT_EXAMPLES; all of them in `make test`). The
check walks the test sources, so the next property added is held to it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import helpers

TESTS = Path(__file__).resolve().parent


def unscaled(source: str) -> list[int]:
    """Lines of ``source`` giving ``max_examples`` a value not from ``examples(...)``."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            for kw in node.keywords:
                value = kw.value
                if kw.arg == "max_examples" and not (
                        isinstance(value, ast.Call) and isinstance(value.func, ast.Name)
                        and value.func.id == "examples"):
                    found.append(kw.lineno)
    return found


def test_every_propertys_examples_are_scaled() -> None:
    """A fixed ``max_examples=200`` would run all 200 in the fast loop too."""
    found = [f"{path.name}:{line}" for path in sorted(TESTS.rglob("*.py"))
             for line in unscaled(path.read_text())]
    assert not found, f"max_examples not given through helpers.examples(): {found}"


def test_an_unscaled_count_is_recognised() -> None:
    assert unscaled("settings(max_examples=200, deadline=None)") == [1]
    assert unscaled("x = settings(\n  deadline=None,\n  max_examples=N)") == [3]
    assert unscaled("settings(max_examples=examples(200))") == []


def test_the_share_rounds_and_keeps_a_floor(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(helpers, "EXAMPLES", 1.0)
    assert [helpers.examples(n) for n in (1, 15, 60, 300)] == [1, 15, 60, 300]
    monkeypatch.setattr(helpers, "EXAMPLES", 0.33)
    assert [helpers.examples(n) for n in (1, 3, 15, 60, 300)] == [1, 3, 5, 20, 99]
