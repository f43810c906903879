"""Chain models fitted from sums: the M-step is the model's, the E-step sums an engine's.

An EM iteration of DBN, DCM or CCM needs, from the whole log, only a few sums: fixed
counts that never change (impressions, clicks, cells above the last click...) and the
posterior sums of one E-step at the current parameters. Each model says here, once,
which sums it needs (:meth:`ChainModel.fixed_sums`, :meth:`ChainModel.block_sums`, both
over one block of distinct sessions, :class:`~.chain.Pages`) and how the parameters
follow from them (:meth:`ChainModel.m_step`); :meth:`ChainModel.fit_from_sums` runs the
loop. An engine only adds blocks' sums (its ``em_sums``): the local engine block by
block in memory (:func:`block_sums`), Spark partition by partition.

The sums start from :meth:`ChainModel.seed` (the likelihood's fixed part, the fixed
terms of a ratio) and an engine adds its blocks' sums into them, so the additions run
in the order the single-machine loop has always used: the numbers are that loop's, bit
for bit.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, ClassVar, Literal

import numpy as np

from relkit.metrics.online.clickmodels.base import ClickModel
from relkit.metrics.online.clickmodels.chain import Pages, distinct_pages
from relkit.metrics.online.clickmodels.data import ClickData

Sums = dict[str, Any]
Theta = tuple[Any, ...]
# A sum's shape: one value per pair code, per rank, or a single number.
Shape = Literal["pair", "rank", "scalar"]
# What an engine gives the EM loop: the sums of one E-step at ``theta``, added into
# ``seed`` (see the module docstring).
ESums = Callable[[Theta, Sums], Sums]
# An engine's ``em_sums(model, sessions, theta, into)`` (``theta`` None: fixed counts).
EngineSums = Callable[["ChainModel", Any, "Theta | None", Sums], Sums]


def zeros(shapes: dict[str, Shape], n_pairs: int, max_rank: int) -> Sums:
    """Sums of nothing: a zero array per pair or per rank, or 0.0, for each name."""
    size = {"pair": n_pairs, "rank": max_rank}
    return {k: 0.0 if s == "scalar" else np.zeros(size[s]) for k, s in shapes.items()}


def add_into(acc: Sums, part: Sums) -> Sums:
    """``acc[k] + part[k]`` for every sum of ``part`` (``acc`` updated and returned)."""
    for k, v in part.items():
        acc[k] = acc[k] + v if k in acc else v
    return acc


class ChainModel(ClickModel):
    """A chain model (DBN, DCM, CCM) fitted by exact EM from sums.

    Subclasses declare the shapes of their sums (:attr:`fixed_shapes`,
    :attr:`sum_shapes`) and implement the five steps below; the E-step itself is
    :func:`~.chain.e_step`, shared by all three. A subclass takes no constructor
    arguments: Spark's ``em_sums`` ships ``type(model)()`` to its tasks (the methods;
    the parameters travel as ``theta``), not the model.
    """

    fixed_shapes: ClassVar[dict[str, Shape]] = {}
    sum_shapes: ClassVar[dict[str, Shape]] = {}

    def start(self, rng: np.random.Generator, n_pairs: int, max_rank: int) -> Theta:
        """The initial parameters, drawn from ``rng``."""
        raise NotImplementedError

    def fixed_sums(self, pg: Pages, n_pairs: int, max_rank: int) -> Sums:
        """The counts of block ``pg`` that do not change over the iterations."""
        raise NotImplementedError

    def seed(self, fixed: Sums, theta: Theta) -> Sums:
        """Where one iteration's sums start: ``log_t`` holds the log-likelihood's fixed
        part at ``theta``, the others the fixed terms the M-step adds to them (or 0)."""
        raise NotImplementedError

    def block_sums(self, pg: Pages, theta: Theta, n_pairs: int, max_rank: int) -> Sums:
        """One E-step's sums over block ``pg`` at ``theta`` (``log_t``: its part of the
        log-likelihood)."""
        raise NotImplementedError

    def m_step(self, fixed: Sums, theta: Theta, sums: Sums) -> Theta:
        """The next parameters from the fixed counts and one iteration's sums."""
        raise NotImplementedError

    def params_of(self, theta: Theta) -> dict[str, Any]:
        """:attr:`params` of parameters ``theta``."""
        raise NotImplementedError

    def fit_from_sums(self, fixed: Sums, e_sums: ESums, n_pairs: int, max_rank: int,
                      iterations: int, rng: np.random.Generator) -> None:
        """EM from sums: ``fixed`` (every block's :meth:`fixed_sums` added) and
        ``e_sums(theta, seed)`` (every block's :meth:`block_sums` added into ``seed``).
        Sets :attr:`params` and :attr:`trace` (the log-likelihood after each step)."""
        theta = self.start(rng, n_pairs, max_rank)
        trace: list[float] = []
        for _ in range(iterations + 1):
            sums = e_sums(theta, self.seed(fixed, theta))
            trace.append(float(sums["log_t"]))
            if len(trace) > iterations:
                break
            theta = self.m_step(fixed, theta, sums)
        self.params, self.trace = self.params_of(theta), trace

    def fit_on(self, em_sums: EngineSums, sessions: Any, n_pairs: int, max_rank: int,
               iterations: int, rng: np.random.Generator) -> None:
        """EM over an engine's ``sessions``: ``em_sums`` is the engine's
        :meth:`~relkit.metrics.core.engines.Engine.em_sums` (fixed counts first, then
        one call per iteration)."""
        fixed = em_sums(self, sessions, None, zeros(self.fixed_shapes, n_pairs, max_rank))
        self.fit_from_sums(fixed, lambda theta, seed: em_sums(self, sessions, theta, seed),
                           n_pairs, max_rank, iterations, rng)

    def _fit(self, data: ClickData, iterations: int, rng: np.random.Generator) -> None:
        blocks = Blocks(distinct_pages(data), data.n_pairs, data.max_rank)
        self.fit_on(block_sums, blocks, data.n_pairs, data.max_rank, iterations, rng)


@dataclass
class Blocks:
    """Distinct sessions held in memory, as blocks (the local engine's sessions)."""

    pages: list[Pages]
    n_pairs: int
    max_rank: int


def block_sums(model: ChainModel, sessions: Blocks, theta: Theta | None, into: Sums) -> Sums:
    """The sums of the blocks in memory, added into ``into`` block by block: the model's
    fixed counts (``theta`` None) or one E-step's sums at ``theta``. The local engine's
    ``em_sums``."""
    n_p, r_max = sessions.n_pairs, sessions.max_rank
    for pg in sessions.pages:
        add_into(into, model.fixed_sums(pg, n_p, r_max) if theta is None
                 else model.block_sums(pg, theta, n_p, r_max))
    return into
