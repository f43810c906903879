"""The installed package list matches the folders: setuptools' ``packages`` in
pyproject.toml is spelt out by hand (one package, four top-level folders mapped into
it), so a new folder left out of it is missing from every wheel while the editable
checkout still imports it. tests/test_wheel.py shows the same on a built wheel (slow);
this walk needs no build."""

from __future__ import annotations

import tomllib

from helpers import ROOT


def test_every_folder_with_an_init_is_a_listed_package() -> None:
    setup = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(setup["packages"])
    found = {"relkit"}
    for name, folder in setup["package-dir"].items():
        if name == "relkit":
            continue
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            if any(part.startswith((".", "__pycache__")) for part in rel.parts):
                continue
            if folder == "judging" and rel.parts[:1] == ("_relkit",):
                continue       # judging/_relkit is the root package itself, "relkit"
            found.add(".".join([name, *rel.parts]))
    assert sorted(found - listed) == [], "folders missing from pyproject's packages"
    assert sorted(listed - found) == [], "packages listed with no folder"
