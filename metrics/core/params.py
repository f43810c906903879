"""Parameters: one spec, one validating helper, one message style for every layer.

Measures, compare's options, pooling strategies and baseline systems all word a
bad value the same way, ``The 'cutoff' parameter of nDCG must be an int >= 1; got 0``.
A strategy or a system declares its parameters as :class:`Param` specs;
:func:`validate` turns what the user gave (Python values, or ``key=value`` text
from the CLI's ``--param``) into checked values, filling defaults. Each layer
passes its own error class, so a caller catches ``PoolingError`` or
``SystemsError`` as before.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from typing import Any

from relkit.metrics.core.errors import MeasureError, RelkitError
from relkit.metrics.core.record import Record
from relkit.metrics.core.registry import did_you_mean

_TRUE = frozenset({"true", "1", "yes", "on"})
_FALSE = frozenset({"false", "0", "no", "off"})


def bad_param(owner: str, param: str, expected: str, got: object,
              error: type[RelkitError] = MeasureError) -> RelkitError:
    """The error for a parameter that fails validation (a measure's, by default).

    >>> str(bad_param("nDCG", "cutoff", "an int >= 1", 0))
    "The 'cutoff' parameter of nDCG must be an int >= 1; got 0"
    """
    return error(f"The {param!r} parameter of {owner} must be {expected}; got {got!r}")


class Param(Record, frozen=True):
    """One parameter: its type, its allowed range or choices, its default.

    ``kind`` is ``int``, ``float``, ``str`` or ``bool``. ``low``/``high`` bound
    numbers (``open_low``/``open_high`` exclude the bound); ``choices`` lists the
    allowed strings.
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
        what = {int: "an int", float: "a number", str: "a string",
                bool: "true or false"}[self.kind]
        if self.low is not None and self.high is not None:
            lo = "(" if self.open_low else "["
            hi = ")" if self.open_high else "]"
            return f"{what} in {lo}{self.low:g}, {self.high:g}{hi}"
        if self.low is not None:
            return f"{what} {'>' if self.open_low else '>='} {self.low:g}"
        return what

    def convert(self, owner: str, value: Any, error: type[RelkitError]) -> Any:
        """``value`` (a Python value, or text from the command line) checked and typed."""
        bad = bad_param(owner, self.name, self.expected(), value, error)
        if self.kind is bool:
            if isinstance(value, str) and value.strip().lower() in _TRUE | _FALSE:
                return value.strip().lower() in _TRUE
            if not isinstance(value, bool):
                raise bad
            return value
        if self.kind is str:
            if not isinstance(value, str):
                raise bad
            if self.choices and value not in self.choices:
                raise error(f"{bad}{did_you_mean(value, self.choices)}")
            return value
        # A bool is an int to Python, never a number to a user.
        if isinstance(value, bool):
            raise bad
        if isinstance(value, str):
            try:
                value = self.kind(value.strip())
            except ValueError:
                raise bad from None
        if self.kind is int and not isinstance(value, int):
            raise bad
        if not isinstance(value, int | float) or not math.isfinite(value):
            raise bad
        value = self.kind(value)
        if self.low is not None and (value < self.low or (self.open_low and value == self.low)):
            raise bad
        if self.high is not None and (value > self.high
                                      or (self.open_high and value == self.high)):
            raise bad
        return value


def validate(owner: str, spec: Sequence[Param], given: Mapping[str, Any],
             error: type[RelkitError] = RelkitError) -> dict[str, Any]:
    """Checked parameters of ``owner``: every name in ``spec``, defaults filled.

    >>> spec = [Param("p", float, 0.8, "persistence", 0, 1, open_low=True, open_high=True)]
    >>> validate("rbp", spec, {"p": "0.5"})
    {'p': 0.5}
    >>> validate("rbp", spec, {"q": 0.5})
    Traceback (most recent call last):
    ...
    relkit.metrics.core.errors.RelkitError: rbp has no parameter 'q' (it takes: p)
    """
    names = [p.name for p in spec]
    for key in given:
        if key not in names:
            takes = ", ".join(names) if names else "none"
            raise error(f"{owner} has no parameter {key!r}{did_you_mean(key, names)} "
                        f"(it takes: {takes})")
    return {p.name: p.convert(owner, given[p.name], error) if given.get(p.name) is not None
            else p.default for p in spec}


def parse_assignments(items: Sequence[str], what: str,
                      error: type[RelkitError] = RelkitError) -> dict[str, str]:
    """``["k1=1.2", "b=0.75"]`` -> ``{"k1": "1.2", "b": "0.75"}`` (the CLI's ``--param``).

    ``what`` names whose parameters these are in the error (``"strategy"``).
    """
    out: dict[str, str] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key.strip():
            raise error(f"a {what} parameter must read 'name=value'; got {item!r}")
        out[key.strip()] = value.strip()
    return out
