"""The ``local`` engine: numpy in this process, the code every other engine is checked
against.

Runs are evaluated by :meth:`Evaluator.compute_local` (per-topic values in chunks of
whole topics, then :meth:`Evaluator.finish`); a chain click model's EM sums are added
block by block over the distinct sessions in memory
(:func:`relkit.metrics.online.clickmodels.sums.block_sums`); click logs are read by
DuckDB in this process, out of core (:func:`relkit.metrics.online.source.open_log`, the
DuckDB backend of the click-log contract).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from relkit.metrics.core.engines import ENGINES


class LocalEngine:
    """numpy in this process (``--engine local``, the default)."""

    name = "local"

    def read_qrels(self, source: Any, master: str | None) -> Any:
        from relkit.metrics.data import Qrels

        return Qrels.coerce(source)

    def evaluate(self, evaluator: Any, runs: Sequence[Any], zscores: Any = None
                 ) -> list[tuple[str, Any]]:
        from relkit.metrics.data import Run

        out = []
        for run in runs:
            run = Run.coerce(run)
            out.append((str(run.source), evaluator.compute_local(run, zscores)))
        return out

    def em_sums(self, model: Any, sessions: Any, theta: Any, into: dict[str, Any]
                ) -> dict[str, Any]:
        from relkit.metrics.online.clickmodels.sums import block_sums

        return block_sums(model, sessions, theta, into)

    def read_click_log(self, path: Any, *, mapping: dict[str, str] | None = None,
                       master: str | None = None) -> Any:
        from relkit.metrics.online.source import open_log

        source = open_log(path, mapping=mapping)
        source.check()
        return source


ENGINES.register(LocalEngine())
