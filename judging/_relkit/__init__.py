"""relkit: build and use IR test collections.

The front door: the names a user needs, importable from here, each loaded on first use::

    import relkit
    res = relkit.evaluate("qrels.txt", "run.txt", ["AP", "nDCG@10"])
    cmp = relkit.compare(relkit.Qrels.read("qrels.txt"), {"a": run_a, "b": run_b})

- ``Qrels``, ``Run``: judgments and a system's ranking (read, convert, write);
- ``Evaluator``: qrels prepared once, many runs, trec_eval's numbers;
- ``evaluate``: one run in one call; ``parse_measure``: a measure name in any dialect;
- ``compare``: several runs: means, paired tests, corrections, effect sizes;
- ``open_store``: a judging database (a SQLite file or PostgreSQL);
- ``pool``: pool runs with a static strategy;
- ``agree``: agreement between assessors (kappa, alpha, AC1...).

Installed, relkit is one package whose layers are sub-packages, bottom to top:
:mod:`relkit.metrics` (runs, qrels, measures, evaluation), :mod:`relkit.corpora` and
:mod:`relkit.pooling` (on metrics), :mod:`relkit.judging` (store, TUI, agreement, the CLI).
In the repository they are the top-level folders of the same names; ``pyproject.toml``
maps them here. This file lives in ``judging/_relkit/`` because the repository's top level
holds only the layers. It imports none of them when it is imported: ``relkit --version``
reads it, and ``import relkit`` must stay free. :data:`_LAZY` names the module each name
comes from (PEP 562: :func:`__getattr__` imports it on first use); the block under
``TYPE_CHECKING`` says the same to type checkers and editors, which never run it.
"""

# Not `from typing import TYPE_CHECKING`: `relkit --version` would import typing for it
# (3 of its 72 modules). Type checkers take any name TYPE_CHECKING as true.
TYPE_CHECKING = False

__version__ = "0.2.0"

# Name -> the module that defines it, as a dotted path (a rewrite script that moves a
# module rewrites these strings too). tests/test_front_door.py checks that each one
# resolves, is documented with an example, and matches the TYPE_CHECKING block.
_LAZY: dict[str, str] = {
    "Qrels": "relkit.metrics.data",
    "Run": "relkit.metrics.data",
    "Evaluator": "relkit.metrics.evaluator",
    "evaluate": "relkit.metrics.eval.api",
    "parse_measure": "relkit.metrics.names",
    "compare": "relkit.metrics.compare.core",
    "open_store": "relkit.judging.project",
    "pool": "relkit.pooling.build",
    "agree": "relkit.judging.agreement.agree",
}

# Spelt out, not built from _LAZY: tools that read the source (ruff, IDEs) see it.
__all__ = ["__version__", "Qrels", "Run", "Evaluator", "evaluate", "parse_measure", "compare",
           "open_store", "pool", "agree"]

if TYPE_CHECKING:
    from relkit.judging.agreement.agree import agree
    from relkit.judging.project import open_store
    from relkit.metrics.compare.core import compare
    from relkit.metrics.data import Qrels, Run
    from relkit.metrics.eval.api import evaluate
    from relkit.metrics.evaluator import Evaluator
    from relkit.metrics.names import parse_measure
    from relkit.pooling.build import pool


def __getattr__(name: str) -> object:
    """Import the module defining ``name`` on first use, and keep the name here."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'relkit' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value      # the next lookup is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})
