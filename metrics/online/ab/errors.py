"""The error of an A/B analysis."""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError


class ABError(RelkitError):
    """An A/B analysis cannot run as asked (bad option, SRM, too few units...)."""


class ParameterError(ABError):
    """A parameter out of its range (alpha 0, power 1.5...): ``param`` names it, so
    the CLI can name the option it came from."""

    def __init__(self, param: str, message: str) -> None:
        super().__init__(message)
        self.param = param


def check_open_unit(param: str, value: float) -> None:
    """``value`` must lie in the open interval (0, 1), as a level, alpha or power does
    (:class:`ParameterError` otherwise; NaN too)."""
    if not 0 < value < 1:
        raise ParameterError(param, f"{param} must be in (0, 1), both excluded; got {value}")
