"""Layering: metrics imports nothing of ours above it, nor textual/sqlmodel."""

from __future__ import annotations

import subprocess
import sys

import pytest

FORBIDDEN = {"textual", "sqlmodel", "sqlalchemy", "judging", "pooling", "corpora"}


@pytest.mark.parametrize("module", ["metrics", "relkit.metrics.evaluator", "relkit.metrics.cli",
                                    "relkit.metrics.trec_eval.modes", "relkit.metrics.curves",
                                    "relkit.metrics.compare", "relkit.metrics.compare.cli"])
def test_lower_layers_stay_clean(module: str) -> None:
    code = (f"import sys, {module}; import relkit.metrics.measures as m; m.load_all(); "
            "print(' '.join(sorted(sys.modules)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True).stdout.split()
    top = {name.split(".")[0] for name in out}
    assert not (top & FORBIDDEN), top & FORBIDDEN


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
