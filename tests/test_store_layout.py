"""The store's values in and out are two modules, and no store module relaxes mypy.

judging/store/models.py held the validating inputs, the values handed back and the
errors in one module; they are :mod:`.inputs`, :mod:`.outputs` and :mod:`.errors` now,
and ``models`` only names them again for the code (and users' code) that imports them
from there. pyproject.toml's mypy settings relax nothing for the store (but the
Alembic-written migrations, which are checked by running them).
"""

from __future__ import annotations

import ast
import tomllib
from pathlib import Path

from relkit.judging.store import errors, inputs, models, outputs

ROOT = Path(__file__).resolve().parents[1]


def test_models_only_names_the_inputs_outputs_and_errors() -> None:
    tree = ast.parse(Path(models.__file__).read_text(encoding="utf-8"))
    own = [type(node).__name__ for node in tree.body
           if not isinstance(node, ast.Import | ast.ImportFrom | ast.Expr)
           and not (isinstance(node, ast.Assign)
                    and [getattr(t, "id", None) for t in node.targets] == ["__all__"])]
    assert own == [], f"models.py defines {own}: define them in inputs, outputs or errors"
    for name in models.__all__:
        home = getattr(models, name).__module__
        assert home in (inputs.__name__, outputs.__name__, errors.__name__), (name, home)


def test_every_public_name_of_the_three_is_still_importable_from_models() -> None:
    for module in (inputs, outputs, errors):
        public = {n for n, v in vars(module).items() if not n.startswith("_")
                  and getattr(v, "__module__", None) == module.__name__}
        assert public <= set(models.__all__), (module.__name__, public - set(models.__all__))


def _imports(module: object) -> set[str]:
    tree = ast.parse(Path(module.__file__).read_text(encoding="utf-8"))  # type: ignore[attr-defined]
    return {node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}


def test_inputs_and_outputs_stay_apart() -> None:
    """The values handed back need no pydantic; the inputs none of the read side."""
    assert not any(m.startswith("pydantic") for m in _imports(outputs))
    assert outputs.__name__ not in _imports(inputs)
    assert inputs.__name__ not in _imports(outputs)


def test_no_store_module_relaxes_mypy() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    relaxing = {"ignore_errors", "disable_error_code", "follow_imports"}
    for override in config["tool"]["mypy"].get("overrides", []):
        modules = override["module"]
        modules = [modules] if isinstance(modules, str) else modules
        store = [m for m in modules if m.startswith(("relkit.judging.store", "relkit.judging.*"))
                 and not m.startswith("relkit.judging.store.migrations")]
        assert not (store and relaxing & override.keys()), override
