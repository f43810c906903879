"""Dawid-Skene: per-worker confusion matrices and class priors by EM.

Dawid, A. P. and Skene, A. M. (1979). Maximum likelihood estimation of observer
error-rates using the EM algorithm. *Applied Statistics* 28(1), 20-28.

The steps follow crowd-kit's ``DawidSkene`` (the reference this is checked
against): start from the majority vote's distributions; the M-step counts each
worker's expected (true, given) pairs, floors a used cell at ``EPS`` and
normalises each true class's row over the labels the worker used; the E-step
is Bayes' rule in logs; iteration stops when the evidence lower bound per label
gains less than ``tol`` (or after ``max_iter`` iterations).
"""

from __future__ import annotations

import numpy as np

from relkit.judging.crowd.majority import majority_vote
from relkit.judging.crowd.result import Aggregate, argmax_low
from relkit.judging.crowd.table import CrowdError, LabelTable

EPS = 1e-10   # crowd-kit's floor for a confusion cell and a prior


def m_step(table: LabelTable, probas: np.ndarray) -> np.ndarray:
    """``(workers, k_true, k_given)`` confusion matrices from item distributions.

    ``pi[w, t, g]``: the expected share of worker ``w``'s labels that are ``g``
    on items whose true class is ``t``. Cells of a label the worker never used
    stay 0; used cells are floored at :data:`EPS` before normalising.
    """
    k, nw = table.k, table.n_workers
    idx = table.worker * k + table.label
    counts = np.empty((nw * k, k))
    for t in range(k):     # k is small (a grade scale): one bincount per class
        counts[:, t] = np.bincount(idx, weights=probas[table.item, t], minlength=nw * k)
    used = np.bincount(idx, minlength=nw * k) > 0
    cube = np.where(used[:, None], np.maximum(counts, EPS), 0.0).reshape(nw, k, k)
    # cube[w, given, true] -> normalise over "given" for each (w, true)
    cube /= cube.sum(axis=1, keepdims=True)
    return np.ascontiguousarray(cube.transpose(0, 2, 1))


def _log_errors(table: LabelTable, confusion: np.ndarray) -> np.ndarray:
    """``(n, k)`` log pi[w, t, g] for each label row and each true class ``t``."""
    with np.errstate(divide="ignore"):
        return np.log(confusion[table.worker, :, table.label])


def e_step(table: LabelTable, priors: np.ndarray, log_err: np.ndarray) -> np.ndarray:
    """``(items, k)`` posterior class distributions (Bayes' rule in logs, max-shifted)."""
    k = table.k
    ll = np.empty((table.n_items, k))
    for t in range(k):
        ll[:, t] = np.bincount(table.item, weights=log_err[:, t], minlength=table.n_items)
    ll += np.log(np.maximum(priors, EPS))
    ll -= ll.max(axis=1, keepdims=True)
    p = np.exp(ll)
    return p / p.sum(axis=1, keepdims=True)


def elbo(table: LabelTable, probas: np.ndarray, priors: np.ndarray,
         log_err: np.ndarray) -> float:
    """The evidence lower bound, per label (crowd-kit's convergence measure)."""
    joint = log_err + np.log(np.maximum(priors, EPS))
    expect = float(np.sum(probas[table.item] * joint))
    p = np.maximum(probas, EPS)
    entropy = -float(np.sum(np.log(p) * p))
    return (expect + entropy) / len(table)


def dawid_skene(table: LabelTable, *, max_iter: int = 100, tol: float = 1e-5) -> Aggregate:
    """Aggregate with Dawid-Skene's EM.

    Parameters
    ----------
    table
        The labels.
    max_iter
        Most EM iterations (crowd-kit's ``n_iter``).
    tol
        Stop when the evidence lower bound per label gains less than this.

    Returns
    -------
    Aggregate
        ``confusion[w, true, given]``; ``skills`` the worker's expected accuracy
        ``sum_t prior_t * confusion[w, t, t]``.
    """
    if max_iter < 1:
        raise CrowdError(f"max_iter must be >= 1; got {max_iter}")
    probas = majority_vote(table).probas
    priors = probas.mean(axis=0)
    confusion = m_step(table, probas)
    loss = -np.inf
    it = 0
    for it in range(1, max_iter + 1):  # noqa: B007 - the count is returned
        probas = e_step(table, priors, _log_errors(table, confusion))
        priors = probas.mean(axis=0)
        confusion = m_step(table, probas)
        new = elbo(table, probas, priors, _log_errors(table, confusion))
        if new - loss < tol:
            break
        loss = new
    diag = np.diagonal(confusion, axis1=1, axis2=2)
    return Aggregate("dawid-skene", table, probas, argmax_low(probas),
                     skills=diag @ priors, confusion=confusion, iterations=it)
