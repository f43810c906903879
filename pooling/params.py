"""One helper for strategy parameters, so every message reads the same.

A strategy declares its parameters as :class:`Param` specs; :func:`validate`
turns what the user gave (Python values, or ``key=value`` text from the CLI)
into checked values, filling defaults. Unknown names suggest close matches.
"""

from __future__ import annotations

import difflib
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from relkit.metrics.errors import RelkitError


class PoolingError(RelkitError):
    """Bad pooling parameters, runs or strategy names."""


@dataclass(frozen=True)
class Param:
    """One parameter: its type, its allowed range or choices, its default.

    ``low``/``high`` bound numbers (``open_low``/``open_high`` exclude the
    bound); ``choices`` lists the allowed strings.
    """

    name: str
    kind: type
    default: Any
    description: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False
    choices: tuple[str, ...] = ()

    def expected(self) -> str:
        """The phrase after "must be" in an error message."""
        if self.choices:
            return "one of " + ", ".join(repr(c) for c in self.choices)
        what = {int: "an int", float: "a number", str: "a string"}[self.kind]
        if self.low is not None and self.high is not None:
            lo = "(" if self.open_low else "["
            hi = ")" if self.open_high else "]"
            return f"{what} in {lo}{self.low:g}, {self.high:g}{hi}"
        if self.low is not None:
            return f"{what} {'>' if self.open_low else '>='} {self.low:g}"
        return what


def suggest(name: str, known: Sequence[str]) -> str:
    """``"; did you mean 'x'?"`` for a close match, else an empty string."""
    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.5)
    return f"; did you mean {close[0]!r}?" if close else ""


def _convert(owner: str, p: Param, value: Any) -> Any:
    bad = PoolingError(f"The {p.name!r} parameter of {owner} must be {p.expected()}; "
                       f"got {value!r}")
    if p.kind is int:
        if isinstance(value, bool):
            raise bad
        if isinstance(value, str):
            try:
                value = int(value.strip())
            except ValueError:
                raise bad from None
        if not isinstance(value, int):
            raise bad
    elif p.kind is float:
        if isinstance(value, bool):
            raise bad
        if isinstance(value, str):
            try:
                value = float(value.strip())
            except ValueError:
                raise bad from None
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise bad
        value = float(value)
    else:
        if not isinstance(value, str):
            raise bad
        if p.choices and value not in p.choices:
            raise PoolingError(f"The {p.name!r} parameter of {owner} must be {p.expected()}; "
                               f"got {value!r}{suggest(value, p.choices)}")
        return value
    if p.low is not None and (value < p.low or (p.open_low and value == p.low)):
        raise bad
    if p.high is not None and (value > p.high or (p.open_high and value == p.high)):
        raise bad
    return value


def validate(owner: str, spec: Sequence[Param], given: Mapping[str, Any]) -> dict[str, Any]:
    """Checked parameters of ``owner``: every name in ``spec``, defaults filled.

    >>> validate("rbp", [Param("p", float, 0.8, "persistence", 0, 1, True, True)], {"p": 1.5})
    Traceback (most recent call last):
    ...
    relkit.pooling.params.PoolingError: The 'p' parameter of rbp must be a number in (0, 1); got 1.5
    """
    names = [p.name for p in spec]
    for key in given:
        if key not in names:
            takes = ", ".join(names) if names else "none"
            raise PoolingError(f"{owner} has no parameter {key!r}{suggest(key, names)} "
                               f"(it takes: {takes})")
    out: dict[str, Any] = {}
    for p in spec:
        if p.name in given and given[p.name] is not None:
            out[p.name] = _convert(owner, p, given[p.name])
        else:
            out[p.name] = p.default
    return out


def parse_assignments(items: Sequence[str]) -> dict[str, str]:
    """``["k=60", "method=rrf"]`` -> ``{"k": "60", "method": "rrf"}`` (CLI ``--param``)."""
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise PoolingError(f"a strategy parameter must read 'name=value'; got {item!r}")
        out[key.strip()] = value.strip()
    return out
