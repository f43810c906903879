"""Sampling designs for the human labels of prediction-powered evaluation.

The unit of sampling is a pooled (topic, document) pair: the automatic qrels list every
pair of the pool (population, :math:`N` pairs), the human qrels a sample of them.

* ``simple``: :math:`n` pairs drawn without replacement from the whole pool, each with
  probability :math:`n/N`;
* ``stratified``: the pool split by the automatic grade (stratum :math:`h` = pairs the
  judge graded :math:`h`), :math:`n_h` drawn without replacement in each, each pair with
  probability :math:`n_h/N_h` (Cochran, *Sampling Techniques*, 3rd ed., 1977, ch. 5).
  :func:`draw` allocates the budget in proportion to :math:`N_h`, at least 2 per stratum
  (a stratum's variance needs two labels).

The estimators (:mod:`relkit.metrics.ppi.estimators`) take the design as declared: the
strata and their sizes come from the automatic grades, the :math:`n_h` from the human
labels found in each. A sample drawn otherwise (by rank, by topic) is not either design.
"""

from __future__ import annotations

import random
from collections.abc import Sequence

import numpy as np

from relkit.metrics.core.errors import RelkitError

DESIGNS = ("simple", "stratified")
#: every design ``relkit eval --ppi`` takes: the per-pair ones and whole topics
#: (:mod:`relkit.metrics.ppi.topics`)
ALL_DESIGNS = (*DESIGNS, "topics")


def check_design(design: str, allowed: tuple[str, ...] = DESIGNS) -> str:
    """``design`` if it is one of ``allowed``, else a :class:`RelkitError`."""
    if design not in allowed:
        raise RelkitError(f"a design is one of {', '.join(allowed)}; got {design!r}")
    return design


def strata(auto_grades: np.ndarray, design: str) -> np.ndarray:
    """Each pair's stratum: 0 for all (simple), its automatic grade (stratified)."""
    check_design(design)
    if design == "simple":
        return np.zeros(len(auto_grades), dtype=np.int64)
    return np.asarray(auto_grades, dtype=np.int64)


def allocation(sizes: dict[int, int], budget: int) -> dict[int, int]:
    """Proportional allocation of ``budget`` labels, at least 2 (or all) per stratum.

    Largest remainders settle the rounding, the largest strata pay for the floors; the
    total is ``budget`` unless 2 per stratum is already more.
    """
    total = sum(sizes.values())
    if not 0 < budget <= total:
        raise RelkitError(f"a budget is between 1 and the {total:,} pooled pairs; "
                          f"got {budget:,}")
    quota = {h: budget * n / total for h, n in sizes.items()}
    take = {h: min(sizes[h], max(2, int(q))) for h, q in quota.items()}
    rest = budget - sum(take.values())
    while rest < 0:     # the floors took more than the quotas: the largest strata give
        h = max((h for h in take if take[h] > 2), key=lambda h: take[h], default=None)
        if h is None:
            break
        take[h] -= 1
        rest += 1
    for h in sorted(quota, key=lambda h: int(quota[h]) - quota[h]):
        if rest <= 0:
            break
        if take[h] < sizes[h]:
            take[h] += 1
            rest -= 1
    return take


def draw(pairs: Sequence[tuple[str, str]], auto_grades: Sequence[int], budget: int,
         design: str, seed: int = 0) -> list[tuple[str, str, int, float]]:
    """The human sample: ``(topic, doc, stratum, probability)`` for each drawn pair.

    Seeded: the same pool, budget, design and seed give the same sample.
    """
    codes = strata(np.asarray(auto_grades), design)
    members: dict[int, list[int]] = {}
    for i, h in enumerate(codes.tolist()):
        members.setdefault(h, []).append(i)
    take = allocation({h: len(m) for h, m in members.items()}, budget)
    rng = random.Random(f"ppi:{design}:{seed}")
    out: list[tuple[str, str, int, float]] = []
    for h in sorted(members):
        chosen = rng.sample(members[h], take[h])
        p = take[h] / len(members[h])
        out.extend((pairs[i][0], pairs[i][1], h, p) for i in sorted(chosen))
    return out
