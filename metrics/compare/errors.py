"""The error of comparing systems."""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError


class CompareError(RelkitError):
    """Systems cannot be compared as asked (unknown test, too few topics...)."""
