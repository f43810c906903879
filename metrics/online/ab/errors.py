"""The error of an A/B analysis."""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError


class ABError(RelkitError):
    """An A/B analysis cannot run as asked (bad option, SRM, too few units...)."""
