"""Parameters of a retrieval system: one spec, one validating helper, one message style.

pooling has the same idea (``pooling/params.py``), but corpora may import only
metrics, so the systems keep their own small copy; it also knows booleans
(``sublinear_tf=true``), which no pooling strategy takes.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from relkit.metrics.errors import RelkitError


class SystemsError(RelkitError):
    """An unknown system, a bad parameter, or input a system cannot search."""


@dataclass(frozen=True)
class Param:
    """One parameter: its type, its allowed range or choices, its default."""

    name: str
    kind: type
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    choices: tuple[str, ...] = ()

    def expected(self) -> str:
        """The phrase after "must be" in an error message."""
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        what = {int: "an int", float: "a number", str: "a string",
                bool: "true or false"}[self.kind]
        if self.low is not None and self.high is not None:
            return f"{what} in {'(' if self.open_low else '['}{self.low:g}, {self.high:g}]"
        if self.low is not None:
            return f"{what} {'>' if self.open_low else '>='} {self.low:g}"
        return what


def suggest(name: str, known: Sequence[str]) -> str:
    """``"; did you mean 'x'?"`` for a close match, else an empty string."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


_TRUE = {"true", "1", "yes", "on"}
_FALSE = {"false", "0", "no", "off"}


def _convert(owner: str, p: Param, value: Any) -> Any:
    bad = SystemsError(f"The {p.name!r} parameter of {owner} must be {p.expected()}; "
                       f"got {value!r}")
    if p.kind is bool:
        if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
            return value.strip().lower() in _TRUE
        if not isinstance(value, bool):
            raise bad
        return value
    if p.kind is str:
        if not isinstance(value, str) or (p.choices and value not in p.choices):
            raise SystemsError(f"The {p.name!r} parameter of {owner} must be {p.expected()}; "
                               f"got {value!r}{suggest(str(value), p.choices)}")
        return value
    if isinstance(value, bool):
        raise bad
    if isinstance(value, str):
        try:
            value = p.kind(value.strip())
        except ValueError:
            raise bad from None
    if p.kind is int and not isinstance(value, int):
        raise bad
    if not isinstance(value, int | float) or not math.isfinite(value):
        raise bad
    value = p.kind(value)
    if p.low is not None and (value < p.low or (p.open_low and value == p.low)):
        raise bad
    if p.high is not None and value > p.high:
        raise bad
    return value


def validate(owner: str, spec: Sequence[Param], given: Mapping[str, Any]) -> dict[str, Any]:
    """Checked parameters of ``owner``: every name in ``spec``, defaults filled.

    >>> validate("bm25", [Param("b", float, 0.75, "length normalisation", 0, 1)], {"b": 2})
    Traceback (most recent call last):
    ...
    relkit.corpora.systems.params.SystemsError: The 'b' parameter of bm25 must be a number in [0, 1]; got 2
    """
    names = [p.name for p in spec]
    for key in given:
        if key not in names:
            takes = ", ".join(names) if names else "none"
            raise SystemsError(f"{owner} has no parameter {key!r}{suggest(key, names)} "
                               f"(it takes: {takes})")
    return {p.name: _convert(owner, p, given[p.name]) if given.get(p.name) is not None
            else p.default for p in spec}


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """``["k1=1.2", "b=0.75"]`` -> ``{"k1": "1.2", "b": "0.75"}`` (the CLI's ``--param``)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise SystemsError(f"a system parameter must read 'name=value'; got {item!r}")
        out[key.strip()] = value.strip()
    return out
