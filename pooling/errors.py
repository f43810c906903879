"""The pooling layer's error (parameters, runs, strategy names)."""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError


class PoolingError(RelkitError):
    """Bad pooling parameters, runs or strategy names."""
