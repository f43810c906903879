"""The shape of relkit.metrics (issue 34): a small root, one family list, no private exports."""

from __future__ import annotations

import ast
import subprocess
import sys

from helpers import ROOT

METRICS = ROOT / "metrics"


def test_the_root_holds_the_evaluators_core_only() -> None:
    """Readers, diversity, inferred measures and the eval command have their own packages."""
    root = sorted(p.name for p in METRICS.glob("*.py"))
    assert len(root) <= 15, root
    for package in ("readers", "diversity", "inferred", "eval", "commands"):
        assert (METRICS / package / "__init__.py").read_text() == "", package


def _private_exports(path) -> list[str]:
    tree = ast.parse(path.read_text())
    for node in tree.body:
        if (isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "__all__" for t in node.targets)):
            return [e.value for e in ast.walk(node.value)
                    if isinstance(e, ast.Constant) and isinstance(e.value, str)
                    and e.value.startswith("_")]
    return []


def test_no_private_name_is_exported() -> None:
    found = {str(p.relative_to(ROOT)): names for p in METRICS.rglob("*.py")
             if (names := _private_exports(p))}
    assert found == {}


def test_the_family_list_is_explicit_and_sets_the_registry_order() -> None:
    """Importing a table registers nothing; the registry's order is TABLES' order."""
    code = (
        "from relkit.metrics.measures import compat, cwl, ebu, err, textbook, trec_table\n"
        "from relkit.metrics.measures.base import REGISTRY\n"
        "assert REGISTRY._items == {}, list(REGISTRY._items)\n"
        "from relkit.metrics.measures.families import TABLES\n"
        "names = [f.name for t in TABLES for f in t.FAMILIES]\n"
        "assert list(REGISTRY) == names, names\n"
        "assert [t.__name__.rsplit('.', 1)[1] for t in TABLES] == "
        "['trec_table', 'textbook', 'err', 'ebu', 'cwl', 'compat']\n"
        "assert [REGISTRY[n].order for n in names] == sorted(REGISTRY[n].order for n in names)\n"
        "micro = ('P', 'recall', 'set_P', 'set_recall')\n"
        "assert all(REGISTRY[n].micro is not None for n in micro)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
