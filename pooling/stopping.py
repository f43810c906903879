"""When to stop judging: the knee and target methods for adaptive judging.

An adaptive strategy (``relkit pool --strategy bandit``) says what to judge
next, not when the topic is done. These rules decide it from what the
assessors found so far, as technology-assisted review does.

Reference: G. V. Cormack and M. R. Grossman, "Engineering quality and
reliability in technology-assisted review", SIGIR 2016, pp. 75-84.

* **Knee method.** After ``s`` judgments with ``relret(s)`` relevant found,
  the knee is the point ``i`` of the gain curve ``(i, relret(i))`` farthest
  from the straight line from ``(0, 0)`` to ``(s, relret(s))``; the slope
  ratio is::

      rho = (relret(i) / i) / ((relret(s) - relret(i) + 1) / (s - i))

  (the ``+ 1`` keeps a flat tail finite). Judging stops at the first ``s`` with
  ``s >= 150`` and ``rho >= 156 - min(relret(s), 150)``: a ratio of 6 once 150
  relevant documents have been found, a steeper knee required for topics with
  few (the paper's parameters, the defaults here).
* **Target method.** Before judging, a simple random sample of the documents
  is judged until it holds ``T`` relevant ones (the target set; the paper uses
  ``T = 10``); the adaptive judging then stops as soon as every target
  document has been judged. Its cost is the review plus the sample.

A topic with no relevant document never meets the knee rule: the review runs
to its end (:func:`knee_stop` returns None).

Online use: :func:`parse_stop` reads a rule as the CLI takes it (``knee``,
``target`` or ``target:T``) and :class:`KneeState` checks the knee rule one
judgment at a time; :class:`relkit.pooling.adaptive.AdaptivePool` applies both
(``relkit pool --strategy bandit --stop knee``, ``relkit pool-simulate --stop``).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import TypeVar

import numpy as np

from relkit.pooling.errors import PoolingError

__all__ = ["KneeState", "StopRule", "draw_target", "knee", "knee_stop", "parse_stop",
           "slope_ratio", "target_stop"]

Doc = TypeVar("Doc", bound=Hashable)


def _cumulative(gains: Sequence[int]) -> list[int]:
    out, total = [0], 0
    for g in gains:
        total += 1 if g else 0
        out.append(total)
    return out


def knee(found: Sequence[int], s: int) -> int:
    """The knee of the gain curve ``found[0..s]`` (``found[i]``: relevant in the first i).

    The point farthest from the line from (0, 0) to (s, found[s]); the first
    such point on a tie. Distance up to a constant factor: ``|found[s] * i - s * found[i]|``.
    """
    r = found[s]
    best, at = -1, 0
    for i in range(1, s):
        d = abs(r * i - s * found[i])
        if d > best:
            best, at = d, i
    return at


def slope_ratio(found: Sequence[int], s: int) -> float:
    """Cormack & Grossman's slope ratio at ``s`` judgments (0 before any knee)."""
    i = knee(found, s)
    if i == 0 or found[i] == 0:
        return 0.0
    return (found[i] / i) / ((found[s] - found[i] + 1) / (s - i))


def knee_stop(gains: Sequence[int], *, min_judged: int = 150, base: float = 156.0,
              cap: int = 150, checkpoints: Iterable[int] | None = None) -> int | None:
    """Number of judgments after which the knee method stops (None: it never does).

    Parameters
    ----------
    gains
        The judgments in the order they were made: relevant (truthy) or not.
    min_judged, base, cap
        Stop at the first checkpoint ``s >= min_judged`` with
        ``slope_ratio >= base - min(relret(s), cap)`` (the paper: 150, 156, 150).
    checkpoints
        Where the rule is checked (the paper checks after each batch of its
        review); default: after every judgment.

    >>> knee_stop([1] * 5 + [0] * 300)   # rho = s - 5 at the knee i = 5: 151 at s = 156
    156
    """
    for name, v in (("min_judged", min_judged), ("cap", cap)):
        if isinstance(v, bool) or not isinstance(v, int) or v < 0:
            raise PoolingError(f"The '{name}' parameter of the knee method must be an "
                               f"int >= 0; got {v!r}")
    found = _cumulative(gains)
    n = len(gains)
    points = range(1, n + 1) if checkpoints is None else sorted(set(checkpoints))
    for s in points:
        if s > n:
            break
        if s < max(min_judged, 2):
            continue
        if slope_ratio(found, s) >= base - min(found[s], cap):
            return s
    return None


