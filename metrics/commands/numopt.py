"""A numeric option declares its range once: ``Num("--alpha", within="0 < x < 1")``.

Every ``int``/``float`` option of every ``relkit`` command is built by :func:`Num`, a
``typer.Option`` whose range is written once, as the user reads it. The one declaration
gives the help text (``Significance level [0 < x < 1]``), the check (a value outside,
NaN or an infinity is the standard usage error, exit 2: ``Invalid value for '--alpha':
0 is not in 0 < x < 1``), and what tests read to make boundary values
(tests/test_cli_numeric.py feeds each option just outside each end).

The range reads ``LOW <= x <= HIGH`` (``<`` for an open end) or ``x >= LOW``,
``x > LOW``, ``x <= HIGH``, ``x < HIGH``. The metrics layer holds it so that the CLIs
of every layer can use it (it imports typer, as every CLI module does; not
:mod:`relkit.metrics.core`, which must stay standard library).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import typer

# The ranges many options share, named once.
SEED = "0 <= x <= 4294967295"   # numpy's generators take a seed in [0, 2**32)
COUNT = "x >= 1"
PROPORTION = "0 < x < 1"        # a significance level, a confidence level, a power
SHARE = "0 <= x <= 1"           # a fraction of pairs, of sessions
# A relevance grade: trec_eval's grades are small integers (negative ones mark spam);
# the bound keeps a typo (-l 99999999999999999999) from reaching numpy's int64.
GRADE = "-1000 <= x <= 1000"

_NUM = r"(-?[0-9.]+(?:e[+-]?[0-9]+)?)"
_BOTH = re.compile(rf"{_NUM} (<=?) x (<=?) {_NUM}")
_ONE = re.compile(rf"x (<=?|>=?) {_NUM}")


@dataclass(frozen=True)
class Range:
    """A closed or open interval of numbers, written as ``text``; NaN is never in it."""

    text: str
    low: float | None = None
    high: float | None = None
    open_low: bool = False
    open_high: bool = False

    @classmethod
    def parse(cls, text: str) -> Range:
        """``"0 < x < 1"`` -> ``Range(low=0, high=1, open_low=True, open_high=True)``.

        >>> Range.parse("x >= 1")
        Range(text='x >= 1', low=1.0, high=None, open_low=False, open_high=False)
        """
        both = _BOTH.fullmatch(text)
        if both:
            lo, op1, op2, hi = both.groups()
            return cls(text, float(lo), float(hi), op1 == "<", op2 == "<")
        one = _ONE.fullmatch(text)
        if not one:
            raise ValueError(f"not a range: {text!r} (write e.g. '0 < x < 1' or 'x >= 1')")
        op, bound = one.groups()
        if op.startswith(">"):
            return cls(text, low=float(bound), open_low=op == ">")
        return cls(text, high=float(bound), open_high=op == "<")

    def __contains__(self, value: object) -> bool:
        if not isinstance(value, int | float) or isinstance(value, bool) \
                or not math.isfinite(_as_float(value)):
            return False
        if self.low is not None and (value < self.low or self.open_low and value == self.low):
            return False
        return not (self.high is not None
                    and (value > self.high or self.open_high and value == self.high))


def _as_float(value: float) -> float:
    """``value`` as a float; an int past a float's range is infinite (no option takes it:
    every count and seed is used as a float somewhere, e.g. ``--min-view`` / 1000)."""
    try:
        return float(value)
    except OverflowError:
        return math.inf


def _shown(value: object) -> str:
    return f"{value:g}" if isinstance(value, float) else str(value)


def _checker(rng: Range) -> Any:
    def check(value: Any) -> Any:
        # None: the option was not given (a default of None); a list: a multi-value option.
        for v in value if isinstance(value, list | tuple) else [value]:
            if isinstance(v, int) and not math.isfinite(_as_float(v)):
                raise typer.BadParameter(f"a number of {len(str(abs(v)))} digits is too "
                                         "large")
            if v is not None and v not in rng:
                raise typer.BadParameter(f"{_shown(v)} is not in {rng.text}")
        return value

    return check


def Num(*args: Any, within: str, help: str = "", **kwargs: Any) -> Any:  # noqa: N802
    """``typer.Option(*args, help=..., **kwargs)`` taking only numbers ``within``.

    ``args`` are typer's: the default then the names (``Num(10, "--depth", within=...)``),
    or the names alone in an ``Annotated`` declaration. The range is appended to the
    help text and kept on the option (``.relkit_range``) for the CLI tests.
    """
    if "callback" in kwargs or "min" in kwargs or "max" in kwargs:
        raise TypeError("Num checks the range itself: no callback, min or max")
    rng = Range.parse(within)
    info = typer.Option(*args, help=f"{help} [{within}]".strip(), callback=_checker(rng),
                        **kwargs)
    info.relkit_range = rng
    return info


def declared_range(param: Any) -> Range | None:
    """The range declared by :func:`Num` for a command's (click) parameter, if any."""
    info = getattr(getattr(param, "type_descriptor", None), "parameter_info", None)
    return getattr(info, "relkit_range", None)
