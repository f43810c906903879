"""What an adaptive pool is, beyond its candidates: the :class:`Definition` stored in
the pool row's ``params_json`` under :data:`KEY` (see :mod:`relkit.judging.store.adaptive`,
which re-exports both; split from it so the picker can read it without a cycle).
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

from relkit.judging.store.tables import PoolRow
from relkit.pooling.build import split_budget
from relkit.pooling.errors import PoolingError
from relkit.pooling.stopping import parse_stop
from relkit.pooling.strategies import get

KEY = "adaptive"
@dataclass(frozen=True)
class Definition:
    """What, besides the candidates, an adaptive pool needs to replay exactly."""

    strategy: str
    params: dict[str, Any]
    seed: int = 0
    budget: int | None = None          # judgments per topic
    total: int | None = None           # or a global budget split across topics
    level: int = 1                     # lowest relevant grade (the scale's threshold)
    max_grade: int = 1                 # full gain (graded strategies)
    stop: str | None = None            # a stopping rule: knee, target, target:T

    def validated(self) -> Definition:
        s = get(self.strategy)
        if s.kind != "adaptive":
            raise PoolingError(f"{self.strategy!r} is a static strategy, not adaptive")
        if (self.budget is None) == (self.total is None):
            raise PoolingError("an adaptive pool needs a budget: give --budget (per topic) "
                               "or --total (split across topics), not both")
        for what, v in (("budget", self.budget), ("total", self.total)):
            if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
                raise PoolingError(f"The '{what}' parameter of adaptive pooling must be an "
                                   f"int >= 1; got {v!r}")
        rule = parse_stop(self.stop)
        return Definition(self.strategy, s.validate(self.params), self.seed, self.budget,
                          self.total, self.level, self.max_grade,
                          None if rule is None else str(rule))

    def quotas(self, sizes: Mapping[str, int]) -> dict[str, int]:
        """Documents to pick per topic: the budget, never more than the candidates."""
        if self.total is not None:
            return split_budget(self.total, sizes)
        assert self.budget is not None
        return {t: min(self.budget, n) for t, n in sizes.items()}

    def to_json(self) -> dict[str, Any]:
        out = asdict(self)
        if out["stop"] is None:
            del out["stop"]  # a pool without a rule keeps the digest it had before rules
        return out

    @classmethod
    def of_pool(cls, row: PoolRow) -> Definition | None:
        """The definition stored with a pool (None: a static pool)."""
        params = json.loads(row.params_json or "{}")
        spec = params.get(KEY) if isinstance(params, dict) else None
        return None if spec is None else cls(**spec)
