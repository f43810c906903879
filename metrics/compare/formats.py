"""The registry of the table's output formats (markdown, latex, csv, json, rich).

The formats themselves are in :mod:`relkit.metrics.compare.tables`, which imports
this module to register them; so this module names it instead of importing it,
and stays light: the CLI's help lists :data:`FORMATS` without loading numpy.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from relkit.metrics.compare.errors import CompareError
from relkit.metrics.core.registry import Registry


@dataclass(frozen=True)
class Format:
    """One output format: ``render(comparison) -> text``.

    ``render`` takes a :class:`relkit.metrics.compare.core.Comparison`; it is not
    spelled here, since core imports this module (for ``Comparison.table``).
    """

    name: str
    aliases: tuple[str, ...]
    description: str
    render: Callable[..., str]


FORMATS: Registry[Format] = Registry("table format", CompareError, ignore_case=True,
                                     providers=["relkit.metrics.compare.tables"])