def draw_target(docs: Sequence[Doc], relevant: Callable[[Doc], bool], size: int = 10,
                seed: int = 0) -> tuple[set[Doc], int]:
    """The target set: a random sample judged until it holds ``size`` relevant documents.

    Returns the target set and how many documents the sample judged (its
    cost). With fewer than ``size`` relevant documents in all, the sample
    judges every document and the target is every relevant one.
    """
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise PoolingError(f"The 'size' parameter of the target method must be an int >= 1; "
                           f"got {size!r}")
    order = list(docs)
    random.Random(seed).shuffle(order)
    target: set[Doc] = set()
    for n, d in enumerate(order, 1):
        if relevant(d):
            target.add(d)
            if len(target) == size:
                return target, n
    return target, len(order)


def target_stop(judged: Sequence[Doc], target: Iterable[Doc]) -> int | None:
    """Number of judgments after which every target document has been judged (None: never)."""
    left = set(target)
    if not left:
        return 0
    for n, d in enumerate(judged, 1):
        left.discard(d)
        if not left:
            return n
    return None


@dataclass(frozen=True)
class StopRule:
    """A stopping rule as the CLI names it: ``knee``, or ``target`` with its size ``T``."""

    method: str
    target: int = 10

    def __str__(self) -> str:
        return self.method if self.method == "knee" else f"target:{self.target}"


def parse_stop(spec: str | StopRule | None) -> StopRule | None:
    """``knee``, ``target`` (T = 10, the paper's) or ``target:T``; None or '' for no rule."""
    if spec is None or isinstance(spec, StopRule):
        return spec
    text = str(spec).strip()
    if not text:
        return None
    name, _, arg = text.partition(":")
    if name == "knee" and not arg:
        return StopRule("knee")
    if name == "target":
        if not arg:
            return StopRule("target")
        if arg.isdigit() and int(arg) >= 1:
            return StopRule("target", int(arg))
        raise PoolingError(f"The target method's size must be an int >= 1 (target:T); "
                           f"got {arg!r}")
    raise PoolingError(f"unknown stopping rule {text!r}: expected knee, target or target:T")


class KneeState:
    """The knee rule checked after each judgment, as :func:`knee_stop` over all of them.

    ``add(relevant)`` returns True at the first judgment where the rule says
    stop (and every later one). The knee search is one vectorised pass over
    the gain curve per judgment.
    """

    def __init__(self, *, min_judged: int = 150, base: float = 156.0, cap: int = 150) -> None:
        self.min_judged, self.base, self.cap = min_judged, base, cap
        self._found = np.zeros(256, dtype=np.int64)
        self.s = 0
        self.stopped_at: int | None = None

    def add(self, relevant: bool) -> bool:
        if self.s + 1 >= len(self._found):
            self._found = np.concatenate([self._found, np.zeros_like(self._found)])
        self._found[self.s + 1] = self._found[self.s] + (1 if relevant else 0)
        self.s += 1
        if self.stopped_at is None and self._check():
            self.stopped_at = self.s
        return self.stopped_at is not None

    def ratio(self) -> float | None:
        """The slope ratio at the knee of the gain curve so far (None: fewer than two
        judgments, or nothing relevant up to the knee)."""
        s = self.s
        if s < 2:
            return None
        found = self._found[: s + 1]
        r = int(found[s])
        i = np.arange(1, s)
        d = np.abs(r * i - s * found[1:s])
        at = int(np.argmax(d)) + 1          # the first farthest point, as knee()
        fi = int(found[at])
        if fi == 0:
            return None
        return float((fi / at) / ((r - fi + 1) / (s - at)))

    def required(self) -> float:
        """The ratio the rule needs now: ``base - min(relret(s), cap)``."""
        return self.base - min(int(self._found[self.s]), self.cap)

    def _check(self) -> bool:
        if self.s < max(self.min_judged, 2):
            return False
        rho = self.ratio()
        return rho is not None and bool(rho >= self.required())
