"""Majority vote and Wawa (worker agreement with aggregate): the closed-form methods."""

from __future__ import annotations

import numpy as np

from relkit.judging.crowd.result import Aggregate, argmax_low
from relkit.judging.crowd.table import LabelTable


def _normalise(scores: np.ndarray) -> np.ndarray:
    total = scores.sum(axis=1, keepdims=True)
    return np.divide(scores, total, out=np.zeros_like(scores), where=total > 0)


def agreement_with(table: LabelTable, codes: np.ndarray) -> np.ndarray:
    """``(workers,)`` each worker's share of labels equal to the item's class ``codes``.

    A label a worker gave twice to one item counts once (crowd-kit's
    ``get_accuracy`` drops such repeats); two different labels both count.
    """
    key = (table.item * table.n_workers + table.worker) * table.k + table.label
    _, first = np.unique(key, return_index=True)
    w = table.worker[first]
    hit = (table.label[first] == codes[table.item[first]]).astype(np.float64)
    n = np.bincount(w, minlength=table.n_workers).astype(np.float64)
    right = np.bincount(w, weights=hit, minlength=table.n_workers)
    return np.divide(right, n, out=np.full_like(right, np.nan), where=n > 0)


def weighted_votes(table: LabelTable, weights: np.ndarray) -> np.ndarray:
    """``(items, k)`` the sum of the voters' ``weights`` per item and class."""
    flat = np.bincount(table.item * table.k + table.label, weights=weights[table.worker],
                       minlength=table.n_items * table.k)
    return flat.reshape(table.n_items, table.k)


def majority_vote(table: LabelTable) -> Aggregate:
    """The most frequent label per item; a tie goes to the lowest tied label.

    The lower grade on a tie is the cautious call (a document is not called
    relevant on a split vote), and is what ``relkit export qrels --method
    majority`` does on the store and what crowd-kit's ``MajorityVote`` does
    (``idxmax`` over the sorted labels). ``skills`` is each worker's agreement
    with the result.
    """
    probas = _normalise(table.counts())
    codes = argmax_low(probas)
    return Aggregate("majority", table, probas, codes, skills=agreement_with(table, codes))


def wawa(table: LabelTable) -> Aggregate:
    """Worker Agreement With Aggregate: majority vote weighted by agreement with it.

    Each worker's weight is the share of their labels that agree with the plain
    majority vote; the result is the weighted vote (ties to the lowest label),
    as crowd-kit's ``Wawa``. ``skills`` holds the weights.
    """
    mv = majority_vote(table)
    skills = np.nan_to_num(mv.skills if mv.skills is not None else np.zeros(0))
    probas = _normalise(weighted_votes(table, skills))
    return Aggregate("wawa", table, probas, argmax_low(probas), skills=skills)
