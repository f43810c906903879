"""No import cycle between any two modules of relkit.

``make contracts`` checks, with import-linter's ``acyclic_siblings``, that the
children of every package import each other one way only. A cycle between a
package's ``__init__`` and one of its own modules falls between two of those
levels, so this test checks the whole module graph too, from the same source:
grimp reading the symlink tree of the installed shape (``.ci/srctree.py``).
Imports inside functions and under ``TYPE_CHECKING`` count: a cycle is a design
fault even where Python tolerates it at run time.
"""

from __future__ import annotations

import importlib.util
import json
import os
import subprocess
import sys
from graphlib import CycleError, TopologicalSorter
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# grimp finds a package through the import system; in a fresh interpreter whose path
# starts with the tree, it reads the tree, not the editable install's hook.
DUMP = ("import json, grimp\n"
        "g = grimp.build_graph('relkit', cache_dir=None)\n"
        "print(json.dumps({m: sorted(g.find_modules_directly_imported_by(m)) "
        "for m in g.modules}))")


def _graph(tmp_path: Path) -> dict[str, list[str]]:
    spec = importlib.util.spec_from_file_location("srctree", ROOT / ".ci" / "srctree.py")
    assert spec is not None and spec.loader is not None
    srctree = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(srctree)
    tree = srctree.build(tmp_path / "srctree")
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", DUMP], capture_output=True, text=True,
                         check=True, env=env, cwd=tmp_path).stdout
    graph: dict[str, list[str]] = json.loads(out)
    return graph


def test_no_import_cycle_between_modules(tmp_path: Path) -> None:
    graph = _graph(tmp_path)
    # The graph holds every layer (a tree grimp cannot read would pass vacuously).
    assert {"relkit", "relkit.metrics.core.registry", "relkit.pooling.strategies",
            "relkit.corpora.loaders", "relkit.judging.store.assign"} <= set(graph)
    try:
        TopologicalSorter(graph).prepare()
    except CycleError as exc:
        pytest.fail("import cycle: " + " -> ".join(exc.args[1]))
