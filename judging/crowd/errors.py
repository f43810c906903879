"""The crowd layer's error (standard library only: the CLI checks names before numpy loads)."""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError


class CrowdError(RelkitError):
    """The labels cannot be aggregated (no labels, a bad option, an unknown name)."""
