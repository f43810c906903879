"""The aggregation methods by name (``relkit export qrels --method NAME``)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from relkit.judging.crowd.errors import CrowdError
from relkit.metrics.core.registry import Registry

if TYPE_CHECKING:   # numpy loads only when a method runs (export qrels --help stays light)
    from relkit.judging.crowd.result import Aggregate
    from relkit.judging.crowd.table import LabelTable


@dataclass(frozen=True)
class Method:
    """One aggregation method: ``fit(table, **options) -> Aggregate``."""

    name: str
    fit: Callable[..., Aggregate]
    description: str
    iterative: bool = False


def _majority(table: LabelTable, **_: Any) -> Aggregate:
    from relkit.judging.crowd.majority import majority_vote

    return majority_vote(table)


def _wawa(table: LabelTable, **_: Any) -> Aggregate:
    from relkit.judging.crowd.majority import wawa

    return wawa(table)


def _ds(table: LabelTable, max_iter: int | None = None, tol: float | None = None,
        **_: Any) -> Aggregate:
    from relkit.judging.crowd.dawid_skene import dawid_skene

    return dawid_skene(table, max_iter=100 if max_iter is None else max_iter,
                       tol=1e-5 if tol is None else tol)


def _glad(table: LabelTable, max_iter: int | None = None, tol: float | None = None,
          **_: Any) -> Aggregate:
    from relkit.judging.crowd.glad import glad

    return glad(table, max_iter=100 if max_iter is None else max_iter,
                tol=1e-5 if tol is None else tol)


def _mace(table: LabelTable, max_iter: int | None = None, tol: float | None = None,
          seed: int = 0, **_: Any) -> Aggregate:
    from relkit.judging.crowd.mace import mace

    return mace(table, max_iter=50 if max_iter is None else max_iter, tol=tol, seed=seed)


METHODS: Registry[Method] = Registry("aggregation method", CrowdError)
METHODS.register(
    Method("majority", _majority, "the most frequent label; a tie goes to the lowest"),
    Method("wawa", _wawa, "majority weighted by each worker's agreement with the majority"),
    Method("dawid-skene", _ds, "Dawid & Skene (1979): worker confusion matrices by EM "
           "(max 100 iterations, tol 1e-5)", True),
    Method("glad", _glad, "Whitehill et al. (2009): worker expertise and item difficulty "
           "by EM (max 100 iterations, tol 1e-5)", True),
    Method("mace", _mace, "Hovy et al. (2013): knowing vs spamming workers, variational "
           "Bayes, 10 seeded restarts of 50 iterations", True),
)


def aggregate(table: LabelTable, method: str, **options: Any) -> Aggregate:
    """Aggregate ``table`` with the method named ``method`` (options: max_iter, tol, seed)."""
    return METHODS.lookup(method).fit(table, **options)
