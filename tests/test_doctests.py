"""The examples in the docstrings run, and the public metrics API has numpydoc sections.

Each module is imported by its installed name (``relkit.metrics.compare.curves``) and its
examples run with :func:`doctest.testmod`. ``pytest --doctest-modules`` on the folders
would import ``metrics/compare/curves.py`` a second time, as a top-level ``metrics.compare.curves``.
"""

from __future__ import annotations

import doctest
import importlib
import inspect
import re
from collections.abc import Iterator
from types import ModuleType

import pytest

# The public metrics API in numpydoc form: every public function and class has an
# Examples section, functions Parameters and Returns (STYLE.md, "Writing"). The
# evaluator, the readers (data, io) and the CLI join after the perf branch merges.
DOCUMENTED = [
    "relkit.metrics.readers.grades",
    "relkit.metrics.inferred.estimators",
    "relkit.metrics.inferred.measures",
    "relkit.metrics.inferred.prels",
    "relkit.metrics.compare.core",
    "relkit.metrics.compare.comparison",
    "relkit.metrics.compare.scores",
    "relkit.metrics.compare.correlation",
    "relkit.metrics.compare.curves",
    "relkit.metrics.measures",
    "relkit.metrics.names",
    "relkit.metrics.measures.reference",
    "relkit.metrics.inferred.statap",
    # the front door's functions (relkit.__all__; tests/test_front_door.py)
    "relkit.metrics.eval.api",
    "relkit.judging.project",
    "relkit.judging.agreement.agree",
]
# Modules with examples on some helpers, not a documented public surface.
WITH_EXAMPLES = [*DOCUMENTED, "relkit.metrics.convert", "relkit.metrics.measures.context",
                 "relkit.metrics.eval.modes", "relkit.pooling.build",
                 "relkit.metrics.core.options",
                 "relkit.metrics.core.tables", "relkit.judging.conventions",
                 "relkit.metrics.commands.run_naming", "relkit.metrics.compare.ties",
                 "relkit.metrics.commands.grade_checks", "relkit.metrics.core.levels",
                 "relkit.metrics.core.atomic",
                 # the front door's classes, and how results show in a notebook
                 "relkit.metrics.data", "relkit.metrics.evaluator",
                 "relkit.metrics.result_view", "relkit.metrics.compare.view",
                 "relkit.judging.agreement.view"]

# ELLIPSIS: an error's message may be shortened to its telling part (`...`).
FLAGS = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE


@pytest.mark.parametrize("name", WITH_EXAMPLES)
def test_examples_run(name: str) -> None:
    module = importlib.import_module(name)
    # testmod prints each failing example with what it got (pytest shows the output)
    result = doctest.testmod(module, optionflags=FLAGS)
    assert result.attempted > 0, f"{name} has no examples"
    assert result.failed == 0, f"{result.failed} example(s) of {name} failed; see stdout"


def public(module: ModuleType) -> Iterator[tuple[str, object]]:
    """Functions and classes defined in ``module`` whose names do not start with _."""
    for name, obj in sorted(vars(module).items()):
        if (not name.startswith("_") and (inspect.isfunction(obj) or inspect.isclass(obj))
                and obj.__module__ == module.__name__):
            yield name, obj


def missing_sections(obj: object) -> list[str]:
    """The numpydoc sections ``obj``'s docstring lacks (headings underlined by dashes)."""
    # __doc__, not inspect.getdoc: that falls back to a base class's docstring
    doc = inspect.cleandoc(getattr(obj, "__doc__", None) or "")
    have = set(re.findall(r"^(\w[\w ]*)\n-+$", doc, re.MULTILINE))
    if isinstance(obj, type) and issubclass(obj, Exception):
        need: set[str] = set()        # the examples of what raises it show it
    elif isinstance(obj, type):
        need = {"Examples"} | (set() if have & {"Attributes", "Parameters"} else {"Attributes"})
    else:
        sig = inspect.signature(obj)  # type: ignore[arg-type]
        need = {"Examples"}
        if sig.parameters:
            need.add("Parameters")
        if sig.return_annotation not in ("None", None, inspect.Signature.empty):
            need.add("Returns")
    return sorted(need - have) + ([] if doc else ["docstring"])


def test_missing_sections_sees_what_is_missing() -> None:
    def documented(x: int) -> int:
        """Twice x.

        Parameters
        ----------
        x : int

        Returns
        -------
        int

        Examples
        --------
        >>> 1
        1
        """
        return 2 * x

    def bare(x: int) -> int:
        """Twice x."""
        return 2 * x

    class Error(ValueError):
        pass

    assert missing_sections(documented) == []
    assert missing_sections(bare) == ["Examples", "Parameters", "Returns"]
    assert missing_sections(Error) == ["docstring"]


@pytest.mark.parametrize("name", DOCUMENTED)
def test_public_api_has_numpydoc_sections(name: str) -> None:
    module = importlib.import_module(name)
    found = list(public(module))
    assert found, f"{name} defines nothing public"
    gaps = {attr: gap for attr, obj in found if (gap := missing_sections(obj))}
    assert not gaps, gaps
