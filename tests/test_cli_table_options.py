"""The table options (``--format``, ``-o``) are declared once, in metrics/commands/tableopts.py.

corpora, systems, pooling, interleave, clicks, ab and the store's table commands each
declared the two options again (pooling and ab as module aliases of their own); a change
of the help, or of the short name, reached some of them. Now a command takes
``TableFormat`` / ``TableOutput``, and these tests keep it so: no module writes a
``typer.Option`` with the table options' help, and every command's table options are the
shared ones.
"""

from __future__ import annotations

import ast
from pathlib import Path

from battery import commands
from relkit.metrics.commands import tableopts
from relkit.metrics.core.tables import FORMAT_HELP, OUTPUT_HELP

ROOT = Path(__file__).resolve().parents[1]
LAYERS = ("metrics", "pooling", "corpora", "judging")
SHARED_HELP = {"FORMAT_HELP", "OUTPUT_HELP"}


def _own_declarations(path: Path) -> list[int]:
    """Lines of ``typer.Option(..., help=FORMAT_HELP | OUTPUT_HELP)`` calls in a module."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.lineno for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
            and node.func.attr == "Option"
            and any(k.arg == "help" and isinstance(k.value, ast.Name)
                    and k.value.id in SHARED_HELP for k in node.keywords)]


def test_the_table_options_are_declared_once() -> None:
    found = {f"{p.relative_to(ROOT)}:{line}" for layer in LAYERS
             for p in (ROOT / layer).rglob("*.py") for line in _own_declarations(p)}
    here = Path(tableopts.__file__).resolve().relative_to(ROOT)
    assert found and all(f.startswith(f"{here}:") for f in found), sorted(found)
    assert len(found) == 2


def test_every_table_command_takes_the_shared_options() -> None:
    """A command whose ``--format`` is a table format's has the shared ``-o`` too, both
    with the shared help (as declared by :mod:`relkit.metrics.commands.tableopts`)."""
    tables = []
    for path, cmd in commands():
        opts = {o: p for p in cmd.params for o in getattr(p, "opts", ())}
        fmt = opts.get("--format")
        if fmt is None or fmt.help != FORMAT_HELP:
            continue
        tables.append(path)
        out = opts.get("--output")
        assert out is not None and out is opts.get("-o"), path
        assert out.help == OUTPUT_HELP, path
    for family in ("corpora", "systems", "pool-stats", "interleave", "ab", "disagreements"):
        assert any(p[0] == family for p in tables), family
