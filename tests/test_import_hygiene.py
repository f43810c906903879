"""Layering: metrics imports nothing of ours above it, nor textual/sqlmodel."""

from __future__ import annotations

import subprocess
import sys

import pytest

FORBIDDEN = {"textual", "sqlmodel", "sqlalchemy"}
# Our layers above metrics, by their installed names (top-level names alone would all be
# "relkit" and never match).
ABOVE = ("relkit.judging", "relkit.pooling", "relkit.corpora")


def forbidden(modules: list[str]) -> set[str]:
    """The modules of ``modules`` that metrics must not load."""
    return {m for m in modules if m.split(".")[0] in FORBIDDEN or m.startswith(ABOVE)}


def test_forbidden_sees_the_layers_above() -> None:
    assert forbidden(["relkit", "relkit.metrics.data", "relkit.judging.store", "textual.app",
                      "relkit.corpora"]) == {"relkit.judging.store", "textual.app",
                                             "relkit.corpora"}


@pytest.mark.parametrize("module", ["relkit.metrics", "relkit.metrics.evaluator",
                                    "relkit.metrics.cli", "relkit.metrics.trec_eval.modes",
                                    "relkit.metrics.curves", "relkit.metrics.compare",
                                    "relkit.metrics.compare.cli"])
def test_lower_layers_stay_clean(module: str) -> None:
    code = (f"import sys, {module}; import relkit.metrics.measures as m; m.load_all(); "
            "print(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    assert not forbidden(out), forbidden(out)


def test_importing_metrics_is_cheap() -> None:
    out = subprocess.run([sys.executable, "-c", "import sys, relkit.metrics.evaluator; "
                          "print('pandas' in sys.modules)"],
                         capture_output=True, text=True, check=True).stdout.strip()
    assert out == "False"


def test_compare_command_imports_no_plotting_or_pandas() -> None:
    code = ("import sys, relkit.metrics.compare.cli; "
            "print(sorted({'pandas', 'matplotlib', 'scipy'} & set(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.strip()
    assert out == "[]"
