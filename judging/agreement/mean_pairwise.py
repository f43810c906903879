r"""The mean of the pairwise Cohen's kappas among many assessors (Light 1971; Conger 1980),
from each pair's confusion table.

Unlike the pattern-based coefficients of :mod:`.multi` (Fleiss, Krippendorff, Gwet), this
one is built from every pair of assessors that judged items in common: their confusion
tables, per topic too, and the mean of the pairs' defined kappas with a bootstrap over
items. Apart from :mod:`.multi` because it shares none of its pattern machinery.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from relkit.judging.agreement import ci
from relkit.judging.agreement.pair_coefficients import cohen_kappa
from relkit.judging.agreement.result import Stat, defined, undefined


def pair_tables(codes: np.ndarray, q: int) -> dict[tuple[int, int], np.ndarray]:
    """Confusion tables of every assessor pair that judged an item in common."""
    out: dict[tuple[int, int], np.ndarray] = {}
    R = codes.shape[1]
    for a in range(R - 1):
        rows = np.flatnonzero(codes[:, a] >= 0)
        x = codes[rows, a].astype(np.int64)
        sub = codes[rows, a + 1:]
        r, c = np.nonzero(sub >= 0)
        key = c * q * q + x[r] * q + sub[r, c]
        tabs = np.bincount(key, minlength=(R - a - 1) * q * q).reshape(R - a - 1, q, q)
        for b in np.flatnonzero(tabs.sum(axis=(1, 2))):
            out[(a, a + 1 + int(b))] = tabs[b]
    return out


def pair_topic_tables(codes: np.ndarray, item_topic: np.ndarray, q: int
                      ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Confusion tables of every (assessor pair, topic) with an item judged by both.

    Returns ``a, b, topic`` (one entry per non-empty table, sorted by pair then
    topic) and the tables (entries, q, q). Sparse: crowd data has hundreds of
    thousands of assessor pairs, few of which share a topic.
    """
    R = codes.shape[1]
    T = int(item_topic.max()) + 1 if len(item_topic) else 1
    keys = []
    for a in range(R - 1):
        rows = np.flatnonzero(codes[:, a] >= 0)
        sub = codes[rows, a + 1:]
        r, c = np.nonzero(sub >= 0)
        pair = a * R + (a + 1 + c).astype(np.int64)
        cell = codes[rows[r], a].astype(np.int64) * q + sub[r, c]
        keys.append((pair * T + item_topic[rows[r]]) * (q * q) + cell)
    key = np.concatenate(keys) if keys else np.zeros(0, dtype=np.int64)
    uniq, cnt = np.unique(key, return_counts=True)
    table_key, cell = np.divmod(uniq, q * q)
    tabs, inv = np.unique(table_key, return_inverse=True)
    out = np.zeros((len(tabs), q * q), dtype=np.int64)
    np.add.at(out, (inv.ravel(), cell), cnt)
    pair, topic = np.divmod(tabs, T)
    first, second = np.divmod(pair, R)
    return first, second, topic, out.reshape(len(tabs), q, q)


def mean_kappa_by_topic(topic: np.ndarray, tables: np.ndarray, values: np.ndarray,
                        topics: int) -> list[Stat]:
    """Per topic, the mean of the defined pairwise Cohen's kappas of its pairs (no interval)."""
    name = "mean_pairwise_cohen_kappa"
    k = cohen_kappa(tables, values) if len(tables) else np.zeros(0)
    ok = np.isfinite(k) & (tables.sum(axis=(-2, -1)) >= 2)
    cnt = np.bincount(topic[ok], minlength=topics)
    tot = np.bincount(topic[ok], weights=k[ok], minlength=topics)
    return [defined(name, float(tot[t] / cnt[t]), int(cnt[t])) if cnt[t] else
            undefined(name, 0, "no assessor pair has a defined kappa on this topic")
            for t in range(topics)]


def _mean_kappa(tables: np.ndarray, values: np.ndarray) -> np.ndarray:
    """(batch, pairs, q, q) -> mean over pairs of defined kappas (pairs with >= 2 items)."""
    k = cohen_kappa(tables, values)
    k = np.where(tables.sum(axis=(-2, -1)) >= 2, k, np.nan)
    with np.errstate(invalid="ignore"):
        cnt = np.isfinite(k).sum(axis=-1)
        return np.where(cnt > 0, np.nansum(k, axis=-1) / np.maximum(cnt, 1), np.nan)


MAX_BOOT_ASSESSORS = 10


def mean_pairwise_cohen(codes: np.ndarray, q: int, values: np.ndarray, *, level: float = 0.95,
                        replicates: int = 1000, seed: int = 0) -> Stat:
    r"""The mean of the defined pairwise Cohen's kappas (Light 1971; Conger 1980).

    A pair counts when it judged two or more items in common and its kappa is
    defined; ``n`` is the number of such pairs. The bootstrap resamples items
    (whole rows, so pairs stay dependent); it is skipped above
    ``MAX_BOOT_ASSESSORS`` assessors, where rows rarely repeat.
    """
    name = "mean_pairwise_cohen_kappa"
    tabs = pair_tables(codes, q)
    if not tabs:
        return undefined(name, 0, "no item was judged by two assessors")
    stack = np.stack(list(tabs.values()))[None]
    v = float(_mean_kappa(stack, values)[0])
    kappas = cohen_kappa(stack[0], values)
    n = int((np.isfinite(kappas) & (stack[0].sum(axis=(1, 2)) >= 2)).sum())
    if not np.isfinite(v):
        return undefined(name, 0, "no assessor pair has a defined kappa (one grade, or a "
                         "single common item)")
    boot = None
    R = codes.shape[1]
    if replicates > 0 and R <= MAX_BOOT_ASSESSORS:
        key = ((codes.astype(np.int64) + 1) * (q + 1) ** np.arange(R)).sum(axis=1)
        uniq, first, freq = np.unique(key, return_index=True, return_counts=True)
        rows = codes[first]
        pairs = list(combinations(range(R), 2))
        onehot = np.zeros((len(rows), len(pairs), q * q))
        for j, (a, b) in enumerate(pairs):
            ok = (rows[:, a] >= 0) & (rows[:, b] >= 0)
            onehot[np.flatnonzero(ok), j, rows[ok, a] * q + rows[ok, b]] = 1

        def fn(w: np.ndarray) -> np.ndarray:
            t = (w @ onehot.reshape(len(rows), -1)).reshape(len(w), len(pairs), q, q)
            return _mean_kappa(t, values)

        boot = ci.bootstrap_weights(fn, freq, replicates, seed, level)
    return defined(name, v, n, bootstrap=boot)


def pair_labels(assessors: tuple[str, ...]) -> list[tuple[str, str]]:
    return list(combinations(assessors, 2))
