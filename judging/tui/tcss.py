"""The widgets' default styles, each in a ``.tcss`` file beside its module.

The apps name their style sheets in ``CSS_PATH`` (judge.tcss, lead.tcss, short.tcss...);
a widget has no ``CSS_PATH`` in Textual, only ``DEFAULT_CSS``, which stays a widget's own
(below any app rule, scoped to the widget) wherever it is used: it is read from its file
here. pyproject.toml ships every ``*.tcss`` in the wheel (tests/test_wheel.py).
"""

from __future__ import annotations

from pathlib import Path

HERE = Path(__file__).parent


def default_css(name: str) -> str:
    """The text of ``name`` (a ``.tcss`` file in this package)."""
    return (HERE / name).read_text(encoding="utf-8")
