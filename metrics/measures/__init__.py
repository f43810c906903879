"""Measure registry. Importing this package is cheap; the tables load on first use."""

from __future__ import annotations

_loaded = False


def load_all() -> None:
    """Register every measure family (trec_eval's table, then relkit's)."""
    global _loaded
    if _loaded:
        return
    _loaded = True
    # textbook imports trec_table first, so registration (= print) order holds
    from relkit.metrics.measures import (
        textbook,  # noqa: F401
        trec_table,  # noqa: F401
    )
