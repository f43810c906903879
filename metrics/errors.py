"""The public home of relkit's errors: ``from relkit.metrics.errors import FormatError``.

They are defined in :mod:`relkit.metrics.core.errors` (the bottom module every layer
imports); this name stays because users' code catches them under it.
"""

from __future__ import annotations

from relkit.metrics.core.errors import (
    DuplicateDocumentError,
    EvaluationError,
    FormatError,
    MeasureError,
    RelkitError,
)

__all__ = ["DuplicateDocumentError", "EvaluationError", "FormatError", "MeasureError",
           "RelkitError"]
