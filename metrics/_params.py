"""One helper for parameter errors, so every message reads the same."""

from __future__ import annotations

from relkit.metrics.errors import MeasureError


def bad_param(measure: str, param: str, expected: str, got: object) -> MeasureError:
    """Build the error for a parameter that fails validation.

    >>> str(bad_param("nDCG", "cutoff", "an int >= 1", 0))
    "The 'cutoff' parameter of nDCG must be an int >= 1; got 0"
    """
    return MeasureError(f"The {param!r} parameter of {measure} must be {expected}; got {got!r}")
