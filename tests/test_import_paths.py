"""The layers import only as ``relkit.*``: never as a second, top-level copy.

The repository keeps them in top-level folders (``metrics/``...), so with the repository
root on ``sys.path`` ``import metrics`` would load every module again under another name:
two ``Qrels`` classes, two registries. pytest puts only ``tests/`` on the path
(``pythonpath`` in pyproject) and conftest.py drops the root that ``python -m pytest``
adds; these tests fail if either changes.
"""

from __future__ import annotations

import importlib.util
import sys

import pytest

LAYERS = ("metrics", "pooling", "corpora", "judging")


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_is_not_importable_top_level(layer: str) -> None:
    assert importlib.util.find_spec(layer) is None, sys.path


def test_no_top_level_copy_was_imported() -> None:
    assert not [m for m in sys.modules if m.split(".")[0] in LAYERS]

