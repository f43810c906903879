"""No private name is imported across packages (issue 34: no private calls across
packages): every module under metrics/, pooling/, corpora/ and judging/ is parsed, and
``from relkit.X.Y import _name`` fails when relkit.X.Y is in another package than the
importing module.

A module's *package* is the first two levels below ``relkit``: ``relkit.metrics.online``
for ``relkit.metrics.online.ab.report``, ``relkit.metrics.compare`` for
``relkit.metrics.compare.plots``. The modules at a layer's root (``metrics/evaluator.py``,
``metrics/topic_chunks.py``, ``judging/cli.py``...) are one package together, the layer's
own (``relkit.metrics``): they may share private names among themselves, but a
subpackage (``relkit.metrics.diversity``) may not reach into them, nor they into it.
A name that a module of another package needs is public (renamed at its definition).

Names only: a private *module* (``from relkit.metrics.readers import _arrow``, or
``from relkit.metrics.readers._arrow import to_np``) is outside this check.
"""

from __future__ import annotations

import ast
from pathlib import Path

from helpers import ROOT

LAYERS = ("metrics", "pooling", "corpora", "judging")


def package(module: str) -> str:
    """The package of ``relkit.<layer>...`` (a module's dotted name): the subpackage two
    levels below relkit, or the layer itself for the layer's root modules."""
    parts = module.split(".")
    if len(parts) >= 3 and (ROOT / parts[1] / parts[2]).is_dir():
        return ".".join(parts[:3])
    return ".".join(parts[:2])


def _module_name(path: Path) -> str:
    rel = path.relative_to(ROOT).with_suffix("")
    parts = list(rel.parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(["relkit", *parts])


def _imported_from(node: ast.ImportFrom, module: str, is_init: bool) -> str | None:
    """The absolute module a ``from ... import`` names (relative ones resolved)."""
    if node.level == 0:
        return node.module
    base = module.split(".")
    # a package's __init__ is its own package level: ``from .x`` is a child of it
    up = node.level - 1 if is_init else node.level
    base = base[:len(base) - up] if up else base
    return ".".join([*base, *([node.module] if node.module else [])])


def private_imports(root: Path = ROOT) -> list[str]:
    """``path:line: from M import _name`` for each private name imported across packages."""
    found = []
    for layer in LAYERS:
        for path in sorted((root / layer).rglob("*.py")):
            module = _module_name(path)
            tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
            for node in ast.walk(tree):
                if not isinstance(node, ast.ImportFrom):
                    continue
                source = _imported_from(node, module, path.name == "__init__.py")
                if not source or not source.startswith("relkit."):
                    continue
                if package(source) == package(module):
                    continue
                where = ROOT.joinpath(*source.split(".")[1:])
                for alias in node.names:
                    if (alias.name.startswith("_") and not alias.name.startswith("__")
                            and not (where / f"{alias.name}.py").is_file()):
                        found.append(f"{path.relative_to(root)}:{node.lineno}: "
                                     f"from {source} import {alias.name}")
    return found


def test_package_is_the_first_two_levels_or_the_layer() -> None:
    assert package("relkit.metrics.online.ab.report") == "relkit.metrics.online"
    assert package("relkit.metrics.compare.plots") == "relkit.metrics.compare"
    assert package("relkit.metrics.topic_chunks") == "relkit.metrics"
    assert package("relkit.metrics.evaluator") == "relkit.metrics"
    assert package("relkit.judging.store.reports") == "relkit.judging.store"


def test_no_private_name_is_imported_across_packages() -> None:
    assert private_imports() == []
