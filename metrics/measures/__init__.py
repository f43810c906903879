"""The measure families. Importing this package is cheap; the tables load on first use.

The registry is :data:`relkit.metrics.measures.base.REGISTRY`; reading it loads the
tables, and so does :func:`load_all`.
"""

from __future__ import annotations


def load_all() -> None:
    """Register every measure family (trec_eval's table, then relkit's)."""
    from relkit.metrics.measures.base import REGISTRY

    REGISTRY.load()
