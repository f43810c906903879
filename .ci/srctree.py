"""Lay out the installed package's shape, ``relkit/...``, as symlinks under build/srctree.

The repository keeps the layers at its top level and ``pyproject.toml`` maps them into
``relkit``; an editable install resolves that with an import hook, which static tools
(mypy, import-linter) do not run. They read this tree instead. It is rebuilt on every
call (cheap), so a new module is seen at once.
"""

from __future__ import annotations

import os
import shutil
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def build(dest: Path) -> Path:
    mapping = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"][
        "package-dir"]
    tree = dest / "relkit"
    shutil.rmtree(dest, ignore_errors=True)
    tree.mkdir(parents=True)
    own = ROOT / mapping["relkit"]
    for f in own.glob("*.py"):
        os.symlink(f, tree / f.name)
    for name, folder in mapping.items():
        if name == "relkit":
            continue
        src = ROOT / folder
        if own.is_relative_to(src):
            # The root package's own folder sits inside this layer: link the layer's
            # entries one by one, leaving that folder out (else it is seen twice).
            (tree / name.split(".")[-1]).mkdir()
            for entry in src.iterdir():
                if entry != own and entry.name != "__pycache__":
                    os.symlink(entry, tree / name.split(".")[-1] / entry.name)
        else:
            os.symlink(src, tree / name.split(".")[-1])
    return dest


if __name__ == "__main__":
    print(build(Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "build" / "srctree"))
