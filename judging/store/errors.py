"""The store's errors: a refused operation leaves the database unchanged.

Their own module so that the validating inputs (:mod:`.inputs`), the writers and the
readers raise one family without importing each other.
"""

from __future__ import annotations

from relkit.metrics.core.errors import RelkitError


class StoreError(RelkitError):
    """A store operation was refused; the database is unchanged."""


class StoreNotOpen(StoreError):
    """The store could not be opened (``relkit judge`` drew its first document before it
    was): nothing was written, and a judgment that waited for it is still the caller's to
    keep (the command prints it in full), not one the database refused."""


class ChangedMeanwhile(StoreError):
    """A write over a value its caller never showed (another session changed it), refused
    where a screen must not replace what its user never saw (a lead's final grade: the
    one replaced would stay in the history, but the lead decided against another); the
    database is unchanged."""
