"""The retrieval systems' error."""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError


class SystemsError(RelkitError):
    """An unknown system, a bad parameter, or input a system cannot search."""
